//! Which checks a session runs: the user's `settings.checks`, then a repository's
//! `.tunacode/checks.json` once the user approved exactly that content (a cloned repository may
//! name any command; its checks run only after the user said yes, and again after it changes, and
//! in the commands' sandbox like everything the agent runs). A user check wins a name clash.

use std::path::Path;

use globset::Glob;
use tunacode_store::{
    CheckSpec, ChecksConfig, Paths, ProjectChecks, UserConfig, is_project_mcp_approved,
    parse_project_checks,
};

use crate::project_file_state::{ProjectFileState, read_project_file};
use crate::settings_error::SettingsError;

/// The most completion rounds a repository's file may ask for.
const MAX_ROUNDS: u32 = 10;

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
    let project = match read_checks_file(cwd) {
        Ok(None) => None,
        Ok(Some(found)) => {
            let approved = is_project_mcp_approved(&paths.mcp_approvals, &found.path, &found.text);
            let problem = validate(&found.checks.list).err();
            if approved && problem.is_none() {
                if checks.list.is_empty() {
                    checks.max_rounds = found.checks.max_rounds.min(MAX_ROUNDS);
                }
                let theirs = found.checks.list.iter().cloned().map(|mut c| {
                    c.from_project = true;
                    c
                });
                let new: Vec<CheckSpec> = theirs
                    .filter(|p| !checks.list.iter().any(|u| u.name == p.name))
                    .collect();
                checks.list.extend(new);
            }
            Some(ProjectFileState {
                names: found
                    .checks
                    .list
                    .iter()
                    .map(|c| format!("{} (`{}`)", c.name, c.command))
                    .collect(),
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
            problem: Some(e),
        }),
    };
    Ok(ResolvedChecks {
        config: checks,
        project,
    })
}

/// `cwd`'s checks file, read safely and parsed.
pub(crate) fn read_checks_file(cwd: &Path) -> Result<Option<ProjectChecks>, String> {
    let Some(text) = read_project_file(cwd, CHECKS_FILE)? else {
        return Ok(None);
    };
    parse_project_checks(&cwd.join(CHECKS_FILE), &text)
        .map(Some)
        .map_err(|e| e.to_string())
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
