//! Lifecycle hooks as Claude Code's settings write them, so existing hook scripts run unchanged: a
//! top-level `hooks` key, `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
//! "command": "…", "timeout": 30}]}]}`. The user's config holds the user's; a repository's
//! `.tunacode/hooks.json` holds `{"hooks": {…}}` in the same shape. Events this version does not run
//! (Claude Code's `Notification`, `SubagentStop`, …) are kept aside, not refused, so one settings
//! block serves both tools.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::StoreError;

/// The events hooks run at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
pub enum HookEvent {
    /// Before a tool call runs (may allow, deny, ask, or change its input).
    PreToolUse,
    /// After a tool call ran (may add context, or tell the model what is wrong).
    PostToolUse,
    /// Before a user's message is sent (may add context, or block it).
    UserPromptSubmit,
    /// When the model is about to end the request (may send it back to work).
    Stop,
    /// When a session opens (may add context).
    SessionStart,
    /// When a session ends.
    SessionEnd,
    /// Before the history is compacted (may block it).
    PreCompact,
}

impl HookEvent {
    /// Its name, as in the settings and the `hook_event_name` field.
    pub fn name(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::Stop => "Stop",
            HookEvent::SessionStart => "SessionStart",
            HookEvent::SessionEnd => "SessionEnd",
            HookEvent::PreCompact => "PreCompact",
        }
    }
}

/// One hook command.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct HookCommand {
    /// `command` (the only kind this version runs; others are skipped).
    #[serde(rename = "type", default = "command_type")]
    pub kind: String,
    /// The shell command.
    #[serde(default)]
    pub command: String,
    /// Its time limit in seconds (default 60).
    #[serde(default)]
    pub timeout: Option<u64>,
    /// A failure other than exit code 2 (a crash, a timeout) blocks too.
    #[serde(default, rename = "failClosed")]
    pub fail_closed: bool,
}

fn command_type() -> String {
    "command".into()
}

/// Hooks for the tools (or sources, triggers) a matcher names.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct HookMatcher {
    /// Tool names (`Bash`, `Edit|Write`, a regex, `*` or empty for all).
    #[serde(default)]
    pub matcher: Option<String>,
    /// The commands.
    #[serde(default)]
    pub hooks: Vec<HookCommand>,
}

/// Every event's matchers; events this version does not run are in `other`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HooksConfig {
    /// The events this version runs.
    pub events: BTreeMap<HookEvent, Vec<HookMatcher>>,
    /// Event names it does not run, kept as read.
    pub other: Vec<String>,
}

impl<'de> Deserialize<'de> for HooksConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw: BTreeMap<String, serde_json::Value> = BTreeMap::deserialize(d)?;
        let mut config = HooksConfig::default();
        for (name, value) in raw {
            let event: Result<HookEvent, _> =
                serde_json::from_value(serde_json::Value::String(name.clone()));
            match event {
                Ok(event) => {
                    let matchers: Vec<HookMatcher> = serde_json::from_value(value)
                        .map_err(|e| serde::de::Error::custom(format!("hooks.{name}: {e}")))?;
                    config.events.insert(event, matchers);
                }
                Err(_) => config.other.push(name),
            }
        }
        Ok(config)
    }
}

/// A project's hooks file as read: its text (what an approval covers) and its hooks.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectHooks {
    /// The file.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
    /// What it declares.
    pub hooks: HooksConfig,
}

#[derive(Deserialize)]
struct HooksFile {
    #[serde(default)]
    hooks: HooksConfig,
}

/// Parses a project's hooks file (`path` names it in errors, with the line and column).
pub fn parse_project_hooks(path: &Path, text: &str) -> Result<ProjectHooks, StoreError> {
    let file: HooksFile =
        serde_json::from_str(text).map_err(|e| StoreError::malformed(path, &e))?;
    Ok(ProjectHooks {
        path: path.to_path_buf(),
        text: text.to_string(),
        hooks: file.hooks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_code_s_settings_block_reads_and_unknown_events_are_kept_aside() {
        let text = r#"{
          "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 v.py"}]}],
          "Stop": [{"hooks": [{"type": "command", "command": "./stop.sh", "timeout": 30}]}],
          "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}]
        }"#;
        let config: HooksConfig = serde_json::from_str(text).unwrap();
        let pre = &config.events[&HookEvent::PreToolUse][0];
        assert_eq!(pre.matcher.as_deref(), Some("Bash"));
        assert_eq!(pre.hooks[0].command, "python3 v.py");
        assert_eq!(
            config.events[&HookEvent::Stop][0].hooks[0].timeout,
            Some(30)
        );
        assert_eq!(config.other, vec!["Notification".to_string()]);
    }

    #[test]
    fn a_malformed_event_is_an_error_that_names_it() {
        let err = serde_json::from_str::<HooksConfig>(r#"{"PreToolUse": {"matcher": "x"}}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("hooks.PreToolUse"), "{err}");
    }
}
