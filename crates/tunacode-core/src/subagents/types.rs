//! Agent types: what a sub-agent is told, which tools it gets, its model and its limits. Two are
//! built in (`explore`, `general`); more come from Markdown files with front matter: the user's
//! `~/.config/tunacode/agents/*.md`, and a repository's `.tunacode/agents/*.md` (or, as a fallback,
//! `.claude/agents/*.md`) once the user approved them (`agents_approval.rs`). A project type wins
//! over a user type of the same name; neither replaces a built-in one.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use tunacode_store::Cap;

use crate::markdown_files::{SearchDir, split_front_matter};
use crate::project_files::{Skipped, read_inside};

/// The read-only tools a type gets when it names none (and what `explore` gets).
pub const READ_ONLY_TOOLS: &[&str] = &["read_file", "grep", "glob", "list_dir", "bash"];

/// One agent type.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentType {
    /// Its name (`subagent_type`).
    pub name: String,
    /// What it is for (shown to the model in the `task` tool's description).
    pub description: String,
    /// The tools it may use (our names, or Claude Code's); `None`: every tool of the parent's but
    /// the ones no sub-agent gets (`general`).
    pub tools: Option<Vec<String>>,
    /// Its model (`provider:model`); `None`: the parent's.
    pub model: Option<String>,
    /// Its iteration limit; `None`: the parent's.
    pub max_iterations: Option<u32>,
    /// Its own spend cap; `None`: a share of what the parent may still spend.
    pub budget: Option<Cap>,
    /// Whether it starts from a copy of the parent's conversation (else from its prompt alone).
    pub fork: bool,
    /// What it is told (its system prompt's own part).
    pub prompt: String,
    /// Where it was defined (`None`: built in).
    pub path: Option<PathBuf>,
}

impl AgentType {
    /// Whether it may run `tool` (our name).
    pub fn allows(&self, tool: &str) -> bool {
        match &self.tools {
            None => true,
            Some(list) => list.iter().any(|entry| names_tool(entry, tool)),
        }
    }
}

/// Whether an allow-list entry names `tool`: our name, Claude Code's, or a `prefix*` pattern.
fn names_tool(entry: &str, tool: &str) -> bool {
    let entry = entry.trim();
    if let Some(prefix) = entry.strip_suffix('*') {
        return tool.starts_with(prefix);
    }
    entry == tool
        || crate::hooks::claude_tool_name(tool) == entry
        || (entry == "MultiEdit" && tool == "update_file")
}

/// The built-in types.
pub fn builtin_types() -> Vec<AgentType> {
    vec![
        AgentType {
            name: "explore".into(),
            description: "Read-only search of the code (file tools, read-only commands).".into(),
            tools: Some(READ_ONLY_TOOLS.iter().map(|t| t.to_string()).collect()),
            model: None,
            max_iterations: None,
            budget: None,
            fork: false,
            prompt: EXPLORE_PROMPT.into(),
            path: None,
        },
        AgentType {
            name: "general".into(),
            description: "Your tools; its edits, made in its own worktree, come back as a diff \
                to approve."
                .into(),
            tools: None,
            model: None,
            max_iterations: None,
            budget: None,
            fork: false,
            prompt: GENERAL_PROMPT.into(),
            path: None,
        },
    ]
}

const EXPLORE_PROMPT: &str = "You are an explore sub-agent. Search the codebase to answer the task \
    you were given: find the files and code that matter, read what you need, and run only \
    read-only commands. You cannot change anything. Your final answer is all the parent agent \
    sees: make it complete and concrete (paths, line numbers, names), and say what you could not \
    find.";

const GENERAL_PROMPT: &str = "You are a sub-agent working on one task for a parent agent. Do the \
    task you were given and nothing else. Your final answer is all the parent agent sees: say \
    what you found or changed (files, what changed and why) and anything left undone.";

/// A type's front matter (Claude Code's keys are read too: `maxTurns`).
#[derive(Debug, Default, Deserialize)]
struct Front {
    name: Option<String>,
    description: Option<String>,
    tools: Option<ToolList>,
    model: Option<String>,
    #[serde(alias = "maxTurns")]
    max_iterations: Option<u32>,
    budget: Option<BudgetField>,
    #[serde(default)]
    fork: bool,
}

