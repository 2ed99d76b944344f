//! The `/` command table: names, arguments and descriptions, which `/help` and completion read. What a
//! typed command means is parsed by the protocol crate's one parser (`parse_slash`), the same the
//! editor front end uses.

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
    CommandInfo::builtin(
        "budget",
        "[scope amount]",
        "Spend caps and what was spent (set: session 5, day 2M tokens, request off)",
    ),
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
    CommandInfo::builtin(
        "checks",
        "[approve]",
        "The checks that prove a change (approve: use this project's .tunacode/checks.json)",
    ),
    CommandInfo::builtin(
        "hooks",
        "[approve]",
        "The lifecycle hooks in force (approve: use this project's .tunacode/hooks.json)",
    ),
    CommandInfo::builtin(
        "agents",
        "[approve]",
        "The sub-agent types (approve: use this project's .tunacode/agents)",
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
        "Put back the files the last prompt (or the last N) changed",
    ),
    CommandInfo::builtin(
        "rewind",
        "[N] [all|conversation|code]",
        "Go back to before a prompt (no N: pick one; Esc Esc too)",
    ),
    CommandInfo::builtin("redo", "", "Return to where you were before the rewind"),
    CommandInfo::builtin(
        "fork",
        "[N]",
        "Continue in a new session cut after prompt N",
    ),
    CommandInfo::builtin(
        "export",
        "[path]",
        "Write the session to a file (.md, .json or .html)",
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

/// The widest usage (`/name args`) the descriptions of `/help` are aligned after.
const MAX_USAGE_COLUMN: usize = 30;

/// The `/help` text, with the custom commands after the built-in ones.
pub fn help_text(custom: &[CommandInfo]) -> String {
    let mut text = String::from("Commands:\n");
    let usage = |c: &CommandInfo| {
        if c.args.is_empty() {
            format!("/{}", c.name)
        } else {
            format!("/{} {}", c.name, c.args)
        }
    };
    // Descriptions start in one column; a usage too long for it goes on a line of its own.
    let column = COMMANDS
        .iter()
        .chain(custom)
        .map(|c| usage(c).chars().count())
        .filter(|&n| n <= MAX_USAGE_COLUMN)
        .max()
        .unwrap_or(0);
    let line = |c: &CommandInfo| {
        let name = usage(c);
        if name.chars().count() > column {
            format!("  {name}\n  {:column$} {}\n", "", c.description)
        } else {
            format!("  {name:<column$} {}\n", c.description)
        }
    };
    COMMANDS.iter().for_each(|c| text.push_str(&line(c)));
    if !custom.is_empty() {
        text.push_str("\nCustom commands (.tunacode/commands, ~/.config/tunacode/commands):\n");
        custom.iter().for_each(|c| text.push_str(&line(c)));
    }
    text.push_str(
        "\nKeys:\n  Enter send · Shift+Enter or Alt+Enter new line · Up/Down history · @ mention a file · ! run a \
         shell command\n  Esc stop the agent (queued messages come back to the input) · Esc Esc rewind · \
         Ctrl+U delete to line start · Ctrl+C clear input (twice: quit) · PgUp/PgDn, mouse wheel, \
         Home/End scroll · Ctrl+O expand tool output",
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_lists_every_command() {
        let help = help_text(&[]);
        for c in COMMANDS {
            assert!(help.contains(&format!("/{}", c.name)), "{}", c.name);
        }
    }

    #[test]
    fn every_description_starts_in_the_same_column() {
        let help = help_text(&[CommandInfo::builtin("a-custom-command", "[x]", "Custom")]);
        let columns: std::collections::BTreeSet<usize> = COMMANDS
            .iter()
            .chain([&CommandInfo::builtin("a-custom-command", "[x]", "Custom")])
            .map(|c| {
                let line = help
                    .lines()
                    .find(|l| l.ends_with(&*c.description))
                    .unwrap_or_else(|| panic!("{} has no line: {help}", c.name));
                line.len() - c.description.len()
            })
            .collect();
        assert_eq!(
            columns.len(),
            1,
            "descriptions start at {columns:?}:\n{help}"
        );
    }
}
