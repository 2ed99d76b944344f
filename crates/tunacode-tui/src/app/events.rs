//! How the runtime's events change what the UI shows: one handler per kind of event. The engine's own
//! events (streamed text, tools, usage) are in `agent_events.rs`.

use std::path::PathBuf;

use tunacode_core::runtime::{ListedSession, OpFailure};
use tunacode_core::{Question, RuntimeEvent};
use tunacode_protocol::NoticeLevel;
use tunacode_protocol::runtime::{ModelView, RequestFailure, RunOutcome, SessionView};

use crate::app::dialogs::dialog_for;
use crate::app::picker::{Picker, PickerItem, PickerKind};
use crate::app::state::{App, AppMsg, Screen};
use crate::app::status::Activity;
use crate::app::transcript::CellKind;
use crate::setup::{KeyPrompt, SetupScreen};

impl App {
    /// Applies what arrived from background work or the runtime.
    pub fn on_msg(&mut self, msg: AppMsg) {
        match msg {
            AppMsg::Runtime(event) => self.on_runtime_event(*event),
            AppMsg::ClipboardImage(Ok(path)) => {
                self.input.images.push(path);
                let n = self.input.images.len();
                self.input.hint = Some(format!("{n} image(s) pasted; sent with the message"));
            }
            AppMsg::ClipboardImage(Err(why)) => self.notice(NoticeLevel::Info, why),
            AppMsg::CodeHighlighted => self.view.transcript.code_arrived(),
        }
    }

    /// Applies one runtime event. Grouped by what they change: the open question, the requests, the
    /// session (with its settings and setup), the transcript's outputs, and the MCP servers.
    pub fn on_runtime_event(&mut self, event: RuntimeEvent) {
        match event {
            RuntimeEvent::Agent(e) => self.on_agent_event(e),
            // The question on screen.
            RuntimeEvent::Question(question) => self.on_question(question),
            RuntimeEvent::QuestionClosed { id } => self.on_question_closed(&id),
            // Requests.
            RuntimeEvent::UserMessage { text, attached } => self.on_user_message(text, attached),
            RuntimeEvent::Queued { pending } => self.on_queued(pending),
            RuntimeEvent::RequestEnded(end) => self.on_request_ended(&end.outcome),
            // The session, its settings, and setup.
            RuntimeEvent::SetupChecked(result) => self.on_setup_checked(result),
            RuntimeEvent::SetupNeeded(info) => self.open_setup(info.config_file),
            RuntimeEvent::SessionOpened(view) => self.on_session_opened(*view),
            RuntimeEvent::ModelChanged(model) => self.on_model_changed(&model),
            RuntimeEvent::YoloChanged { on } => self.on_yolo_changed(on),
            RuntimeEvent::CustomCommands(commands) => self.mirror.custom_commands = commands,
            RuntimeEvent::Stopped => self.mirror.handle = None,
            // Outputs: `!` commands, what `/` commands asked for, failures.
            RuntimeEvent::ShellOutput { command, text } => self.on_shell_output(&command, &text),
            RuntimeEvent::ShellFinished { command, output } => {
                self.on_shell_finished(command, output)
            }
            RuntimeEvent::SessionList {
                sessions,
                unreadable,
            } => self.open_resume_picker(sessions, unreadable),
            RuntimeEvent::ServerModels { provider, models } => {
                self.on_server_models(&provider, models)
            }
            RuntimeEvent::KeyRejected { .. } => self.on_key_rejected(event),
            RuntimeEvent::Context(b) => self.view.transcript.push(CellKind::Info(b.render())),
            RuntimeEvent::Permissions(text) => self.view.transcript.push(CellKind::Info(text)),
            RuntimeEvent::Rewound(rewound) => self.on_rewound(rewound),
            RuntimeEvent::Turns(turns) => self.on_turns(turns),
            // The fork opens next, with a notice naming where it came from.
            RuntimeEvent::Forked(_) => {}
            RuntimeEvent::Exported { path } => self.view.transcript.push(CellKind::Notice(
                NoticeLevel::Info,
                format!("Exported the session to {}", path.display()),
            )),
            RuntimeEvent::Budget(view) => self.on_budget(view),
            RuntimeEvent::OpFailed(failure) => self.on_op_failed(failure),
            RuntimeEvent::Subagent(update) => self.on_subagent(*update),
            // MCP servers.
            RuntimeEvent::McpServer(status) => self.on_mcp_status(status),
            RuntimeEvent::McpServers(statuses) => {
                statuses.into_iter().for_each(|s| self.on_mcp_status(s))
            }
            RuntimeEvent::McpProjectPending { file, servers } => {
                self.on_mcp_project_pending(&file, &servers)
            }
            RuntimeEvent::ProjectFilePending(p) => self.notice(NoticeLevel::Warning, p.notice()),
            RuntimeEvent::ProjectFiles { text, .. } => {
                self.view.transcript.push(CellKind::Info(text))
            }
        }
    }

