//! Permission rules, as users write them for Claude Code: `"permissions": {"allow": […], "ask": […],
//! "deny": […]}` of patterns such as `bash(git status)` (exactly that command), `bash(cargo test:*)`
//! (that prefix), `write_file(src/**)` (a file glob, relative to the working directory),
//! `mcp__github__*` (every tool of a server) or `bash` (every call). Deny wins, then ask, then allow.
//! Claude Code's `Bash`, `Read`, `Write` and `Edit` name our `bash`, `read_file`, `write_file` and
//! `update_file`.

use std::path::Path;

use globset::{Glob, GlobMatcher};
use serde_json::Value;
use tunacode_store::PermissionsConfig;
use tunacode_tools::shell::CommandLine;

use crate::settings::SettingsError;

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
    tool: GlobMatcher,
    arg: Option<ArgPattern>,
}

#[derive(Debug, Clone)]
enum ArgPattern {
    /// A command line (or argv joined) exactly.
    Exact(String),
    /// A command line starting with these words.
    Prefix(String),
    /// A path glob.
    Path(GlobMatcher),
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
        Some(inner) => Some(ArgPattern::Path(
            Glob::new(inner.trim_start_matches("./"))
                .map_err(|e| e.to_string())?
                .compile_matcher(),
        )),
    };
    Ok(Rule {
        text: text.to_string(),
        tool: matcher,
        arg,
    })
}

fn is_command_tool(name: &str) -> bool {
    matches!(name, "bash" | "run_command")
}

/// What a rule's argument pattern is matched against.
enum Subject {
    /// Each simple command of a line (one when it is simple), and whether the line is simple.
    Commands { lines: Vec<String>, simple: bool },
    /// A path relative to the workspace.
    Path(String),
    /// Nothing a pattern can match.
    None,
}

impl Subject {
    fn of(tool: &str, args: &Value, workspace: &Path) -> Subject {
        let text = |key: &str| args.get(key).and_then(Value::as_str).map(str::to_string);
        match tool {
            "bash" => {
                let Some(line) = text("command") else {
                    return Subject::None;
                };
                let parsed = CommandLine::parse(&line);
                let mut lines: Vec<String> = parsed
                    .commands()
                    .iter()
                    .map(|argv| argv.join(" "))
                    .collect();
                lines.push(line.trim().to_string());
                Subject::Commands {
                    simple: parsed.simple().is_some(),
                    lines,
                }
            }
            "run_command" => {
                let mut argv = vec![text("command").unwrap_or_default()];
                if let Some(Value::Array(items)) = args.get("args") {
                    argv.extend(items.iter().filter_map(Value::as_str).map(str::to_string));
                }
                Subject::Commands {
                    lines: vec![argv.join(" ")],
                    simple: true,
                }
            }
            _ => match text("file_path")
                .or_else(|| text("path"))
                .or_else(|| text("directory"))
            {
                Some(path) => Subject::Path(relative(&path, workspace)),
                None => Subject::None,
            },
        }
    }
}

fn relative(path: &str, workspace: &Path) -> String {
    let p = Path::new(path);
    let rel = p.strip_prefix(workspace).unwrap_or(p);
    rel.to_string_lossy().trim_start_matches("./").to_string()
}

impl Rule {
    /// Whether the rule covers the call. Deny and ask rules match any command of a compound line;
    /// an allow rule only a simple line (so `cargo test:*` never allows `cargo test && rm -rf x`).
    fn matches(&self, tool: &str, subject: &Subject, any_part: bool) -> bool {
        if !self.tool.is_match(tool) {
            return false;
        }
        let Some(arg) = &self.arg else {
            return true;
        };
        match (arg, subject) {
            (ArgPattern::Path(glob), Subject::Path(path)) => glob.is_match(path),
            (_, Subject::Commands { lines, simple }) => {
                if !any_part && !simple {
                    return false;
                }
                lines.iter().any(|line| match arg {
                    ArgPattern::Exact(exact) => line == exact,
                    ArgPattern::Prefix(prefix) => {
                        line == prefix || line.starts_with(&format!("{prefix} "))
                    }
                    ArgPattern::Path(_) => false,
                })
            }
            _ => false,
        }
    }
}

#[cfg(test)]
#[path = "permissions_tests.rs"]
mod tests;
