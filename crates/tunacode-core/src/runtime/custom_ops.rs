//! Custom slash commands in the runtime: a message `/name args` for one of the project's or user's
//! commands is sent as the command's expanded text, with the command's own model when it names one
//! (for that request only); the front ends learn the commands when the runtime opens.

use std::sync::Arc;

use tunacode_protocol::{SlashCommand, parse_slash};

use crate::agent::Agent;
use crate::custom_commands::match_command;
use crate::runtime::blocking::off_thread;
use crate::runtime::config_ops::resolve_model;
use crate::runtime::events::{CommandView, OpFailure, RuntimeEvent};
use crate::settings::RuntimeSettings;

/// The event telling the front ends which custom commands there are.
pub(super) fn announce_commands(settings: &RuntimeSettings) -> RuntimeEvent {
    let commands = settings
        .commands
        .iter()
        .map(|c| CommandView {
            name: c.name.clone(),
            description: c.description.clone(),
        })
        .collect();
    RuntimeEvent::CustomCommands(commands)
}

/// The engine and the message for a typed line: the session's `engine` and the line itself; for
/// `/init` the prompt for AGENTS.md and the checks the build files suggest; for a custom command its
/// expansion (on its model, when it names one that can be used).
pub(super) async fn command_request(
    settings: &RuntimeSettings,
    engine: &Arc<Agent>,
    text: &str,
) -> Result<(Arc<Agent>, String), OpFailure> {
    if let Some(Ok(SlashCommand::Init)) = parse_slash(text) {
        let cwd = settings.cwd.clone();
        let proposed = off_thread("reading the build files", move || {
            Ok(crate::checks::propose_checks(&cwd))
        })
        .await?;
        return Ok((engine.clone(), crate::checks::init_prompt(&proposed)));
    }
    let Some((command, args)) = match_command(&settings.commands, text) else {
        return Ok((engine.clone(), text.to_string()));
    };
    let message = command.expand(&args);
    let Some(model) = command.model.clone() else {
        return Ok((engine.clone(), message));
    };
    let resolved = resolve_model(settings, model).await?;
    Ok((
        Arc::new(engine.with_model(resolved.options, resolved.provider)),
        message,
    ))
}
