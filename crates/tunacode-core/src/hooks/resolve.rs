//! Which hooks a session runs: the user's `hooks` (the user's own commands, as in Claude Code), then
//! a repository's `.tunacode/hooks.json` once the user approved exactly that content (and again
//! after it changes); a repository's hooks run in the commands' sandbox. `/hooks` describes them.

use std::path::Path;

use tunacode_protocol::runtime::ProjectFileKind;
use tunacode_store::{
    HooksConfig, Paths, ProjectHooks, UserConfig, approve_project_mcp, is_project_mcp_approved,
    parse_project_hooks,
};

use super::set::{Hook, HookSet};
use crate::project_file_state::{ProjectFileState, read_project_file};
use crate::settings_error::SettingsError;

/// Where a repository declares its hooks, under the working directory.
pub const HOOKS_FILE: &str = ".tunacode/hooks.json";

/// A hook's time limit when it names none, in seconds.
const DEFAULT_TIMEOUT_SECS: u64 = 60;

/// The hooks in force and the project's file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResolvedHooks {
    /// What runs.
    pub set: HookSet,
    /// The repository's file, when there is one.
    pub project: Option<ProjectFileState>,
    /// Event names of the config this version does not run (Claude Code's others).
    pub skipped_events: Vec<String>,
}

/// Resolves the hooks of a session in `cwd`; a malformed project file is reported and left out.
pub fn resolve_hooks(paths: &Paths, config: &UserConfig, cwd: &Path) -> ResolvedHooks {
    let mut set = HookSet::default();
    add(&mut set, &config.hooks, &paths.config_file, false);
    let project = match read_hooks_file(cwd) {
        Ok(None) => None,
        Ok(Some(found)) => {
            let approved = is_project_mcp_approved(&paths.mcp_approvals, &found.path, &found.text);
            let mut theirs = HookSet::default();
            add(&mut theirs, &found.hooks, &found.path, true);
            let names = theirs
                .hooks
                .iter()
                .map(|h| format!("{} `{}`", h.event.name(), h.command))
                .collect();
            if approved {
                set.hooks.extend(theirs.hooks);
            }
            Some(ProjectFileState {
                file: found.path,
                approved,
                text: found.text,
                names,
                problem: None,
            })
        }
        Err(e) => Some(ProjectFileState {
            file: cwd.join(HOOKS_FILE),
            approved: false,
            text: String::new(),
            names: Vec::new(),
            problem: Some(e),
        }),
    };
    ResolvedHooks {
        set,
        project,
        skipped_events: config.hooks.other.clone(),
    }
}

/// `cwd`'s hooks file, read safely and parsed.
fn read_hooks_file(cwd: &Path) -> Result<Option<ProjectHooks>, String> {
    let Some(text) = read_project_file(cwd, HOOKS_FILE)? else {
        return Ok(None);
    };
    parse_project_hooks(&cwd.join(HOOKS_FILE), &text)
        .map(Some)
        .map_err(|e| e.to_string())
}

fn add(set: &mut HookSet, config: &HooksConfig, origin: &Path, confined: bool) {
    for (event, matchers) in &config.events {
        for matcher in matchers {
            let commands = matcher
                .hooks
                .iter()
                .filter(|c| c.kind == "command" && !c.command.trim().is_empty());
            for command in commands {
                set.hooks.push(Hook {
                    event: *event,
                    matcher: matcher.matcher.clone(),
                    command: command.command.clone(),
                    timeout_secs: command
                        .timeout
                        .unwrap_or(DEFAULT_TIMEOUT_SECS)
                        .clamp(1, 600),
                    fail_closed: command.fail_closed,
                    confined,
                    origin: origin.to_path_buf(),
                });
            }
        }
    }
}

/// The hooks in force in `cwd` and the project's file, as text.
pub fn describe_hooks(paths: &Paths, cwd: &Path) -> Result<String, SettingsError> {
    let config = UserConfig::load(&paths.config_file)?;
    let resolved = resolve_hooks(paths, &config, cwd);
    let mut text = match resolved.set.hooks.is_empty() {
        true => "No hooks: add them under `hooks` in your config (Claude Code's format).\n".into(),
        false => "Hooks:\n".to_string(),
    };
    for h in &resolved.set.hooks {
        let matcher = h
            .matcher
            .as_deref()
            .filter(|m| !m.is_empty())
            .unwrap_or("*");
        let how = if h.confined { ", sandboxed" } else { "" };
        text.push_str(&format!(
            "  {} [{matcher}]: {} (timeout {} s{how}; from {})\n",
            h.event.name(),
            h.command,
            h.timeout_secs,
            h.origin.display()
        ));
    }
    if !resolved.skipped_events.is_empty() {
        text.push_str(&format!(
            "Not run by TunaCode: {}.\n",
            resolved.skipped_events.join(", ")
        ));
    }
    if let Some(project) = &resolved.project {
        text.push_str(&project.describe(ProjectFileKind::Hooks));
    }
    Ok(text)
}

/// Approves `cwd`'s `.tunacode/hooks.json` as it reads now, when it is still `shown` (the content
/// the user was shown; `None`: the caller shows it now); the description after.
pub fn approve_project_hooks(
    paths: &Paths,
    cwd: &Path,
    shown: Option<&str>,
) -> Result<String, SettingsError> {
    let found = read_hooks_file(cwd)
        .map_err(SettingsError::Invalid)?
        .ok_or_else(|| {
            SettingsError::Invalid(format!(
                "there is no {} to approve",
                cwd.join(HOOKS_FILE).display()
            ))
        })?;
    crate::project_file_state::still_shown(&found.path, &found.text, shown)?;
    approve_project_mcp(&paths.mcp_approvals, &found.path, &found.text)?;
    describe_hooks(paths, cwd)
}
