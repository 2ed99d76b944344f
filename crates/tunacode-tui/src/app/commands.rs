//! The `/` command registry: one table of names, arguments and descriptions (which `/help` and
//! completion read) and the parse of a typed command. Later commands (compaction, MCP, skills) are
//! added to the same table.

use crate::complete::CommandInfo;

/// Every command.
pub const COMMANDS: &[CommandInfo] = &[
    CommandInfo::builtin("help", "", "Show commands and keys"),
    CommandInfo::builtin("clear", "", "Start a new session"),
    CommandInfo::builtin(
        "model",
        "[provider:model]",
        "Switch model (keeps the history)",
    ),
    CommandInfo::builtin("resume", "", "Resume a saved session of this project"),
    CommandInfo::builtin("thoughts", "", "Show or hide the model's reasoning"),
    CommandInfo::builtin("theme", "[dark|light|plain]", "Change the color theme"),
    CommandInfo::builtin("yolo", "", "Toggle approval of writes and commands"),
    CommandInfo::builtin(
        "plan",
        "",
        "Toggle plan mode (read-only until a plan is approved)",
    ),
    CommandInfo::builtin("cost", "", "Usage and cost so far, by model"),
    CommandInfo::builtin("copy", "", "Copy the last answer to the clipboard"),
    CommandInfo::builtin(
        "compact",
        "[focus]",
        "Summarize the older history now (optionally: what to keep)",
    ),
    CommandInfo::builtin(
        "init",
        "",
        "Ask the agent to write an AGENTS.md for this repository",
    ),
    CommandInfo::builtin(
        "mcp",
        "[approve]",
        "MCP servers, their state and tools (approve: start this project's .mcp.json)",
    ),
    CommandInfo::builtin("skills", "", "The skills the model can load"),
    CommandInfo::builtin(
        "context",
        "",
        "The instruction files (and skills) the model reads, with their cost",
    ),
    CommandInfo::builtin(
        "undo",
        "[N]",
        "Put back the files the last request (or the last N) changed",
    ),
    CommandInfo::builtin(
        "permissions",
        "",
        "What the agent may do: the sandbox, hidden secrets, permission rules",
    ),
    CommandInfo::builtin(
        "sandbox",
        "[workspace-write|read-only|off]",
        "Where commands run (this session)",
    ),
    CommandInfo::builtin("exit", "", "Quit (the session is saved)"),
];

/// A parsed command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `/help`.
    Help,
    /// `/clear`.
    Clear,
    /// `/model [id]`.
    Model(Option<String>),
    /// `/resume`.
    Resume,
    /// `/thoughts`.
    Thoughts,
    /// `/theme [name]`.
    Theme(Option<String>),
    /// `/yolo`.
    Yolo,
    /// `/plan`.
    Plan,
    /// `/cost`.
    Cost,
    /// `/copy`.
    Copy,
    /// `/init`.
    Init,
    /// `/compact [focus]`.
    Compact(Option<String>),
    /// `/mcp [approve]`.
    Mcp(Option<String>),
    /// `/context`.
    Context,
    /// `/undo [N]`.
    Undo(Option<String>),
    /// `/permissions`.
    Permissions,
    /// `/sandbox [mode]`.
    Sandbox(Option<String>),
    /// `/exit` (also `/quit`).
    Exit,
    /// Anything else.
    Unknown(String),
}

/// Parses `/name args`.
pub fn parse_command(input: &str) -> Command {
    let body = input.trim().trim_start_matches('/');
    let (name, arg) = match body.split_once(char::is_whitespace) {
        Some((n, a)) => (n, Some(a.trim().to_string()).filter(|a| !a.is_empty())),
        None => (body, None),
    };
    match name {
        "help" | "?" => Command::Help,
        "clear" | "new" => Command::Clear,
        "model" | "models" => Command::Model(arg),
        "resume" | "sessions" => Command::Resume,
        "thoughts" => Command::Thoughts,
        "theme" => Command::Theme(arg),
        "yolo" => Command::Yolo,
        "plan" => Command::Plan,
        "cost" | "usage" => Command::Cost,
        "copy" => Command::Copy,
        "init" => Command::Init,
        "compact" => Command::Compact(arg),
        "mcp" => Command::Mcp(arg),
        "permissions" => Command::Permissions,
        "undo" => Command::Undo(arg),
        "context" | "skills" => Command::Context,
        "sandbox" => Command::Sandbox(arg),
        "exit" | "quit" | "q" => Command::Exit,
        other => Command::Unknown(other.to_string()),
    }
}

/// The `/help` text, with the custom commands after the built-in ones.
pub fn help_text(custom: &[CommandInfo]) -> String {
    let mut text = String::from("Commands:\n");
    let line = |c: &CommandInfo| {
        let name = if c.args.is_empty() {
            format!("/{}", c.name)
        } else {
            format!("/{} {}", c.name, c.args)
        };
        format!("  {name:<28} {}\n", c.description)
    };
    COMMANDS.iter().for_each(|c| text.push_str(&line(c)));
    if !custom.is_empty() {
        text.push_str("\nCustom commands (.tunacode/commands, ~/.config/tunacode/commands):\n");
        custom.iter().for_each(|c| text.push_str(&line(c)));
    }
    text.push_str(
        "\nKeys:\n  Enter send · Shift+Enter or Alt+Enter new line · Up/Down history · @ mention a file · ! run a \
         shell command\n  Esc stop the agent · Ctrl+C clear input (twice: quit) · PgUp/PgDn, mouse wheel, \
         Home/End scroll · Ctrl+O expand tool output",
    );
    text
}

/// The prompt `/init` sends.
pub const INIT_PROMPT: &str = "Write an AGENTS.md file at the root of this repository for AI coding agents: \
    explore the repository first (build system, layout, test commands, conventions), then write concise \
    sections: project overview, how to build and run, how to test, code style and conventions, and anything \
    an agent must know before changing code. If AGENTS.md exists, improve it instead of overwriting it.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_commands_with_arguments_and_aliases() {
        assert_eq!(
            parse_command("/model openai:gpt-5"),
            Command::Model(Some("openai:gpt-5".into()))
        );
        assert_eq!(parse_command("/model"), Command::Model(None));
        assert_eq!(
            parse_command("/theme  light "),
            Command::Theme(Some("light".into()))
        );
        assert_eq!(parse_command("/quit"), Command::Exit);
        assert_eq!(
            parse_command("/frobnicate"),
            Command::Unknown("frobnicate".into())
        );
        let help = help_text(&[]);
        for c in COMMANDS {
            assert!(help.contains(&format!("/{}", c.name)), "{}", c.name);
        }
    }
}
