//! `/` command completion: prefix matches first (in the app's order), then fuzzy matches.

use std::borrow::Cow;

use nucleo_matcher::pattern::{AtomKind, CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

/// A slash command as the app defines it (built in, or a custom command from a file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandInfo {
    /// The name without the slash (`model`).
    pub name: Cow<'static, str>,
    /// The argument synopsis (`[name]`), empty if none.
    pub args: Cow<'static, str>,
    /// One line saying what it does.
    pub description: Cow<'static, str>,
}

impl CommandInfo {
    /// A built-in command (for the const table).
    pub const fn builtin(
        name: &'static str,
        args: &'static str,
        description: &'static str,
    ) -> Self {
        CommandInfo {
            name: Cow::Borrowed(name),
            args: Cow::Borrowed(args),
            description: Cow::Borrowed(description),
        }
    }
}

/// One command matching a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandMatch {
    /// The command.
    pub command: CommandInfo,
    /// Whether the name starts with the query (prefix matches come first).
    pub prefix: bool,
    /// The fuzzy score (higher is better; 0 for an empty query).
    pub score: u32,
    /// Positions (in chars) of the matched characters in `command.name`, ascending.
    pub indices: Vec<u32>,
}

/// The commands matching `query` (with or without the leading `/`): an exact name first, then the other
/// names starting with the query in list order, then fuzzy matches by score (ties in list order). An
/// empty query lists every command in list order. Case-insensitive.
pub fn complete_commands(commands: &[CommandInfo], query: &str) -> Vec<CommandMatch> {
    let query = query.strip_prefix('/').unwrap_or(query).trim();
    if query.is_empty() {
        return commands
            .iter()
            .map(|command| CommandMatch {
                command: command.clone(),
                prefix: true,
                score: 0,
                indices: Vec::new(),
            })
            .collect();
    }
    let lower = query.to_lowercase();
    let mut fuzzy = FuzzyNames::new(query);
    // (exact, position) with `prefix` decide the order of prefix matches; fuzzy ones go by score.
    let mut found: Vec<(bool, usize, CommandMatch)> = Vec::new();
    for (position, command) in commands.iter().enumerate() {
        let name = command.name.to_lowercase();
        if name.starts_with(&lower) {
            found.push((name == lower, position, prefix_match(command, query)));
        } else if let Some(m) = fuzzy.find(command) {
            found.push((false, position, m));
        }
    }
    found.sort_by(|(exact_a, pos_a, a), (exact_b, pos_b, b)| {
        b.prefix
            .cmp(&a.prefix)
            .then_with(|| exact_b.cmp(exact_a))
            .then_with(|| b.score.cmp(&a.score))
            .then_with(|| pos_a.cmp(pos_b))
    });
    found.into_iter().map(|(_, _, m)| m).collect()
}

/// `command`, whose name starts with `query`: its first characters are the matched ones.
fn prefix_match(command: &CommandInfo, query: &str) -> CommandMatch {
    let count = query.chars().count();
    CommandMatch {
        command: command.clone(),
        prefix: true,
        score: 0,
        indices: (0..count).filter_map(|i| u32::try_from(i).ok()).collect(),
    }
}

/// Fuzzy matching of command names against one query.
struct FuzzyNames {
    pattern: Pattern,
    matcher: Matcher,
    buf: Vec<char>,
}

impl FuzzyNames {
    fn new(query: &str) -> Self {
        FuzzyNames {
            pattern: Pattern::new(
                query,
                CaseMatching::Ignore,
                Normalization::Smart,
                AtomKind::Fuzzy,
            ),
            matcher: Matcher::new(Config::DEFAULT),
            buf: Vec::new(),
        }
    }

    /// `command` as a fuzzy match with its score and matched positions, if its name matches.
    fn find(&mut self, command: &CommandInfo) -> Option<CommandMatch> {
        let mut indices = Vec::new();
        let haystack = Utf32Str::new(&command.name, &mut self.buf);
        let score = self
            .pattern
            .indices(haystack, &mut self.matcher, &mut indices)?;
        indices.sort_unstable();
        indices.dedup();
        Some(CommandMatch {
            command: command.clone(),
            prefix: false,
            score,
            indices,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    const fn cmd(name: &'static str, args: &'static str, description: &'static str) -> CommandInfo {
        CommandInfo::builtin(name, args, description)
    }

    const SAMPLE: [CommandInfo; 11] = [
        cmd("help", "", "Show the commands"),
        cmd("clear", "", "Clear the transcript"),
        cmd("model", "[name]", "Show or switch the model"),
        cmd("resume", "[id]", "Resume a session"),
        cmd("thoughts", "", "Toggle reasoning display"),
        cmd("theme", "[name]", "Switch the theme"),
        cmd("yolo", "", "Approve every tool call"),
        cmd("cost", "", "Show the session's cost"),
        cmd("init", "", "Write AGENTS.md for this project"),
        cmd("exit", "", "Quit"),
        cmd("plan", "", "Toggle plan mode"),
    ];

    fn names(matches: &[CommandMatch]) -> Vec<&str> {
        matches.iter().map(|m| m.command.name.as_ref()).collect()
    }

    #[test]
    fn empty_query_lists_all_in_order() {
        assert_eq!(names(&complete_commands(&SAMPLE, "")).len(), 11);
        assert_eq!(
            names(&complete_commands(&SAMPLE, "/"))[..3],
            ["help", "clear", "model"]
        );
    }

    #[test]
    fn prefix_matches_come_first_in_list_order() {
        let got = complete_commands(&SAMPLE, "th");
        assert_eq!(names(&got)[..2], ["thoughts", "theme"]);
        assert!(got[0].prefix && got[1].prefix);
        assert_eq!(got[0].indices, [0, 1]);
        assert!(got[2..].iter().all(|m| !m.prefix));
    }

    #[test]
    fn exact_name_wins_and_case_is_ignored() {
        let list = [cmd("planner", "", ""), cmd("plan", "", "")];
        assert_eq!(
            names(&complete_commands(&list, "/Plan")),
            ["plan", "planner"]
        );
    }

    #[test]
    fn fuzzy_matches_follow_prefix_matches() {
        let got = complete_commands(&SAMPLE, "/e");
        assert_eq!(names(&got)[0], "exit");
        assert!(names(&got).contains(&"help"));
        let fuzzy = complete_commands(&SAMPLE, "mdl");
        assert_eq!(names(&fuzzy), ["model"]);
        assert_eq!(fuzzy[0].indices, [0, 2, 4]);
        assert!(!fuzzy[0].prefix);
        assert_eq!(complete_commands(&SAMPLE, "xyz"), []);
    }
}
