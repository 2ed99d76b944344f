//! Protected paths in the approval policy. A call that changes a protected file (a git hook or git's
//! config, the project's agent settings, an instruction file, the agent's own config; see
//! [`ProtectedPaths`]) is asked about every time and once only: yolo, `--yes` and session allowances
//! never pass it, and a run with nobody to ask refuses it — unless a `permissions.allow` rule names
//! that path explicitly (`write_file(.git/hooks/pre-commit)`, `apply_patch(.tunacode/**)`; a rule
//! for every file, `write_file` or `write_file(**)`, does not).

use std::path::{Path, PathBuf};

use serde_json::json;
use tunacode_tools::ProtectedPaths;

use crate::approval::ApprovalRequest;
use crate::permissions::{Permissions, Verdict};

/// What the policy must do about the protected files a call changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Protected {
    /// A deny rule names one: refused, with why.
    Refuse(String),
    /// Ask once, with why, and how a rule could allow it.
    Ask {
        /// Why the user is asked (which path, why it is protected).
        reason: String,
        /// How else it could be allowed (for the headless refusal).
        hint: String,
    },
}

/// What the protected list and the rules say of the files `request` changes; `None` when it changes
/// no protected file, or only ones an allow rule names explicitly.
pub(super) fn judge(
    request: &ApprovalRequest,
    protected: &ProtectedPaths,
    rules: &Permissions,
    workspace: &Path,
) -> Option<Protected> {
    let mut asks: Vec<(PathBuf, String)> = Vec::new();
    for target in &request.targets {
        let Some(why) = protected.reason_for(target) else {
            continue;
        };
        let args = json!({"file_path": target.to_string_lossy()});
        match rules.check(&request.tool_name, &args, workspace) {
            Verdict::Deny(rule) => {
                return Some(Protected::Refuse(format!(
                    "Refused by the permission rule `{rule}` in the user's config; do not retry it."
                )));
            }
            Verdict::Allow(rule) if names_explicitly(&rule, protected, workspace) => {}
            _ => asks.push((target.clone(), why)),
        }
    }
    let (first, _) = asks.first()?;
    let shown = |path: &Path| {
        path.strip_prefix(workspace)
            .unwrap_or(path)
            .display()
            .to_string()
    };
    let reasons: Vec<String> = asks
        .iter()
        .map(|(path, why)| format!("`{}` is protected: {why}", shown(path)))
        .collect();
    Some(Protected::Ask {
        reason: format!(
            "it changes a file that decides what runs or what the agent trusts ({})",
            reasons.join("; ")
        ),
        hint: format!(
            " (a `permissions.allow` rule naming the path, `{}({})`, allows it)",
            request.tool_name,
            shown(first)
        ),
    })
}

/// Whether the allow rule `rule` (as written, e.g. `write_file(.git/hooks/*)`) names a protected
/// path rather than allowing every file: its path pattern, each component with a wildcard taken as
/// an ordinary name, is itself protected — whichever name (`x`, or `objects`, which git writes in
/// everyday work: so `.git/**` is not explicit).
fn names_explicitly(rule: &str, protected: &ProtectedPaths, workspace: &Path) -> bool {
    let Some(pattern) = rule
        .split_once('(')
        .and_then(|(_, rest)| rest.rsplit_once(')'))
        .map(|(inner, _)| inner.trim().trim_start_matches("./"))
        .filter(|p| !p.is_empty())
    else {
        return false;
    };
    ["x", "objects"].iter().all(|placeholder| {
        let mut instance = if pattern.starts_with('/') {
            PathBuf::from("/")
        } else {
            workspace.to_path_buf()
        };
        for part in pattern.split('/').filter(|p| !p.is_empty()) {
            let wildcard = part.contains(['*', '?', '[', '{']);
            instance.push(if wildcard { placeholder } else { part });
        }
        protected.reason_for(&instance).is_some()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_pattern_within_protected_paths_names_them() {
        let protected = ProtectedPaths::new(vec![PathBuf::from("/w")], Vec::new());
        let w = Path::new("/w");
        for rule in [
            "write_file(.git/hooks/pre-commit)",
            "write_file(./.git/hooks/*)",
            "apply_patch(.tunacode/**)",
            "Write(**/CLAUDE.md)",
            "write_file(/w/.mcp.json)",
        ] {
            assert!(names_explicitly(rule, &protected, w), "{rule}");
        }
        for rule in [
            "write_file",
            "write_file(*)",
            "write_file(**)",
            "write_file(**/*)",
            "write_file(.git/**)",
            "write_file(*.json)",
            "write_file()",
        ] {
            assert!(!names_explicitly(rule, &protected, w), "{rule}");
        }
    }
}
