//! Permission rules, as users write them for Claude Code: `"permissions": {"allow": […], "ask": […],
//! "deny": […]}` of patterns such as `bash(git status)` (exactly that command), `bash(cargo test:*)`
//! (that prefix), `write_file(src/**)` (a file glob, relative to the working directory),
//! `mcp__github__*` (every tool of a server) or `bash` (every call). Deny wins, then ask, then allow.
//! Claude Code's `Bash`, `Read`, `Write` and `Edit` name our `bash`, `read_file`, `write_file` and
//! `update_file`.

mod overlap;
mod subject;

use std::path::Path;

use globset::{Glob, GlobMatcher};
use serde_json::Value;
use tunacode_store::PermissionsConfig;

use crate::settings_error::SettingsError;
use subject::Subject;

/// What the rules say of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// A deny rule matches (the rule's text).
    Deny(String),
    /// An ask rule matches.
    Ask(String),
    /// An allow rule matches.
    Allow(String),
    /// No rule matches.
    None,
}

/// One parsed rule.
#[derive(Debug, Clone)]
struct Rule {
    text: String,
    /// The tool name as written, canonical (`Bash` → `bash`).
    tool_name: String,
    tool: GlobMatcher,
    arg: Option<ArgPattern>,
}

#[derive(Debug, Clone)]
enum ArgPattern {
    /// A command line (or argv joined) exactly.
    Exact(String),
    /// A command line starting with these words.
    Prefix(String),
    /// A path glob, and the directories before its first wildcard (`secrets` of `secrets/**`).
    Path(GlobMatcher, String),
}

/// The rules of a config.
#[derive(Debug, Clone, Default)]
pub struct Permissions {
    allow: Vec<Rule>,
    ask: Vec<Rule>,
    deny: Vec<Rule>,
}

impl Permissions {
    /// Parses the config's rules; a malformed one is an error naming it.
    pub fn parse(config: &PermissionsConfig) -> Result<Self, SettingsError> {
        let list = |rules: &[String], kind: &str| -> Result<Vec<Rule>, SettingsError> {
            rules
                .iter()
                .map(|r| {
                    parse_rule(r).map_err(|e| {
                        SettingsError::Invalid(format!("permissions.{kind}: `{r}`: {e}"))
                    })
                })
                .collect()
        };
        Ok(Permissions {
            allow: list(&config.allow, "allow")?,
            ask: list(&config.ask, "ask")?,
            deny: list(&config.deny, "deny")?,
        })
    }

    /// The verdict on a call of `tool` with `args` in `workspace`.
    pub fn check(&self, tool: &str, args: &Value, workspace: &Path) -> Verdict {
        // Asked for every call, reads included: without rules, parse nothing.
        if self.deny.is_empty() && self.ask.is_empty() && self.allow.is_empty() {
            return Verdict::None;
        }
        let subject = Subject::of(tool, args, workspace);
        if let Some(rule) = self.deny.iter().find(|r| r.matches(tool, &subject, true)) {
            return Verdict::Deny(rule.text.clone());
        }
        if let Some(rule) = self.ask.iter().find(|r| r.matches(tool, &subject, true)) {
            return Verdict::Ask(rule.text.clone());
        }
        if let Some(rule) = self.allow.iter().find(|r| r.matches(tool, &subject, false)) {
            return Verdict::Allow(rule.text.clone());
        }
        Verdict::None
    }

    /// Every rule, as written, by kind (for `/permissions`).
    pub fn describe(&self) -> String {
        let mut text = String::new();
        for (kind, rules) in [
            ("deny", &self.deny),
            ("ask", &self.ask),
            ("allow", &self.allow),
        ] {
            let names: Vec<&str> = rules.iter().map(|r| r.text.as_str()).collect();
            let shown = if names.is_empty() {
                "(none)".to_string()
            } else {
                names.join(", ")
            };
            text.push_str(&format!("  {kind:<6} {shown}\n"));
        }
        text
    }
}

fn canonical_tool(name: &str) -> String {
    match name {
        "Bash" => "bash".into(),
        "Read" => "read_file".into(),
        "Write" => "write_file".into(),
        "Edit" => "update_file".into(),
        other => other.to_string(),
    }
}

