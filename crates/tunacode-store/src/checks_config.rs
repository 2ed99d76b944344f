//! The checks a project declares (`settings.checks` in the config, `.tunacode/checks.json` in a
//! repository): commands that prove a change, run after edits or when the model says it is done.
//! Either a list, or `{"max_rounds": 3, "list": [...]}`; each check is
//! `{"name", "kind": "lint"|"typecheck"|"test", "command", "files": [globs], "when":
//! "after_edit"|"at_completion", "timeout_secs"}`.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::StoreError;

/// What a check proves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    /// A linter.
    Lint,
    /// A type checker or compiler.
    Typecheck,
    /// The tests.
    Test,
}

impl CheckKind {
    /// Its name in the config.
    pub fn name(self) -> &'static str {
        match self {
            CheckKind::Lint => "lint",
            CheckKind::Typecheck => "typecheck",
            CheckKind::Test => "test",
        }
    }
}

/// When a check runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckWhen {
    /// After each edit of a file it covers (fast checks); new failures go with the edit's result.
    AfterEdit,
    /// When the model says it is done.
    #[default]
    AtCompletion,
}

/// One declared check.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CheckSpec {
    /// Its name, as shown.
    pub name: String,
    /// What it proves.
    pub kind: CheckKind,
    /// The shell command (run like `bash`, in the commands' sandbox, from the working directory).
    pub command: String,
    /// Globs of the files it covers (relative to the working directory); empty: every file.
    #[serde(default)]
    pub files: Vec<String>,
    /// When it runs.
    #[serde(default)]
    pub when: CheckWhen,
    /// Its time limit in seconds (default 300).
    #[serde(default)]
    pub timeout_secs: Option<u64>,
    /// It comes from a repository's file (runs only inside the sandbox); not read from the file.
    #[serde(skip)]
    pub from_project: bool,
}

/// The checks and how many times the model may be sent back to fix them.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "serde_json::Value")]
pub struct ChecksConfig {
    /// Completion rounds: how often failing checks send the model back before the request ends
    /// `failing`.
    pub max_rounds: u32,
    /// The checks.
    pub list: Vec<CheckSpec>,
}

impl Default for ChecksConfig {
    fn default() -> Self {
        ChecksConfig {
            max_rounds: 3,
            list: Vec::new(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChecksObject {
    max_rounds: Option<u32>,
    #[serde(default, alias = "checks")]
    list: Vec<CheckSpec>,
}

/// Read by hand from the value (not an untagged enum) so a misspelt field is named in the error.
impl TryFrom<serde_json::Value> for ChecksConfig {
    type Error = serde_json::Error;

    fn try_from(value: serde_json::Value) -> Result<Self, Self::Error> {
        if value.is_array() {
            return Ok(ChecksConfig {
                list: serde_json::from_value(value)?,
                ..ChecksConfig::default()
            });
        }
        let o: ChecksObject = serde_json::from_value(value)?;
        Ok(ChecksConfig {
            max_rounds: o.max_rounds.unwrap_or(3),
            list: o.list,
        })
    }
}

/// A project's checks file as read: its text (what an approval covers) and its checks.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectChecks {
    /// The file.
    pub path: std::path::PathBuf,
    /// Its text.
    pub text: String,
    /// What it declares.
    pub checks: ChecksConfig,
}

/// Parses a project's checks file (`path` names it in errors, with the line and column).
pub fn parse_project_checks(path: &Path, text: &str) -> Result<ProjectChecks, StoreError> {
    let checks = serde_json::from_str(text).map_err(|e| StoreError::malformed(path, &e))?;
    Ok(ProjectChecks {
        path: path.to_path_buf(),
        text: text.to_string(),
        checks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_or_an_object_with_rounds() {
        let list: ChecksConfig = serde_json::from_str(
            r#"[{"name": "check", "kind": "typecheck", "command": "cargo check", "when": "after_edit"}]"#,
        )
        .unwrap();
        assert_eq!(list.max_rounds, 3);
        assert_eq!(list.list[0].when, CheckWhen::AfterEdit);
        let object: ChecksConfig = serde_json::from_str(
            r#"{"max_rounds": 1, "list": [{"name": "t", "kind": "test", "command": "pytest", "files": ["**/*.py"]}]}"#,
        )
        .unwrap();
        assert_eq!(object.max_rounds, 1);
        assert_eq!(object.list[0].when, CheckWhen::AtCompletion);
        assert_eq!(object.list[0].files, vec!["**/*.py".to_string()]);
    }

    #[test]
    fn a_misspelt_field_or_kind_is_refused() {
        let bad = [
            r#"[{"name": "t", "kind": "tests", "command": "x"}]"#,
            r#"[{"name": "t", "kind": "test", "cmd": "x"}]"#,
        ];
        for text in bad {
            assert!(
                serde_json::from_str::<ChecksConfig>(text).is_err(),
                "{text}"
            );
        }
    }

    #[test]
    fn a_project_file_is_parsed_with_its_text_and_a_broken_one_is_an_error_that_names_it() {
        let file = Path::new("/p/.tunacode/checks.json");
        let text = r#"[{"name": "t", "kind": "test", "command": "make test"}]"#;
        let read = parse_project_checks(file, text).unwrap();
        assert_eq!(read.checks.list[0].command, "make test");
        assert_eq!(read.text, text);
        let err = parse_project_checks(file, "[{").unwrap_err().to_string();
        assert!(err.contains("checks.json:1:"), "{err}");
    }
}
