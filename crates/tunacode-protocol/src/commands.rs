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
    /// `/budget [scope amount]`: show the caps, or set one (`/budget session 5`, `/budget day 2M
    /// tokens`, `/budget request off`).
    Budget(Option<BudgetChange>),
    /// `/copy`.
    Copy,
    /// `/init`: ask the agent for an AGENTS.md.
    Init,
    /// `/compact [focus]`.
    Compact(Option<String>),
    /// `/mcp [approve]`.
    Mcp(Option<String>),
    /// `/checks [approve]`: the checks in force; approve the project's `.tunacode/checks.json`.
    Checks(Option<String>),
    /// `/hooks [approve]`: the hooks in force; approve the project's `.tunacode/hooks.json`.
    Hooks(Option<String>),
    /// `/agents [approve]`: the agent types; approve the project's `.tunacode/agents`.
    Agents(Option<String>),
    /// `/context` (`/skills`).
    Context,
    /// `/context window N`: sets the model's context window (saved to the config).
    ContextWindow(u64),
    /// `/undo [N]`.
    Undo(Option<usize>),
    /// `/rewind [N] [all|conversation|code]`: without a number, the picker of this session's
    /// prompts.
    Rewind(Option<(usize, crate::runtime::RewindMode)>),
    /// `/redo`.
    Redo,
    /// `/fork [N]`: a new session whose history ends after prompt N (default: the last).
    Fork(Option<usize>),
    /// `/export [path]`: the session to a file, in the format its extension names (`.json`,
    /// `.html`; Markdown otherwise).
    Export(Option<String>),
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
        "budget" => match arg.as_deref().map(budget_change).transpose() {
            Ok(change) => SlashCommand::Budget(change),
            Err(e) => return Some(Err(e)),
        },
        "copy" => SlashCommand::Copy,
        "init" => SlashCommand::Init,
        "compact" => SlashCommand::Compact(arg),
        "mcp" => SlashCommand::Mcp(arg),
        "checks" => SlashCommand::Checks(arg),
        "hooks" => SlashCommand::Hooks(arg),
        "agents" => SlashCommand::Agents(arg),
        "context" => match context_window(arg.as_deref()) {
            Ok(None) => SlashCommand::Context,
            Ok(Some(tokens)) => SlashCommand::ContextWindow(tokens),
            Err(e) => return Some(Err(e)),
        },
        "skills" => SlashCommand::Context,
        "undo" => match undo_count(arg.as_deref()) {
            Ok(to) => SlashCommand::Undo(to),
            Err(e) => return Some(Err(e)),
        },
        "rewind" => match rewind_target(arg.as_deref()) {
            Ok(target) => SlashCommand::Rewind(target),
            Err(e) => return Some(Err(e)),
        },
        "redo" => SlashCommand::Redo,
        "fork" => match arg.as_deref().map(str::parse::<usize>) {
            None => SlashCommand::Fork(None),
            Some(Ok(n)) if n > 0 => SlashCommand::Fork(Some(n)),
            Some(_) => return Some(Err("/fork takes a prompt's number, e.g. /fork 2".into())),
        },
        "export" => SlashCommand::Export(arg),
        "permissions" => SlashCommand::Permissions,
        "sandbox" => SlashCommand::Sandbox(arg),
        "exit" | "quit" | "q" => SlashCommand::Exit,
        other => SlashCommand::Other(other.to_string()),
    }))
}

/// A cap `/budget` sets: `usd` and `tokens` both `None` removes it.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetChange {
    /// What the cap covers.
    pub scope: crate::runtime::BudgetScope,
    /// The most USD.
    pub usd: Option<f64>,
    /// The most tokens.
    pub tokens: Option<u64>,
}

impl Eq for BudgetChange {}

/// `/budget`'s argument: `SCOPE USD`, `SCOPE N tokens` (`2M`, `500k`), or `SCOPE off`.
fn budget_change(arg: &str) -> Result<BudgetChange, String> {
    const USAGE: &str = "/budget takes a scope (request, session, day, run) and an amount: \
        `/budget session 5` (USD), `/budget day 2M tokens`, or `/budget request off`";
    let words: Vec<&str> = arg.split_whitespace().collect();
    let scope = words
        .first()
        .and_then(|w| crate::runtime::BudgetScope::parse(w))
        .ok_or_else(|| USAGE.to_string())?;
    let change = |usd, tokens| Ok(BudgetChange { scope, usd, tokens });
    match words[1..] {
        ["off" | "none"] => change(None, None),
        [amount, "tokens" | "token"] => change(None, Some(token_count(amount).ok_or(USAGE)?)),
        [amount] => {
            let usd: f64 = amount
                .trim_start_matches('$')
                .parse()
                .map_err(|_| USAGE.to_string())?;
            if !usd.is_finite() || usd <= 0.0 {
                return Err(USAGE.into());
            }
            change(Some(usd), None)
        }
        _ => Err(USAGE.into()),
    }
}

/// `500k`, `2M`, `150000`.
fn token_count(text: &str) -> Option<u64> {
    let lower = text.to_ascii_lowercase();
    let (digits, scale) = match lower.strip_suffix('k') {
        Some(d) => (d, 1_000.0),
        None => match lower.strip_suffix('m') {
            Some(d) => (d, 1_000_000.0),
            None => (lower.as_str(), 1.0),
        },
    };
    let n: f64 = digits.parse().ok()?;
    (n.is_finite() && n > 0.0).then(|| (n * scale).round() as u64)
}

