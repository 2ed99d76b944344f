//! A repository's own TunaCode files that run commands (`.tunacode/checks.json`,
//! `.tunacode/hooks.json`): used only once the user approved their content, like `.mcp.json`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Which project file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProjectFileKind {
    /// `.tunacode/checks.json`: the project's checks.
    Checks,
    /// `.tunacode/hooks.json`: the project's lifecycle hooks.
    Hooks,
    /// `.tunacode/agents/` (or `.claude/agents/`): the project's agent types.
    Agents,
}

impl ProjectFileKind {
    /// Its path under the working directory.
    pub fn relative_path(self) -> &'static str {
        match self {
            ProjectFileKind::Checks => ".tunacode/checks.json",
            ProjectFileKind::Hooks => ".tunacode/hooks.json",
            ProjectFileKind::Agents => ".tunacode/agents",
        }
    }

    /// The slash command that lists and approves it.
    pub fn command(self) -> &'static str {
        match self {
            ProjectFileKind::Checks => "/checks",
            ProjectFileKind::Hooks => "/hooks",
            ProjectFileKind::Agents => "/agents",
        }
    }

    /// What it holds, in words.
    pub fn what(self) -> &'static str {
        match self {
            ProjectFileKind::Checks => "checks",
            ProjectFileKind::Hooks => "hooks",
            ProjectFileKind::Agents => "agent types",
        }
    }
}

/// A project file that waits for the user's approval, or cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingProjectFile {
    /// Which file.
    pub kind: ProjectFileKind,
    /// Where it is.
    pub file: PathBuf,
    /// What it declares (checks' or hooks' names).
    pub names: Vec<String>,
    /// Why it cannot be used, when it cannot (malformed).
    pub problem: Option<String>,
}

impl PendingProjectFile {
    /// What the user is told.
    pub fn notice(&self) -> String {
        notice_text(self.kind, &self.file, &self.names, self.problem.as_deref())
    }
}

fn notice_text(
    kind: ProjectFileKind,
    file: &Path,
    names: &[String],
    problem: Option<&str>,
) -> String {
    if let Some(problem) = problem {
        return format!("{} is not used: {problem}", file.display());
    }
    let (used, how) = match kind {
        ProjectFileKind::Agents => ("be used", "their tools ask as the agent's own do"),
        _ => ("run", "they run in the commands' sandbox"),
    };
    format!(
        "{} declares {} {} that will not {used} until you approve them: {}. Review the file, then \
         approve with `{} approve` ({how}).",
        file.display(),
        names.len(),
        kind.what(),
        names.join(", "),
        kind.command()
    )
}