    fn notice(&mut self, level: NoticeLevel, text: String) {
        self.view.transcript.push(CellKind::Notice(level, text));
    }

    /// The caps and their spend: on the status line always, in the transcript when `/budget` asked.
    fn on_budget(&mut self, view: tunacode_protocol::runtime::BudgetView) {
        self.view.status.budget = view.tightest().cloned();
        if std::mem::take(&mut self.mirror.budget_asked) {
            self.view.transcript.push(CellKind::Info(view.describe()));
        }
    }

    /// A question replaces any open one, which is dismissed (its answer sent) first.
    fn on_question(&mut self, question: Question) {
        if let Some(old) = self.overlays.open_dialog(dialog_for(question)) {
            let answer = old.dismissed();
            self.answer(old.question_id().to_string(), answer);
        }
        self.view.status.set_activity(Activity::WaitingForUser);
    }

    /// The runtime no longer waits for question `id`: its dialog closes if it is still open.
    fn on_question_closed(&mut self, id: &str) {
        if self
            .overlays
            .dialog
            .as_ref()
            .is_some_and(|d| d.question_id() == id)
        {
            self.close_dialog();
        }
    }

    fn on_queued(&mut self, pending: usize) {
        self.mirror.queued = pending;
        self.input.hint =
            (pending > 0).then(|| format!("{pending} message(s) queued; they are sent in order"));
    }

    fn on_setup_checked(&mut self, result: Result<(), String>) {
        if let Screen::Setup(screen) = &mut self.screen {
            screen.on_check_result(result);
        }
    }

    /// The setup screen, for a config written to `config_file`.
    pub(crate) fn open_setup(&mut self, config_file: PathBuf) {
        self.screen = Screen::Setup(Box::new(SetupScreen::new(
            &self.mirror.catalogue,
            config_file,
        )));
    }

    fn on_model_changed(&mut self, model: &ModelView) {
        self.view.status.model = model.model.clone();
        self.view.status.context_window = model.context_window;
        self.view.transcript.push(CellKind::Notice(
            NoticeLevel::Info,
            format!("Model: {}", model.model),
        ));
    }

    fn on_user_message(&mut self, text: String, attached: Vec<String>) {
        self.mirror.busy = true;
        if let Some(i) = self.mirror.queued_texts.iter().position(|q| *q == text) {
            self.mirror.queued_texts.remove(i);
        }
        self.view.transcript.push(CellKind::User(text));
        if !attached.is_empty() {
            self.view.transcript.push(CellKind::Notice(
                NoticeLevel::Info,
                format!("attached {}", attached.join(", ")),
            ));
        }
        self.view.transcript.scroll_to_bottom();
        self.view.status.set_activity(Activity::Thinking);
    }

    fn on_request_ended(&mut self, outcome: &Result<RunOutcome, RequestFailure>) {
        self.mirror.busy = false;
        self.mirror.session_saved = true;
        if self.input.hint.as_deref() == Some(crate::app::input::STOPPING) {
            self.input.hint = None;
        }
        self.view.status.set_activity(Activity::Idle);
        if let Ok(outcome) = outcome {
            self.on_verification(&outcome.verification);
        }
        if let Err(failure) = outcome
            && failure.kind == "store"
        {
            let mut message = failure.message.clone();
            if let Some(first) = message.get_mut(..1) {
                first.make_ascii_uppercase();
            }
            self.view
                .transcript
                .push(CellKind::Error(format!("{message}.")));
        }
    }

    fn on_yolo_changed(&mut self, on: bool) {
        self.view.status.yolo = on;
        let text = if on {
            "YOLO on: writes and commands run without asking."
        } else {
            "YOLO off: writes and commands ask first."
        };
        self.view
            .transcript
            .push(CellKind::Notice(NoticeLevel::Warning, text.into()));
    }