/// `tools: read_file, grep` or a list.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ToolList {
    Line(String),
    List(Vec<String>),
}

/// `budget: 0.5` (USD) or `{usd, tokens}`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum BudgetField {
    Usd(f64),
    Cap {
        usd: Option<f64>,
        tokens: Option<u64>,
    },
}

/// A type from a file's text; `Err` says what is wrong with it.
pub fn parse_type(path: &Path, text: &str) -> Result<AgentType, String> {
    let (front, body) = split_front_matter::<Front>(text).map_err(|e| e.to_string())?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let name = front.name.unwrap_or_else(|| stem.to_string());
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_".contains(c))
    {
        return Err(format!(
            "`{name}` is not a usable name (letters, digits, - and _)"
        ));
    }
    let description = front
        .description
        .filter(|d| !d.trim().is_empty())
        .ok_or("it has no `description` (the model chooses a type by it)")?;
    let tools = match front.tools {
        None => Some(READ_ONLY_TOOLS.iter().map(|t| t.to_string()).collect()),
        Some(ToolList::Line(line)) => Some(split_tools(&line)),
        Some(ToolList::List(list)) => Some(list),
    };
    let budget = front.budget.map(|b| match b {
        BudgetField::Usd(usd) => Cap {
            usd: Some(usd),
            tokens: None,
        },
        BudgetField::Cap { usd, tokens } => Cap { usd, tokens },
    });
    Ok(AgentType {
        name,
        description: plain(description.trim()),
        tools,
        // Claude Code's `inherit` means the parent's model.
        model: front.model.filter(|m| m != "inherit"),
        max_iterations: front.max_iterations,
        budget,
        fork: front.fork,
        prompt: body.trim().to_string(),
        path: Some(path.to_path_buf()),
    })
}

/// `text` with every control character (an escape sequence's start, a line break) as a space: a
/// repository's or the model's words shown on the user's terminal.
pub(super) fn plain(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn split_tools(line: &str) -> Vec<String> {
    line.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// The types defined in `dirs` (earlier folders win a name), each file read as a regular file
/// inside its folder; a file that cannot be used is named in `problems`.
pub fn read_types(
    dirs: &[SearchDir],
    skipped: &mut Vec<Skipped>,
    problems: &mut Vec<String>,
) -> Vec<AgentType> {
    let mut errors = Vec::new();
    let found = crate::markdown_files::collect_by_name(dirs, skipped, |path, within, skipped| {
        if path.extension().and_then(|e| e.to_str()) != Some("md") {
            return None;
        }
        let text = match read_inside(path, within) {
            Ok(text) => text?,
            Err(skip) => {
                skipped.push(skip);
                return None;
            }
        };
        match parse_type(path, &text) {
            Ok(agent) => Some((agent.name.clone(), agent)),
            Err(e) => {
                errors.push(format!("{} is not used: {e}", path.display()));
                None
            }
        }
    });
    problems.extend(errors);
    found.into_values().collect()
}

/// The folders a project's types are read from under `cwd` (the working directory's, then the
/// repository root's; `.tunacode/agents` before `.claude/agents`).
pub fn project_dirs(cwd: &Path) -> Vec<SearchDir> {
    let mut dirs = crate::markdown_files::search_dirs(
        cwd,
        &[".tunacode/agents", ".claude/agents"],
        Path::new(""),
        "",
    );
    dirs.pop(); // the user's folder is read on its own
    dirs
}

/// The user's folder of types (`~/.config/tunacode/agents`).
pub fn user_dirs(user_dir: &Path) -> Vec<SearchDir> {
    vec![SearchDir {
        dir: user_dir.join("agents"),
        within: user_dir.to_path_buf(),
    }]
}

/// Every type in force: the built-in ones, then the project's (when approved) and the user's, a
/// project type winning over a user type of the same name and no file replacing a built-in one.
pub fn merge_types(project: Vec<AgentType>, user: Vec<AgentType>) -> Vec<AgentType> {
    let mut types = builtin_types();
    for agent in project.into_iter().chain(user) {
        if !types.iter().any(|t| t.name == agent.name) {
            types.push(agent);
        }
    }
    types
}

#[cfg(test)]
#[path = "types_tests.rs"]
mod tests;
