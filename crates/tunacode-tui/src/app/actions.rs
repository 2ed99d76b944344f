//! What the user's submissions and commands do: each becomes an operation for the runtime (a message,
//! a `!` command, an interrupt, a model switch, …) or changes only what the UI shows.

use base64::Engine;
use tunacode_core::{Answer, Op};

use tunacode_protocol::{NoticeLevel, SlashCommand as Command, parse_slash};

use crate::app::commands::help_text;
use crate::app::picker::{Picker, PickerItem, PickerKind};
use crate::app::state::App;
use crate::app::status::Activity;
use crate::app::transcript::CellKind;
use crate::theme::Theme;
use tunacode_protocol::runtime::ProjectFileKind;

impl App {
    /// Handles the text the user sent.
    pub fn submit(&mut self, text: String) {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return;
        }
        self.input.history.push(&text);
        if let Some(parsed) = parse_slash(trimmed) {
            match parsed {
                // A custom command goes to the runtime, which expands it.
                Ok(Command::Other(name)) if self.mirror.is_custom_command(&name) => {
                    self.send_message(text)
                }
                Ok(command) => self.run_command(command),
                Err(message) => self.view.transcript.push(CellKind::Error(message)),
            }
        } else if let Some(command) = trimmed.strip_prefix('!') {
            let command = command.trim().to_string();
            // The cell stays where the command started; its output fills it as it comes.
            self.view.transcript.push(CellKind::Shell {
                command: command.clone(),
                output: String::new(),
                running: Some(std::time::Instant::now()),
            });
            self.submit_op(Op::Shell { command });
        } else {
            self.send_message(text);
        }
    }

    /// Sends a message to the agent (the runtime queues it while a request runs).
    pub fn send_message(&mut self, text: String) {
        if self.mirror.busy {
            self.mirror.queued_texts.push(text.clone());
        }
        let images: Vec<_> = std::mem::take(&mut self.input.images)
            .into_iter()
            .map(|path| tunacode_protocol::runtime::ImageInput::File { path })
            .collect();
        if !images.is_empty() {
            self.input.hint = None;
        }
        self.submit_work(Op::user_message_with_images(text, images));
    }

    /// Submits work that runs as a request (now, or after the running one): the UI shows it busy.
    fn submit_work(&mut self, op: Op) {
        if !self.mirror.busy {
            self.mirror.busy = true;
            self.view.status.set_activity(Activity::Thinking);
        }
        self.submit_op(op);
    }

    /// Sends the answer to a question and closes its dialog.
    pub fn answer(&mut self, id: String, answer: Answer) {
        self.submit_op(Op::Answer { id, answer });
    }

    /// Stops the request in flight (Esc) and any `!` command: the engine keeps partial text and
    /// cancels tools.
    pub fn interrupt(&mut self) {
        self.submit_op(Op::Interrupt);
    }

    /// Runs a `/` command: those only the UI sees, those on the conversation, and the runtime's
    /// settings.
    pub fn run_command(&mut self, command: Command) {
        match command {
            // The UI: what it shows and keeps.
            Command::Help => self.show_help(),
            Command::Exit => self.should_quit = true,
            Command::Thoughts => self.toggle_thoughts(),
            Command::Theme(Some(name)) => self.set_theme(&name),
            Command::Theme(None) => self.open_theme_picker(),
            Command::Cost => self.show_cost(),
            Command::Budget(change) => self.budget_command(change),
            Command::Copy => self.copy_last_answer(),
            // The conversation.
            // The runtime expands it (with the checks the repository's build files suggest).
            Command::Init => self.send_message("/init".to_string()),
            Command::Compact(focus) => self.compact(focus),
            Command::Undo(to) => self.submit_op(Op::Undo { to }),
            Command::Rewind(None) => self.ask_turns(),
            Command::Rewind(Some((to, mode))) => self.submit_rewind(Op::Rewind { to, mode }),
            Command::Redo => self.submit_rewind(Op::Redo),
            Command::Fork(at) => self.submit_rewind(Op::Fork { at }),
            Command::Export(path) => self.submit_op(Op::Export {
                format: tunacode_protocol::export_format_of(path.as_deref()),
                path,
            }),
            Command::Clear => self.submit_op(Op::NewSession),
            Command::Resume => self.submit_op(Op::ListSessions),
            // The runtime's settings.
            Command::Yolo => self.submit_op(Op::SetYolo {
                on: !self.view.status.yolo,
            }),
            Command::Plan => self.submit_op(Op::SetPlanMode {
                active: !self.view.status.plan_mode,
            }),
            Command::Mcp(arg) => self.mcp_command(arg.as_deref()),
            Command::Checks(arg) => {
                self.project_file_command(ProjectFileKind::Checks, arg.as_deref())
            }
            Command::Hooks(arg) => {
                self.project_file_command(ProjectFileKind::Hooks, arg.as_deref())
            }
            Command::Agents(arg) => {
                self.project_file_command(ProjectFileKind::Agents, arg.as_deref())
            }
            Command::Permissions => self.submit_op(Op::DescribePermissions),
            Command::Context => self.submit_op(Op::DescribeContext),
            Command::ContextWindow(tokens) => self.submit_op(Op::SetContextWindow { tokens }),
            Command::Sandbox(None) => self.submit_op(Op::DescribePermissions),
            Command::Sandbox(Some(mode)) => self.submit_op(Op::SetSandbox { mode }),
            Command::Model(Some(id)) => self.switch_model(&id),
            Command::Model(None) => self.open_model_picker(),
            Command::Other(name) => self.view.transcript.push(CellKind::Error(format!(
                "Unknown command /{name}. Type /help for the list."
            ))),
        }
    }

    /// `/budget`: asks the runtime for the caps, or sets one; its answer is shown.
    fn budget_command(&mut self, change: Option<tunacode_protocol::BudgetChange>) {
        self.mirror.budget_asked = true;
        self.submit_op(match change {
            None => Op::DescribeBudget,
            Some(c) => Op::SetBudget {
                scope: c.scope,
                usd: c.usd,
                tokens: c.tokens,
            },
        });
    }

    /// `/help`: the commands (the custom ones too) and keys.
    fn show_help(&mut self) {
        let custom = self.mirror.custom_command_infos();
        self.view
            .transcript
            .push(CellKind::Info(help_text(&custom)))
    }

    /// `/thoughts`: shows or hides reasoning; every cell is drawn again.
    fn toggle_thoughts(&mut self) {
        let shown = self.view.toggle_thoughts();
        let state = if shown { "shown" } else { "hidden" };
        self.input.hint = Some(format!("reasoning {state}"));
    }

    /// `/theme` without a name: the picker of themes.
    fn open_theme_picker(&mut self) {
        let items = Theme::NAMES
            .iter()
            .map(|n| PickerItem {
                id: n.to_string(),
                label: n.to_string(),
                detail: String::new(),
                preview: None,
            })
            .collect();
        self.overlays.picker = Some(Picker::new(PickerKind::Theme, "Theme", items));
    }

    /// `/compact [focus]`: the runtime compacts now, or after the running request (it decides what
    /// waits).
    fn compact(&mut self, focus: Option<String>) {
        self.submit_work(Op::Compact { focus });
    }

    /// `/model` without an id: the picker of the catalogue's models.
    fn open_model_picker(&mut self) {
        let current = self.view.status.model.clone();
        let models: Vec<_> = self.mirror.catalogue.of(None).collect();
        // Columns: the names padded to the widest, the figures right-aligned; ● marks the model in use.
        let width = models
            .iter()
            .map(|m| m.key().chars().count())
            .max()
            .unwrap_or(0);
        let items = models
            .iter()
            .map(|m| {
                let key = m.key();
                let mark = if key == current { "●" } else { " " };
                PickerItem {
                    label: format!("{mark} {key:<width$}"),
                    detail: format!(
                        " {:>5}k ctx {:>8} in {:>8} out per M",
                        m.context_window / 1000,
                        format!("${}", m.input_price),
                        format!("${}", m.output_price)
                    ),
                    id: key,
                    preview: None,
                }
            })
            .collect();
        let mut picker = Picker::new(
            PickerKind::Model,
            "Model (type to filter, Enter picks; provider:model typed works too)",
            items,
        );
        picker.select_id(&current);
        self.overlays.picker = Some(picker);
        // A server's own models (an OpenAI-compatible one lists them) join the list when they come.
        self.submit_op(Op::ListServerModels);
    }

    /// The models the current provider's server serves, added to an open `/model` picker.
    pub(crate) fn on_server_models(&mut self, provider: &str, models: Vec<String>) {
        let Some(picker) = self
            .overlays
            .picker
            .as_mut()
            .filter(|p| p.kind == PickerKind::Model)
        else {
            return;
        };
        let current = &self.view.status.model;
        let items = models
            .into_iter()
            .map(|id| {
                let key = format!("{provider}:{id}");
                let mark = if key == *current { "●" } else { " " };
                PickerItem {
                    label: format!("{mark} {key}"),
                    detail: "  served by this provider's server".into(),
                    id: key,
                    preview: None,
                }
            })
            .collect();
        picker.extend(items);
    }

    /// Applies a theme by name.
    pub fn set_theme(&mut self, name: &str) {
        self.view.theme = Theme::named(name);
        self.input.hint = Some(format!("theme {}", self.view.theme.name));
        // Kept for the next start (`settings.theme`).
        self.submit_op(Op::SaveTheme {
            name: self.view.theme.name.to_string(),
        });
    }

    /// `/cost`: usage and cost per model.
    fn show_cost(&mut self) {
        let text = self.view.cost_text();
        self.view.transcript.push(CellKind::Info(text));
    }

    /// `/copy`: the last answer to the clipboard through OSC 52 (works over SSH and in tmux).
    fn copy_last_answer(&mut self) {
        let Some(text) = self
            .view
            .transcript
            .last_answer()
            .filter(|t| !t.trim().is_empty())
        else {
            self.view.transcript.push(CellKind::Notice(
                NoticeLevel::Info,
                "Nothing to copy: there is no answer yet.".into(),
            ));
            return;
        };
        let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
        self.view
            .pending_output
            .push(format!("\x1b]52;c;{encoded}\x07"));
        // OSC 52 has no reply: whether the terminal took it cannot be known, so say what to check.
        self.view.transcript.push(CellKind::Info(format!(
            "Copied the last answer ({} lines, {} characters) to the clipboard. If it stays empty, \
             the terminal refused OSC 52 (in tmux: set -g set-clipboard on).",
            text.lines().count(),
            text.chars().count()
        )));
    }

    /// `/model ID`: switches the model, keeping the history. A provider without a key asks for it
    /// (the runtime says which variable is missing).
    pub fn switch_model(&mut self, id: &str) {
        self.mirror.pending_model = Some(id.to_string());
        self.submit_op(Op::SetModel {
            model: id.to_string(),
        });
    }

    /// The key typed for a provider: saved to the user's config (mode 0600), then the switch goes on.
    pub fn submit_key(&mut self, key: String) {
        let Some((prompt, model)) = self.overlays.key_prompt.take() else {
            return;
        };
        // The runtime saves the key, then switches (reading it from the config); a failed save
        // is said and the model stays as it was.
        self.mirror.pending_model = Some(model.clone());
        self.submit_op(Op::SaveKey {
            var: prompt.key_env().to_string(),
            key: tunacode_protocol::runtime::Secret::new(key),
            model: Some(model),
        });
    }
}