    /// A session became the current one: at start it is shown as it is; after `/clear` or `/resume`
    /// the transcript starts over.
    fn on_session_opened(&mut self, view: SessionView) {
        if let Screen::Setup(screen) = &self.screen {
            let ready = format!(
                "Ready: {}. Saved to {}. Type a task, /help for commands.",
                view.model.model,
                screen.config_path.display()
            );
            self.screen = Screen::Chat;
            self.view.transcript.push(CellKind::Info(ready));
        }
        let announced = std::mem::replace(&mut self.mirror.session_shown, true);
        self.view.status.model = view.model.model.clone();
        self.view.status.context_window = view.model.context_window;
        self.view.status.session_id = view.session_id.clone();
        self.mirror.session_saved = !view.messages.is_empty();
        self.view.status.plan_mode = view.plan_mode;
        self.view.status.usage = view.usage;
        self.view.status.context_used = 0;
        self.view.todos = view.todos;
        if announced {
            self.view.transcript.clear();
        }
        self.replay(&view.messages);
        if let Some(notice) = view.notice {
            self.view
                .transcript
                .push(CellKind::Notice(notice.level, notice.message));
        }
        // A rewind or fork says what it did itself.
        if announced && !std::mem::take(&mut self.mirror.quiet_reopen) {
            let text = if view.resumed {
                format!("Resumed session {}.", view.session_id)
            } else {
                "New session.".to_string()
            };
            self.view.transcript.push(CellKind::Info(text));
        }
    }

    /// The provider refused the key: a new one is asked for and saved as setup saves it (then the
    /// model is resolved again with it). A key from the environment wins over the config's, so then
    /// the user is told where to change it instead.
    fn on_key_rejected(&mut self, event: RuntimeEvent) {
        let RuntimeEvent::KeyRejected {
            provider,
            var,
            from_env,
        } = event
        else {
            return;
        };
        if from_env {
            self.view.transcript.push(CellKind::Notice(
                NoticeLevel::Warning,
                format!(
                    "{provider} refused the key in ${var}. Set a valid one in your shell (a key \
                     saved in the config is used only when ${var} is unset)."
                ),
            ));
            return;
        }
        let model = self.view.status.model.clone();
        self.overlays.key_prompt = Some((KeyPrompt::new(&provider, &var), model));
    }

    fn on_op_failed(&mut self, failure: OpFailure) {
        self.mirror.quiet_reopen = false;
        match failure {
            OpFailure::MissingKey { provider, var, .. } => {
                let model = self.mirror.pending_model.take().unwrap_or_default();
                self.overlays.key_prompt = Some((KeyPrompt::new(&provider, &var), model));
            }
            other => self
                .view
                .transcript
                .push(CellKind::Error(other.to_string())),
        }
    }

    /// Shows this project's sessions to pick one to resume.
    fn open_resume_picker(&mut self, sessions: Vec<ListedSession>, unreadable: Vec<String>) {
        for e in unreadable {
            self.view.transcript.push(CellKind::Notice(
                NoticeLevel::Warning,
                format!("unreadable session: {e}"),
            ));
        }
        if sessions.is_empty() {
            self.view.transcript.push(CellKind::Info(
                "No saved sessions for this directory yet.".into(),
            ));
            return;
        }
        let items = sessions
            .into_iter()
            .map(|s| PickerItem {
                id: s.summary.session_id.clone(),
                label: if s.summary.title.is_empty() {
                    "(empty)".into()
                } else {
                    s.summary.title.clone()
                },
                detail: format!(
                    "  {}  {} msgs  {}{}",
                    s.summary.last_modified,
                    s.summary.message_count,
                    s.summary.current_model,
                    s.summary
                        .parent
                        .as_ref()
                        .map(|p| format!("  ↳ {}", p.relation()))
                        .unwrap_or_default()
                ),
                preview: Some(s.preview),
            })
            .collect();
        self.overlays.picker = Some(Picker::new(PickerKind::Resume, "Resume a session", items));
    }

    /// A running `!` command printed `text` (its cell keeps the last 64 KiB).
    fn on_shell_output(&mut self, command: &str, text: &str) {
        const KEPT: usize = 64 * 1024;
        let Some(cell) = self.view.transcript.running_shell_mut(command) else {
            return;
        };
        if let CellKind::Shell { output, .. } = &mut cell.kind {
            output.push_str(text);
            tunacode_protocol::keep_tail(output, KEPT);
        }
        cell.touch();
    }

    /// A `!` command ended: its cell (where it started) gets the whole output.
    fn on_shell_finished(&mut self, command: String, final_output: String) {
        if self.input.hint.as_deref() == Some(crate::app::input::STOPPING) {
            self.input.hint = None;
        }
        match self.view.transcript.running_shell_mut(&command) {
            Some(cell) => {
                cell.kind = CellKind::Shell {
                    command,
                    output: final_output,
                    running: None,
                };
                cell.touch();
            }
            None => self.view.transcript.push(CellKind::Shell {
                command,
                output: final_output,
                running: None,
            }),
        }
    }
}
