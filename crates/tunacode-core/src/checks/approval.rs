//! `/checks` and `tunacode checks`: the checks in force, described, and the approval of a
//! repository's `.tunacode/checks.json` as it reads now (a digest of its content in the data dir, as
//! for `.mcp.json`; it runs from the next request on).

use std::path::Path;

use tunacode_protocol::runtime::ProjectFileKind;
use tunacode_store::{Paths, UserConfig, approve_project_mcp};

use super::resolve::resolve_checks;
use crate::settings_error::SettingsError;

/// The checks in force in `cwd` and the project's file, as text.
pub fn describe_checks(paths: &Paths, cwd: &Path) -> Result<String, SettingsError> {
    let config = UserConfig::load(&paths.config_file)?;
    let resolved = resolve_checks(paths, &config, cwd)?;
    let mut text = String::new();
    if resolved.config.list.is_empty() {
        text.push_str(
            "No checks: add them to settings.checks or approve a .tunacode/checks.json (/init \
             proposes some).\n",
        );
    } else {
        text.push_str(&format!(
            "Checks (failing ones send the model back up to {} times):\n",
            resolved.config.max_rounds
        ));
        for c in &resolved.config.list {
            let when = match c.when {
                tunacode_store::CheckWhen::AfterEdit => "after each edit",
                tunacode_store::CheckWhen::AtCompletion => "at completion",
            };
            let files = match c.files.is_empty() {
                true => "every file".to_string(),
                false => c.files.join(", "),
            };
            text.push_str(&format!(
                "  {} ({}, {when}, covers {files}): {}\n",
                c.name,
                c.kind.name(),
                c.command
            ));
        }
    }
    if let Some(project) = &resolved.project {
        text.push_str(&project.describe(ProjectFileKind::Checks));
    }
    Ok(text)
}

/// Approves `cwd`'s `.tunacode/checks.json` as it reads now, when it is still `shown` (the content
/// the user was shown; `None`: the caller shows it now); the description after.
pub fn approve_project_checks(
    paths: &Paths,
    cwd: &Path,
    shown: Option<&str>,
) -> Result<String, SettingsError> {
    let found = super::resolve::read_checks_file(cwd)
        .map_err(SettingsError::Invalid)?
        .ok_or_else(|| {
            SettingsError::Invalid(format!(
                "there is no {} to approve",
                cwd.join(super::resolve::CHECKS_FILE).display()
            ))
        })?;
    crate::project_file_state::still_shown(&found.path, &found.text, shown)?;
    approve_project_mcp(&paths.mcp_approvals, &found.path, &found.text)?;
    describe_checks(paths, cwd)
}
