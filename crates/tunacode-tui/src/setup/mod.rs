//! First-run setup: a screen that asks for a provider, (for an OpenAI-compatible server) its address and
//! a name, a key (never echoed), and a model. [`SetupScreen`] is a pure state machine plus rendering;
//! the runtime decides the rest: the app submits `Op::CheckSetup` on [`SetupAction::Check`] (one cheap
//! real request with the settings the run will use) and reports its `SetupChecked` with
//! [`SetupScreen::on_check_result`], and submits `Op::SaveSetup` on [`SetupAction::Save`] (the runtime
//! writes the config and opens the session). [`KeyPrompt`] is the small masked dialog for `/model`
//! switching to a provider without a key.

mod action;
mod draw;
mod input;
mod key_prompt;
mod screen;
mod steps;
mod view;
pub(crate) mod wrap;

#[cfg(test)]
mod flow_tests;
#[cfg(test)]
mod snapshot_tests;

pub use action::SetupAction;
pub use key_prompt::{KeyPrompt, KeyPromptAction};
pub use screen::SetupScreen;
pub use tunacode_protocol::runtime::SetupChoice;
