//! [`SetupScreen`]: the first-run setup as a state machine driven by key events. Drawing is in
//! `view.rs`.

use std::path::{Path, PathBuf};

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use tunacode_protocol::runtime::{ModelCatalogue, ProviderInfo, SetupChoice};

use super::action::SetupAction;
use super::input::LineInput;
use super::steps::{CheckState, ModelItem, PROVIDERS, ProviderOption, Step};

/// The base URL offered for an OpenAI-compatible server (Ollama's).
pub(crate) const DEFAULT_BASE_URL: &str = "http://localhost:11434/v1";
/// The name a compatible server is saved under unless the user picks another.
pub(crate) const DEFAULT_PROVIDER_NAME: &str = "local";
/// How far PageUp/PageDown move in the model list.
const PAGE: usize = 10;
/// The wire API of an OpenAI-compatible server.
const COMPATIBLE_WIRE: &str = "openai-chat";

/// The first-run setup screen: provider, server address and name (compatible servers), key, model,
/// then a real check of the choice. Esc goes back a step, Ctrl+C quits.
pub struct SetupScreen {
    pub(crate) config_path: PathBuf,
    /// Model ids per known provider, from the catalogue.
    models: Vec<(&'static str, Vec<String>)>,
    /// The providers TunaCode knows (their endpoints and key variables).
    providers: Vec<ProviderInfo>,
    pub(crate) step: Step,
    pub(crate) provider_index: usize,
    /// The provider the later answers belong to (changing it clears them).
    confirmed_provider: Option<usize>,
    pub(crate) base_url: LineInput,
    pub(crate) provider_name: LineInput,
    pub(crate) key: LineInput,
    pub(crate) model: LineInput,
    pub(crate) model_index: usize,
    pub(crate) check: CheckState,
    pub(crate) choice: Option<SetupChoice>,
    /// A problem with the last answer, shown under the field.
    pub(crate) error: Option<String>,
}

impl std::fmt::Debug for SetupScreen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SetupScreen")
            .field("step", &self.step)
            .field("provider_index", &self.provider_index)
            .field("check", &self.check)
            .finish_non_exhaustive()
    }
}

impl SetupScreen {
    /// A screen at its first step, listing the catalogue's models for each provider; the choice will
    /// be saved to `config_path` (shown to the user).
    pub fn new(catalogue: &ModelCatalogue, config_path: PathBuf) -> Self {
        let models = PROVIDERS
            .iter()
            .filter_map(|p| p.provider)
            .map(|p| {
                let ids = catalogue.of(Some(p)).map(|m| m.id.clone()).collect();
                (p, ids)
            })
            .collect();
        SetupScreen {
            config_path,
            models,
            providers: catalogue.providers.clone(),
            step: Step::Provider,
            provider_index: 0,
            confirmed_provider: None,
            base_url: LineInput::with_text(DEFAULT_BASE_URL),
            provider_name: LineInput::with_text(DEFAULT_PROVIDER_NAME),
            key: LineInput::default(),
            model: LineInput::default(),
            model_index: 0,
            check: CheckState::Running,
            choice: None,
            error: None,
        }
    }

    /// The config file the choice will be saved to.
    pub fn config_path(&self) -> &Path {
        &self.config_path
    }

    /// Whether a check is under way (the app submitted `Op::CheckSetup` and awaits `SetupChecked`).
    pub fn is_checking(&self) -> bool {
        self.step == Step::Check && self.check == CheckState::Running
    }

    /// Handles one key press. Esc goes back a step; Ctrl+C quits.
    pub fn handle_key(&mut self, key: KeyEvent) -> SetupAction {
        if key.kind == KeyEventKind::Release {
            return SetupAction::None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('c') if ctrl => return SetupAction::Quit,
            KeyCode::Esc => {
                self.back();
                return SetupAction::None;
            }
            _ => {}
        }
        match self.step {
            Step::Provider => self.provider_key(key),
            Step::BaseUrl => self.base_url_key(key),
            Step::ProviderName => self.provider_name_key(key),
            Step::Key => self.key_key(key),
            Step::Model => self.model_key(key),
            Step::Check => self.check_key(key),
        }
    }

    /// Handles pasted text (bracketed paste): it goes into the current field, line breaks dropped.
    pub fn handle_paste(&mut self, text: &str) {
        let field = match self.step {
            Step::BaseUrl => &mut self.base_url,
            Step::ProviderName => &mut self.provider_name,
            Step::Key => &mut self.key,
            Step::Model => {
                self.model_index = 0;
                &mut self.model
            }
            Step::Provider | Step::Check => return,
        };
        field.insert_str(text);
        self.error = None;
    }

    /// Reports the outcome of the check, or the failure of the save that followed it (the runtime's
    /// `SetupChecked`); a result for a check the user left is ignored.
    pub fn on_check_result(&mut self, result: Result<(), String>) {
        self.check = match (&self.check, result) {
            (CheckState::Running, Ok(())) => CheckState::Passed,
            // A check failed, or the save of a passed choice did (the runtime says so the same way).
            (CheckState::Running | CheckState::Passed, Err(message)) => CheckState::Failed(message),
            // A result for a check the user left (Esc) changes nothing.
            _ => return,
        };
    }