/// `/context`'s argument: nothing, or `window N` (tokens, at least 1,000).
fn context_window(arg: Option<&str>) -> Result<Option<u64>, String> {
    const USAGE: &str =
        "/context window takes the model's window in tokens, e.g. /context window 128000";
    let Some(arg) = arg else {
        return Ok(None);
    };
    let mut words = arg.split_whitespace();
    match (
        words.next(),
        words
            .next()
            .map(|n| n.replace(['_', ','], "").parse::<u64>()),
        words.next(),
    ) {
        (Some("window"), Some(Ok(n)), None) if n >= 1000 => Ok(Some(n)),
        _ => Err(USAGE.into()),
    }
}

/// `/undo`'s argument: how many prompts back, a positive count.
fn undo_count(arg: Option<&str>) -> Result<Option<usize>, String> {
    match arg.map(str::parse::<usize>) {
        None => Ok(None),
        Some(Ok(n)) if n > 0 => Ok(Some(n)),
        Some(_) => Err("/undo takes how many prompts back, e.g. /undo 2".into()),
    }
}

/// `/rewind`'s arguments: a prompt's number and, optionally, what goes back.
fn rewind_target(arg: Option<&str>) -> Result<Option<(usize, crate::runtime::RewindMode)>, String> {
    const USAGE: &str = "/rewind takes a prompt's number and what goes back, e.g. /rewind 2 or /rewind 2 code \
         (all, conversation or code); /rewind alone lists the prompts";
    let Some(arg) = arg else {
        return Ok(None);
    };
    let words: Vec<&str> = arg.split_whitespace().collect();
    let to = match words.first().map(|w| w.parse::<usize>()) {
        Some(Ok(n)) if n > 0 => n,
        _ => return Err(USAGE.into()),
    };
    let mode = match words.get(1) {
        None => crate::runtime::RewindMode::All,
        Some(word) => crate::runtime::RewindMode::parse(word).ok_or(USAGE)?,
    };
    if words.len() > 2 {
        return Err(USAGE.into());
    }
    Ok(Some((to, mode)))
}

/// The format `/export`'s path names by its extension (Markdown when it names none).
pub fn export_format_of(path: Option<&str>) -> crate::runtime::ExportFormat {
    match path
        .and_then(|p| std::path::Path::new(p).extension())
        .and_then(|e| e.to_str())
    {
        Some("json") => crate::runtime::ExportFormat::Json,
        Some("html" | "htm") => crate::runtime::ExportFormat::Html,
        _ => crate::runtime::ExportFormat::Md,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewind_fork_and_export_parse_their_arguments() {
        use crate::runtime::{ExportFormat, RewindMode};
        assert_eq!(parse_slash("/rewind"), Some(Ok(SlashCommand::Rewind(None))));
        assert_eq!(
            parse_slash("/rewind 2 code"),
            Some(Ok(SlashCommand::Rewind(Some((2, RewindMode::Code)))))
        );
        assert_eq!(
            parse_slash("/rewind 3"),
            Some(Ok(SlashCommand::Rewind(Some((3, RewindMode::All)))))
        );
        for bad in [
            "/rewind 0",
            "/rewind two",
            "/rewind 2 files",
            "/rewind 2 code x",
        ] {
            assert!(parse_slash(bad).unwrap().is_err(), "{bad}");
        }
        assert_eq!(
            parse_slash("/fork 4"),
            Some(Ok(SlashCommand::Fork(Some(4))))
        );
        assert!(parse_slash("/fork x").unwrap().is_err());
        assert_eq!(
            export_format_of(Some("a/t.JSON".to_lowercase().as_str())),
            ExportFormat::Json
        );
        assert_eq!(export_format_of(Some("t.html")), ExportFormat::Html);
        assert_eq!(export_format_of(None), ExportFormat::Md);
    }

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
            parse_slash("/context window 128,000"),
            Some(Ok(SlashCommand::ContextWindow(128_000)))
        );
        assert!(matches!(parse_slash("/context window 12"), Some(Err(_))));
        assert!(matches!(parse_slash("/context size 4"), Some(Err(_))));
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

    #[test]
    fn budget_takes_a_scope_and_usd_tokens_or_off() {
        use crate::runtime::BudgetScope;
        let change = |scope, usd, tokens| {
            Some(Ok(SlashCommand::Budget(Some(BudgetChange {
                scope,
                usd,
                tokens,
            }))))
        };
        assert_eq!(parse_slash("/budget"), Some(Ok(SlashCommand::Budget(None))));
        assert_eq!(
            parse_slash("/budget session 5"),
            change(BudgetScope::Session, Some(5.0), None)
        );
        assert_eq!(
            parse_slash("/budget day $2.50"),
            change(BudgetScope::Day, Some(2.5), None)
        );
        assert_eq!(
            parse_slash("/budget request 500k tokens"),
            change(BudgetScope::Request, None, Some(500_000))
        );
        assert_eq!(
            parse_slash("/budget run off"),
            change(BudgetScope::Run, None, None)
        );
        for bad in [
            "/budget week 5",
            "/budget session -1",
            "/budget session lots",
        ] {
            assert!(matches!(parse_slash(bad), Some(Err(_))), "{bad}");
        }
    }
}
