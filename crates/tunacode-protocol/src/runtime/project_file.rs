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
}

impl ProjectFileKind {
    /// Its path under the working directory.
    pub fn relative_path(self) -> &'static str {
        match self {
            ProjectFileKind::Checks => ".tunacode/checks.json",
            ProjectFileKind::Hooks => ".tunacode/hooks.json",
        }
    }

    /// The slash command that lists and approves it.
    pub fn command(self) -> &'static str {
        match self {
            ProjectFileKind::Checks => "/checks",
            ProjectFileKind::Hooks => "/hooks",
        }
    }

    /// What it holds, in words.
    pub fn what(self) -> &'static str {
        match self {
            ProjectFileKind::Checks => "checks",
            ProjectFileKind::Hooks => "hooks",
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
    format!(
        "{} declares {} {} that will not run until you approve them: {}. Review the file, then \
         approve with `{} approve` (they run in the commands' sandbox).",
        file.display(),
        names.len(),
        kind.what(),
        names.join(", "),
        kind.command()
    )
}
