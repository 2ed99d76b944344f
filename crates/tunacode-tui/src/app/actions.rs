//! What the user's submissions and commands do: start a request (or queue it while one runs), run a
//! `!` command, and the `/` commands.

use std::sync::Arc;

use base64::Engine;
use serde_json::json;
use tokio_util::sync::CancellationToken;
use tunacode_core::mentions::expand_mentions;
use tunacode_core::{Agent, ClientCache, Session, SessionHandle};
use tunacode_protocol::NoticeLevel;
use tunacode_store::SessionStore;
use tunacode_tools::{Bash, Tool, ToolContext, ToolSet, Workspace};

use crate::RunSettings;
use crate::app::commands::{Command, INIT_PROMPT, help_text};
use crate::app::picker::{Picker, PickerItem, PickerKind};
use crate::app::state::{App, AppMsg, Running};
use crate::app::status::Activity;
use crate::app::transcript::CellKind;
use crate::setup::KeyPrompt;
use crate::theme::Theme;

impl App {
    /// Handles the text the user sent.
    pub fn submit(&mut self, text: String) {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return;
        }
        let _ = self.history.push(&text);
        if trimmed.starts_with('/') {
            let command = crate::app::commands::parse_command(trimmed);
            self.run_command(command);
        } else if let Some(command) = trimmed.strip_prefix('!') {
            self.run_shell(command.trim().to_string());
        } else if self.busy() {
            self.queue.push_back(text);
            self.hint = Some(format!(
                "{} message(s) queued; they are sent in order",
                self.queue.len()
            ));
        } else {
            self.start_request(text);
        }
    }

    /// Sends a message to the agent.
    pub fn start_request(&mut self, text: String) {
        let Some(agent) = self.agent.clone() else {
            return;
        };
        let prompt = expand_mentions(&text, agent.workspace());
        self.transcript.push(CellKind::User(text));
        if !prompt.attached.is_empty() {
            self.transcript.push(CellKind::Notice(
                NoticeLevel::Info,
                format!("attached {}", prompt.attached.join(", ")),
            ));
        }
        self.transcript.scroll_to_bottom();
        let cancel = CancellationToken::new();
        let tx = self.msgs.clone();
        let token = cancel.clone();
        let task = tokio::spawn(async move {
            let result = agent.process_request(&prompt.text, token).await;
            let _ = tx.send(AppMsg::RequestDone(result));
        });
        self.running = Some(Running { cancel, task });
        self.status.set_activity(Activity::Thinking);
    }

    /// Stops the request in flight (Esc): the engine keeps partial text and cancels tools.
    pub fn interrupt(&mut self) {
        if let Some(running) = &self.running {
            running.cancel.cancel();
            self.queue.clear();
        }
    }

    /// Runs a `!` command in the workspace; its output is shown, not sent to the model.
    pub fn run_shell(&mut self, command: String) {
        if command.is_empty() {
            return;
        }
        let workspace = Workspace::new(&self.cwd);
        let tx = self.msgs.clone();
        tokio::spawn(async move {
            let ctx = ToolContext {
                workspace,
                cancel: CancellationToken::new(),
            };
            let args = json!({"command": command, "timeout": 120});
            let output = match args.as_object() {
                Some(map) => match Bash::default().call(map.clone(), &ctx).await {
                    Ok(out) => out.content,
                    Err(e) => format!("error: {e}"),
                },
                None => String::new(),
            };
            let _ = tx.send(AppMsg::ShellDone { command, output });
        });
    }

    /// Runs a `/` command.
    pub fn run_command(&mut self, command: Command) {
        match command {
            Command::Help => self.transcript.push(CellKind::Info(help_text())),
            Command::Exit => self.should_quit = true,
            Command::Thoughts => {
                self.show_thoughts = !self.show_thoughts;
                self.hint = Some(format!(
                    "reasoning {}",
                    if self.show_thoughts {
                        "shown"
                    } else {
                        "hidden"
                    }
                ));
                for cell in &mut self.transcript.cells {
                    cell.touch();
                }
            }
            Command::Yolo => {
                let on = !self
                    .approver
                    .yolo
                    .load(std::sync::atomic::Ordering::Relaxed);
                self.approver
                    .yolo
                    .store(on, std::sync::atomic::Ordering::Relaxed);
                self.status.yolo = on;
                let text = if on {
                    "YOLO on: writes and commands run without asking."
                } else {
                    "YOLO off: writes and commands ask first."
                };
                self.transcript
                    .push(CellKind::Notice(NoticeLevel::Warning, text.into()));
            }
            Command::Plan => {
                if let Some(agent) = &self.agent {
                    let on = !agent.session().lock().plan_mode;
                    agent.set_plan_mode(on);
                }
            }
            Command::Theme(Some(name)) => self.set_theme(&name),
            Command::Theme(None) => {
                let items = Theme::NAMES
                    .iter()
                    .map(|n| PickerItem {
                        id: n.to_string(),
                        label: n.to_string(),
                        detail: String::new(),
                        preview: None,
                    })
                    .collect();
                self.picker = Some(Picker::new(PickerKind::Theme, "Theme", items));
            }
            Command::Cost => self.show_cost(),
            Command::Copy => self.copy_last_answer(),
            Command::Init => {
                if self.busy() {
                    self.queue.push_back(INIT_PROMPT.to_string());
                } else {
                    self.start_request(INIT_PROMPT.to_string());
                }
            }
            Command::Clear => self.new_session(),
            Command::Resume => self.open_resume_picker(),
            Command::Model(Some(id)) => self.switch_model(&id),
            Command::Model(None) => {
                let items = self
                    .registry
                    .list(None)
                    .into_iter()
                    .map(|m| PickerItem {
                        id: m.key(),
                        label: m.key(),
                        detail: format!(
                            "  {}k ctx  ${}/${} per M",
                            m.context_window / 1000,
                            m.pricing.input,
                            m.pricing.output
                        ),
                        preview: None,
                    })
                    .collect();
                self.picker = Some(Picker::new(
                    PickerKind::Model,
                    "Model (type to filter, Enter picks; provider:model typed works too)",
                    items,
                ));
            }
            Command::Unknown(name) => self.transcript.push(CellKind::Error(format!(
                "Unknown command /{name}. Type /help for the list."
            ))),
        }
    }

    /// Applies a theme by name.
    pub fn set_theme(&mut self, name: &str) {
        self.theme = Theme::named(name);
        self.hint = Some(format!("theme {}", self.theme.name));
    }

    fn show_cost(&mut self) {
        let mut text = String::from("Usage and cost this session:\n");
        for (model, u) in &self.usage_by_model {
            text.push_str(&format!(
                "  {model:<40} in {:>9}  out {:>8}  cached {:>8}  ${:.4}\n",
                u.request_tokens, u.response_tokens, u.cached_tokens, u.cost
            ));
        }
        let t = self.status.usage;
        text.push_str(&format!(
            "  {:<40} in {:>9}  out {:>8}  cached {:>8}  ${:.4}",
            "total (session)", t.request_tokens, t.response_tokens, t.cached_tokens, t.cost
        ));
        self.transcript.push(CellKind::Info(text));
    }

    /// `/copy`: the last answer to the clipboard through OSC 52 (works over SSH and in tmux).
    fn copy_last_answer(&mut self) {
        let Some(text) = self.transcript.last_answer() else {
            self.hint = Some("nothing to copy yet".into());
            return;
        };
        let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
        self.pending_output.push(format!("\x1b]52;c;{encoded}\x07"));
        self.hint = Some(format!("copied {} characters", text.chars().count()));
    }

    /// Builds an agent for `settings` on `session`.
    pub fn build_agent(&self, settings: RunSettings, session: Session) -> Agent {
        let tools = ToolSet::builtin_with_todos(&session.todos);
        Agent::new(
            settings.options,
            settings.provider,
            ClientCache::default(),
            tools,
            Workspace::new(&self.cwd),
            Arc::new(self.approver.clone()),
            SessionHandle::new(session),
            Some(SessionStore::new(&self.paths.sessions_dir)),
            self.events.clone(),
        )
    }

    /// Makes `agent` the current one and updates the status line from it.
    pub fn install_agent(&mut self, agent: Agent, context_window: Option<u64>) {
        let (session_id, plan_mode, usage, todos) = {
            let s = agent.session().lock();
            (
                s.id.clone(),
                s.plan_mode,
                s.usage.session_total,
                s.todos.items(),
            )
        };
        self.status.model = agent.options().model.clone();
        self.status.context_window = context_window;
        self.status.session_id = session_id;
        self.status.plan_mode = plan_mode;
        self.status.usage = usage;
        self.todos = todos;
        self.agent = Some(Arc::new(agent));
    }

    /// `/model ID`: switches the model, keeping the history. A provider without a key asks for it.
    pub fn switch_model(&mut self, id: &str) {
        if self.busy() {
            self.hint =
                Some("wait for the agent to finish (or Esc) before switching models".into());
            return;
        }
        match (self.resolve)(Some(id)) {
            Ok(settings) => {
                let Some(current) = &self.agent else { return };
                let window = settings.context_window;
                let agent = current.with_model(settings.options, settings.provider);
                self.install_agent(agent, window);
                self.transcript
                    .push(CellKind::Notice(NoticeLevel::Info, format!("Model: {id}")));
            }
            Err(message) if message.contains("no API key") => {
                let provider = id.split(':').next().unwrap_or(id).to_string();
                let var = tunacode_llm::known_provider(&provider)
                    .and_then(|p| p.key_env)
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("{}_API_KEY", provider.to_uppercase()));
                self.key_prompt = Some((KeyPrompt::new(&provider, &var), id.to_string()));
            }
            Err(message) => self.transcript.push(CellKind::Error(message)),
        }
    }

    /// The key typed for a provider: saved to the user's config (mode 0600), then the switch goes on.
    pub fn submit_key(&mut self, key: String) {
        let Some((prompt, model)) = self.key_prompt.take() else {
            return;
        };
        let update = tunacode_store::SetupUpdate {
            default_model: None,
            env: vec![(prompt.key_env().to_string(), key)],
            provider: None,
        };
        match tunacode_store::save_setup(&self.paths.config_file, &update) {
            Ok(()) => {
                // The saved key reaches resolution through the config's `env`.
                self.switch_model(&model);
            }
            Err(e) => self
                .transcript
                .push(CellKind::Error(format!("The key could not be saved: {e}"))),
        }
    }
}