fn parse_rule(text: &str) -> Result<Rule, String> {
    let text = text.trim();
    let (tool, arg) = match text.split_once('(') {
        Some((tool, rest)) => {
            let inner = rest
                .strip_suffix(')')
                .ok_or("a `(` without its closing `)`")?;
            (tool.trim(), Some(inner.trim()))
        }
        None => (text, None),
    };
    if tool.is_empty() {
        return Err("no tool name".into());
    }
    let tool_name = canonical_tool(tool);
    let matcher = Glob::new(&tool_name)
        .map_err(|e| e.to_string())?
        .compile_matcher();
    let arg = match arg {
        None | Some("") | Some("*") => None,
        Some(inner) if is_command_tool(&tool_name) => Some(match inner.strip_suffix(":*") {
            Some(prefix) => ArgPattern::Prefix(prefix.trim().to_string()),
            None => ArgPattern::Exact(inner.to_string()),
        }),
        Some(inner) => {
            let glob = inner.trim().trim_start_matches("./");
            Some(ArgPattern::Path(
                Glob::new(glob)
                    .map_err(|e| e.to_string())?
                    .compile_matcher(),
                literal_base(glob),
            ))
        }
    };
    Ok(Rule {
        text: text.to_string(),
        tool_name,
        tool: matcher,
        arg,
    })
}

fn is_command_tool(name: &str) -> bool {
    matches!(name, "bash" | "run_command")
}

/// The directories of a glob before its first wildcard (`secrets/keys` of `secrets/keys/*.pem`).
fn literal_base(glob: &str) -> String {
    let dirs: Vec<&str> = glob.split('/').collect();
    let literal: Vec<&str> = dirs[..dirs.len().saturating_sub(1)]
        .iter()
        .take_while(|d| !d.contains(['*', '?', '[', '{']))
        .copied()
        .collect();
    literal.join("/")
}

/// Tools that read or list files, which deny and ask rules on `read_file` paths also cover (and
/// commands: the files their operands name, and the globs among them that may name a file).
const READERS: &[&str] = &["grep", "glob", "list_dir", "apply_patch"];

impl Rule {
    /// Whether the rule covers the call. Deny and ask rules (`restrict`) match any command of a
    /// line and any path of a call; an allow rule only a single simple command and only when every
    /// path matches (so `cargo test:*` never allows `cargo test && rm -rf x`).
    fn matches(&self, tool: &str, subject: &Subject, restrict: bool) -> bool {
        let command_rule = is_command_tool(&self.tool_name);
        let direct = self.tool.is_match(tool) || (command_rule && is_command_tool(tool));
        match &self.arg {
            None => direct,
            Some(ArgPattern::Path(glob, base)) => {
                if direct {
                    return match restrict {
                        true => subject.paths.iter().any(|p| glob.is_match(p)),
                        false => {
                            !subject.paths.is_empty()
                                && subject.paths.iter().all(|p| glob.is_match(p))
                        }
                    };
                }
                restrict && self.covers_by_path(tool, subject, glob, base)
            }
            Some(pattern) if direct => {
                let lines = if restrict {
                    &subject.commands
                } else {
                    &subject.simple
                };
                lines.iter().any(|line| match pattern {
                    ArgPattern::Exact(exact) => line == exact,
                    ArgPattern::Prefix(prefix) => {
                        line == prefix || line.starts_with(&format!("{prefix} "))
                    }
                    ArgPattern::Path(..) => false,
                })
            }
            Some(_) => false,
        }
    }

    /// Whether a deny or ask path rule of a file tool covers another tool's call: `read_file` rules
    /// the readers and the operands of commands, `write_file`/`update_file` rules `apply_patch`.
    fn covers_by_path(
        &self,
        tool: &str,
        subject: &Subject,
        glob: &GlobMatcher,
        base: &str,
    ) -> bool {
        let paths = match (self.tool_name.as_str(), tool) {
            ("read_file", t) if is_command_tool(t) => {
                let rule = glob.glob().glob();
                if subject
                    .operand_globs
                    .iter()
                    .any(|g| overlap::may_name(g, rule))
                {
                    return true;
                }
                &subject.operands
            }
            ("read_file", t) if READERS.contains(&t) => &subject.paths,
            ("write_file" | "update_file", "apply_patch") => &subject.paths,
            _ => return false,
        };
        let holds_base = |p: &String| {
            tool == "grep"
                && !base.is_empty()
                && (p.is_empty() || base.starts_with(&format!("{p}/")) || base == p)
        };
        paths.iter().any(|p| glob.is_match(p) || holds_base(p))
    }
}

#[cfg(test)]
#[path = "permissions_tests.rs"]
mod tests;
