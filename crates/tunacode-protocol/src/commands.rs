//! Slash commands: the one parser every front end uses, so `/undo 2` means the same in the terminal
//! and in an editor. Commands that are not built in (`/name args`) are custom commands: front ends send
//! them as typed, and the runtime expands them.

/// A built-in slash command, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlashCommand {
    /// `/help` (`/?`).
    Help,
    /// `/clear` (`/new`): a new session.
    Clear,
    /// `/model [provider:model]` (`/models`).
    Model(Option<String>),
    /// `/resume` (`/sessions`).
    Resume,
    /// `/thoughts`: show or hide reasoning.
    Thoughts,
    /// `/theme [name]`.
    Theme(Option<String>),
    /// `/yolo`.
    Yolo,
    /// `/plan`.
    Plan,
    /// `/cost` (`/usage`).
    Cost,
    /// `/copy`.
    Copy,
    /// `/init`: ask the agent for an AGENTS.md.
    Init,
    /// `/compact [focus]`.
    Compact(Option<String>),
    /// `/mcp [approve]`.
    Mcp(Option<String>),
    /// `/context` (`/skills`).
    Context,
    /// `/undo [N]`.
    Undo(Option<usize>),
    /// `/permissions`.
    Permissions,
    /// `/sandbox [mode]`.
    Sandbox(Option<String>),
    /// `/exit` (`/quit`, `/q`).
    Exit,
    /// Not built in: a custom command's name (or an unknown one).
    Other(String),
}

/// Parses a slash command: `None` when `text` is not one; an error for a built-in command's bad
/// argument (said to the user as it is).
pub fn parse_slash(text: &str) -> Option<Result<SlashCommand, String>> {
    let body = text.trim().strip_prefix('/')?;
    let (name, arg) = match body.split_once(char::is_whitespace) {
        Some((n, a)) => (n, Some(a.trim().to_string()).filter(|a| !a.is_empty())),
        None => (body, None),
    };
    Some(Ok(match name {
        "help" | "?" => SlashCommand::Help,
        "clear" | "new" => SlashCommand::Clear,
        "model" | "models" => SlashCommand::Model(arg),
        "resume" | "sessions" => SlashCommand::Resume,
        "thoughts" => SlashCommand::Thoughts,
        "theme" => SlashCommand::Theme(arg),
        "yolo" => SlashCommand::Yolo,
        "plan" => SlashCommand::Plan,
        "cost" | "usage" => SlashCommand::Cost,
        "copy" => SlashCommand::Copy,
        "init" => SlashCommand::Init,
        "compact" => SlashCommand::Compact(arg),
        "mcp" => SlashCommand::Mcp(arg),
        "context" | "skills" => SlashCommand::Context,
        "undo" => match undo_count(arg.as_deref()) {
            Ok(to) => SlashCommand::Undo(to),
            Err(e) => return Some(Err(e)),
        },
        "permissions" => SlashCommand::Permissions,
        "sandbox" => SlashCommand::Sandbox(arg),
        "exit" | "quit" | "q" => SlashCommand::Exit,
        other => SlashCommand::Other(other.to_string()),
    }))
}

/// `/undo`'s argument: how many requests back, a positive count.
fn undo_count(arg: Option<&str>) -> Result<Option<usize>, String> {
    match arg.map(str::parse::<usize>) {
        None => Ok(None),
        Some(Ok(n)) if n > 0 => Ok(Some(n)),
        Some(_) => Err("/undo takes how many requests back, e.g. /undo 2".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse_with_their_arguments_and_aliases() {
        assert_eq!(
            parse_slash("/model openai:gpt-5"),
            Some(Ok(SlashCommand::Model(Some("openai:gpt-5".into()))))
        );
        assert_eq!(parse_slash("/model"), Some(Ok(SlashCommand::Model(None))));
        assert_eq!(
            parse_slash("/theme  light "),
            Some(Ok(SlashCommand::Theme(Some("light".into()))))
        );
        assert_eq!(parse_slash("/quit"), Some(Ok(SlashCommand::Exit)));
        assert_eq!(parse_slash("/skills"), Some(Ok(SlashCommand::Context)));
        assert_eq!(
            parse_slash("/compact keep the API notes"),
            Some(Ok(SlashCommand::Compact(Some("keep the API notes".into()))))
        );
        assert_eq!(
            parse_slash("/frobnicate a b"),
            Some(Ok(SlashCommand::Other("frobnicate".into())))
        );
        assert_eq!(parse_slash("no slash"), None);
    }

    #[test]
    fn undo_takes_a_positive_count() {
        assert_eq!(parse_slash("/undo"), Some(Ok(SlashCommand::Undo(None))));
        assert_eq!(
            parse_slash("/undo 2"),
            Some(Ok(SlashCommand::Undo(Some(2))))
        );
        for bad in ["/undo 0", "/undo two", "/undo -1"] {
            let err = parse_slash(bad).unwrap().unwrap_err();
            assert!(err.contains("/undo 2"), "{bad}: {err}");
        }
    }
}