    /// The provider currently highlighted (or confirmed).
    pub(crate) fn option(&self) -> ProviderOption {
        PROVIDERS[self.provider_index.min(PROVIDERS.len() - 1)]
    }

    /// Whether the chosen provider is an OpenAI-compatible server.
    pub(crate) fn is_compatible(&self) -> bool {
        self.option().provider.is_none()
    }

    /// The name the model id will use for the current provider.
    pub(crate) fn provider_id(&self) -> String {
        match self.option().provider {
            Some(name) => name.to_string(),
            None => self.provider_name.text().trim().to_ascii_lowercase(),
        }
    }

    /// A provider TunaCode knows, by name.
    fn known(&self, name: &str) -> Option<&ProviderInfo> {
        self.providers.iter().find(|p| p.name == name)
    }

    /// The base URL requests go to: the chosen one, else the known provider's.
    pub(crate) fn endpoint(&self, choice: &SetupChoice) -> String {
        choice
            .base_url
            .clone()
            .or_else(|| self.known(&choice.provider).map(|k| k.base_url.clone()))
            .unwrap_or_default()
    }

    /// The variable the key is saved under.
    pub(crate) fn key_env(&self) -> String {
        let known = self.option().provider.and_then(|name| self.known(name));
        match known {
            Some(k) => k.key_env.clone().unwrap_or_default(),
            None => format!(
                "{}_API_KEY",
                self.provider_id()
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() {
                        c.to_ascii_uppercase()
                    } else {
                        '_'
                    })
                    .collect::<String>()
            ),
        }
    }

    /// The steps of the current path and the 1-based position of the current one.
    pub(crate) fn progress(&self) -> (usize, usize) {
        let steps: &[Step] = if self.is_compatible() && self.step != Step::Provider {
            &[
                Step::Provider,
                Step::BaseUrl,
                Step::ProviderName,
                Step::Key,
                Step::Model,
                Step::Check,
            ]
        } else {
            &[Step::Provider, Step::Key, Step::Model, Step::Check]
        };
        let at = steps.iter().position(|s| *s == self.step).unwrap_or(0);
        (at + 1, steps.len())
    }

    /// The model list of a known provider, filtered by the typed text, with the typed text itself as
    /// the last entry when it names no listed model.
    pub(crate) fn model_items(&self) -> Vec<ModelItem> {
        let typed = self.model.text().trim().to_string();
        let lower = typed.to_lowercase();
        let terms: Vec<&str> = lower.split_whitespace().collect();
        let provider = self.option().provider.unwrap_or_default();
        let known = self
            .models
            .iter()
            .find(|(p, _)| *p == provider)
            .map(|(_, ids)| ids.as_slice())
            .unwrap_or_default();
        let mut items: Vec<ModelItem> = known
            .iter()
            .filter(|id| {
                let id = id.to_lowercase();
                terms.iter().all(|t| id.contains(t))
            })
            .map(|id| ModelItem::Known(id.clone()))
            .collect();
        if let Some(exact) = items.iter().position(|i| i.name() == typed) {
            let item = items.remove(exact);
            items.insert(0, item);
        } else if !typed.is_empty() {
            items.push(ModelItem::Typed(typed));
        }
        items
    }

    fn go(&mut self, step: Step) {
        self.step = step;
        self.error = None;
    }

    fn back(&mut self) {
        let previous = match self.step {
            Step::Provider => return,
            Step::BaseUrl => Step::Provider,
            Step::ProviderName => Step::BaseUrl,
            Step::Key if self.is_compatible() => Step::ProviderName,
            Step::Key => Step::Provider,
            Step::Model => Step::Key,
            Step::Check => {
                self.check = CheckState::Running;
                self.choice = None;
                Step::Model
            }
        };
        self.go(previous);
    }

    fn provider_key(&mut self, key: KeyEvent) -> SetupAction {
        let last = PROVIDERS.len() - 1;
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => {
                self.provider_index = self.provider_index.checked_sub(1).unwrap_or(last);
            }
            KeyCode::Down | KeyCode::Char('j') | KeyCode::Tab => {
                self.provider_index = if self.provider_index >= last {
                    0
                } else {
                    self.provider_index + 1
                };
            }
            KeyCode::Home => self.provider_index = 0,
            KeyCode::End => self.provider_index = last,
            KeyCode::Char(c @ '1'..='5') => {
                self.provider_index = usize::from(c as u8 - b'1');
                self.confirm_provider();
            }
            KeyCode::Enter => self.confirm_provider(),
            _ => {}
        }
        SetupAction::None
    }

    fn confirm_provider(&mut self) {
        if self.confirmed_provider != Some(self.provider_index) {
            self.key.clear();
            self.model.clear();
            self.model_index = 0;
            self.confirmed_provider = Some(self.provider_index);
        }
        self.go(if self.is_compatible() {
            Step::BaseUrl
        } else {
            Step::Key
        });
    }

    fn base_url_key(&mut self, key: KeyEvent) -> SetupAction {
        if key.code != KeyCode::Enter {
            self.edit(key);
            return SetupAction::None;
        }
        let url = self
            .base_url
            .text()
            .trim()
            .trim_end_matches('/')
            .to_string();
        if !(url.starts_with("http://") || url.starts_with("https://")) || url.contains(' ') {
            self.error = Some("Enter a URL starting with http:// or https://".into());
        } else if url.len() <= "https://".len() {
            self.error = Some("The URL needs a host, e.g. http://localhost:11434/v1".into());
        } else {
            self.base_url = LineInput::with_text(&url);
            self.go(Step::ProviderName);
        }
        SetupAction::None
    }

    fn provider_name_key(&mut self, key: KeyEvent) -> SetupAction {
        if key.code != KeyCode::Enter {
            self.edit(key);
            return SetupAction::None;
        }
        let name = self.provider_id();
        let valid = name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if name.is_empty() || !valid {
            self.error = Some("Use letters, digits, - or _ (e.g. local)".into());
        } else {
            self.provider_name = LineInput::with_text(&name);
            self.go(Step::Key);
        }
        SetupAction::None
    }

    fn key_key(&mut self, key: KeyEvent) -> SetupAction {
        if key.code != KeyCode::Enter {
            self.edit(key);
            return SetupAction::None;
        }
        if self.key.text().trim().is_empty() && !self.is_compatible() {
            self.key.clear();
            self.error = Some(format!(
                "{} needs a key: paste it here",
                self.option().label
            ));
        } else {
            self.go(Step::Model);
        }
        SetupAction::None
    }

    fn model_key(&mut self, key: KeyEvent) -> SetupAction {
        let compatible = self.is_compatible();
        match key.code {
            KeyCode::Up | KeyCode::PageUp | KeyCode::Down | KeyCode::PageDown if !compatible => {
                let last = self.model_items().len().saturating_sub(1);
                self.model_index = match key.code {
                    KeyCode::Up => self.model_index.saturating_sub(1),
                    KeyCode::PageUp => self.model_index.saturating_sub(PAGE),
                    KeyCode::Down => self.model_index + 1,
                    _ => self.model_index + PAGE,
                }
                .min(last);
                SetupAction::None
            }
            KeyCode::Enter => {
                let model = if compatible {
                    Some(self.model.text().trim().to_string()).filter(|m| !m.is_empty())
                } else {
                    let items = self.model_items();
                    items
                        .get(self.model_index.min(items.len().saturating_sub(1)))
                        .map(|item| item.name().to_string())
                };
                match model {
                    Some(model) => self.start_check(model),
                    None => {
                        self.error = Some("Type the model's name".into());
                        SetupAction::None
                    }
                }
            }
            _ => {
                if self.edit(key) {
                    self.model_index = 0;
                }
                SetupAction::None
            }
        }
    }

    fn start_check(&mut self, model: String) -> SetupAction {
        let api_key = Some(self.key.text().trim().to_string()).filter(|k| !k.is_empty());
        let choice = match self.option().provider {
            Some(provider) => SetupChoice {
                provider: provider.to_string(),
                model,
                base_url: None,
                wire_api: None,
                key_env: Some(self.key_env()),
                api_key,
            },
            None => SetupChoice {
                provider: self.provider_id(),
                model,
                base_url: Some(self.base_url.text()),
                wire_api: Some(COMPATIBLE_WIRE.to_string()),
                key_env: api_key.is_some().then(|| self.key_env()),
                api_key,
            },
        };
        self.choice = Some(choice.clone());
        self.check = CheckState::Running;
        self.go(Step::Check);
        SetupAction::Check(choice)
    }

    fn check_key(&mut self, key: KeyEvent) -> SetupAction {
        let Some(choice) = self.choice.clone() else {
            return SetupAction::None;
        };
        match (key.code, &self.check) {
            (KeyCode::Enter, CheckState::Passed) => SetupAction::Save(choice),
            (KeyCode::Enter, CheckState::Failed(_)) => {
                self.check = CheckState::Running;
                SetupAction::Check(choice)
            }
            // Offline (or a server that is down for now): saved unchecked; the first request says
            // what is wrong, if anything is.
            (KeyCode::Char('s' | 'S'), CheckState::Failed(_)) => {
                self.check = CheckState::Passed;
                SetupAction::Save(choice)
            }
            _ => SetupAction::None,
        }
    }

    /// Passes an editing key to the current field; `true` when its text changed.
    fn edit(&mut self, key: KeyEvent) -> bool {
        let field = match self.step {
            Step::BaseUrl => &mut self.base_url,
            Step::ProviderName => &mut self.provider_name,
            Step::Key => &mut self.key,
            Step::Model => &mut self.model,
            Step::Provider | Step::Check => return false,
        };
        let changed = field.handle_key(key);
        if changed {
            self.error = None;
        }
        changed
    }
}
