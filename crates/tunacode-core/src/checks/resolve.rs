//! Which checks a session runs: the user's `settings.checks`, then a repository's
//! `.tunacode/checks.json` once the user approved exactly that content (a cloned repository may
//! name any command; its checks run only after the user said yes, and again after it changes, and
//! in the commands' sandbox like everything the agent runs). A user check wins a name clash.

use std::path::Path;

use globset::Glob;
use tunacode_store::{
    CheckSpec, ChecksConfig, Paths, UserConfig, is_project_mcp_approved, read_project_checks,
};

use crate::project_file_state::ProjectFileState;
use crate::settings_error::SettingsError;

/// Where a repository declares its checks, under the working directory.
pub const CHECKS_FILE: &str = ".tunacode/checks.json";

/// The checks in force and the project's file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResolvedChecks {
    /// What runs.
    pub config: ChecksConfig,
    /// The repository's file, when there is one.
    pub project: Option<ProjectFileState>,
}

/// Resolves the checks of a session in `cwd`. A malformed user setting is an error; a malformed
/// project file is reported (`problem`) and its checks left out.
pub fn resolve_checks(
    paths: &Paths,
    config: &UserConfig,
    cwd: &Path,
) -> Result<ResolvedChecks, SettingsError> {
    let mut checks = config.settings.checks.clone();
    if let Err(problem) = validate(&checks.list) {
        return Err(SettingsError::Invalid(format!(
            "{}: settings.checks: {problem}",
            paths.config_file.display()
        )));
    }
    let project = match read_project_checks(cwd) {
        Ok(None) => None,
        Ok(Some(found)) => {
            let approved = is_project_mcp_approved(&paths.mcp_approvals, &found.path, &found.text);
            let problem = validate(&found.checks.list).err();
            if approved && problem.is_none() {
                if checks.list.is_empty() {
                    checks.max_rounds = found.checks.max_rounds;
                }
                let theirs = found.checks.list.iter().cloned();
                let new: Vec<CheckSpec> = theirs
                    .filter(|p| !checks.list.iter().any(|u| u.name == p.name))
                    .collect();
                checks.list.extend(new);
            }
            Some(ProjectFileState {
                names: found.checks.list.iter().map(|c| c.name.clone()).collect(),
                file: found.path,
                approved,
                text: found.text,
                problem,
            })
        }
        Err(e) => Some(ProjectFileState {
            file: cwd.join(CHECKS_FILE),
            approved: false,
            text: String::new(),
            names: Vec::new(),
            problem: Some(e.to_string()),
        }),
    };
    Ok(ResolvedChecks {
        config: checks,
        project,
    })
}

/// Every check has a name and a command, and its globs compile.
fn validate(list: &[CheckSpec]) -> Result<(), String> {
    for check in list {
        if check.name.trim().is_empty() || check.command.trim().is_empty() {
            return Err("every check needs a `name` and a `command`".into());
        }
        for glob in &check.files {
            Glob::new(glob).map_err(|e| format!("check `{}`: {e}", check.name))?;
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "resolve_tests.rs"]
mod tests;
