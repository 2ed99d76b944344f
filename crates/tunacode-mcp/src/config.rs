//! MCP servers as users write them for Claude Code and Cursor: `"mcpServers": {"name": {"command": …,
//! "args": […], "env": {…}}}` for stdio, `{"url": …, "headers": {…}}` for Streamable HTTP. Each entry is
//! parsed on its own, so one malformed server is reported by name while the others start.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value};

/// How long a server may take to start before it is reported as failed (codex uses the same).
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one tool call may run before it fails.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(120);

pub use tunacode_protocol::ConfigSource;

/// How to reach a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportConfig {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to the inherited environment (after `${VAR}` expansion).
        env: Vec<(String, String)>,
        /// The directory it runs in (the session's working directory when absent).
        cwd: Option<PathBuf>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        /// The endpoint.
        url: String,
        /// Headers sent with every request (after `${VAR}` expansion).
        headers: Vec<(String, String)>,
    },
}

/// One usable server entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// The name the user gave it (the `<server>` of `mcp__<server>__<tool>`).
    pub name: String,
    /// How to reach it.
    pub transport: TransportConfig,
    /// How long it may take to start.
    pub startup_timeout: Duration,
    /// How long one call may run.
    pub tool_timeout: Duration,
    /// Whether a tool annotated `readOnlyHint` runs without approval, like a read.
    pub trust_read_only_hints: bool,
    /// Tools that run without asking (`"*"`: all of the server's tools).
    pub always_allow: Vec<String>,
    /// Where the entry came from.
    pub source: ConfigSource,
}

/// One entry of `mcpServers`, usable or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerEntry {
    /// The server's name.
    pub name: String,
    /// `"disabled": true`: listed, never started.
    pub disabled: bool,
    /// The parsed entry, or why it cannot be used (said to the user, with the key that is wrong).
    pub config: Result<ServerConfig, String>,
}

/// The raw entry; both Claude Code's camelCase and codex's snake_case keys are accepted.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    #[serde(rename = "type")]
    kind: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: Map<String, Value>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    #[serde(default)]
    headers: Map<String, Value>,
    #[serde(default)]
    disabled: bool,
    #[serde(alias = "startup_timeout_sec")]
    #[serde(rename = "startupTimeoutSec")]
    startup_timeout_sec: Option<f64>,
    #[serde(alias = "tool_timeout_sec")]
    #[serde(rename = "toolTimeoutSec")]
    tool_timeout_sec: Option<f64>,
    #[serde(
        alias = "trust_read_only_hints",
        rename = "trustReadOnlyHints",
        default
    )]
    trust_read_only_hints: bool,
    #[serde(
        alias = "always_allow",
        alias = "autoApprove",
        rename = "alwaysAllow",
        default
    )]
    always_allow: Vec<String>,
    /// Free text some configs carry; ignored.
    #[serde(default)]
    #[allow(dead_code)]
    description: Option<String>,
}

/// Parses every entry of an `mcpServers` object. `lookup` reads environment variables for `${VAR}`.
pub fn parse_servers(
    servers: &Map<String, Value>,
    source: ConfigSource,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Vec<ServerEntry> {
    servers
        .iter()
        .map(|(name, value)| {
            let raw = serde_json::from_value::<RawEntry>(value.clone())
                .map_err(|e| format!("mcpServers.{name}: {e}"));
            let disabled = raw.as_ref().is_ok_and(|r| r.disabled);
            let config = raw.and_then(|raw| build(name, raw, source, lookup));
            ServerEntry {
                name: name.clone(),
                disabled,
                config,
            }
        })
        .collect()
}

fn build(
    name: &str,
    raw: RawEntry,
    source: ConfigSource,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<ServerConfig, String> {
    if name.is_empty() {
        return Err("mcpServers: a server needs a non-empty name".into());
    }
    let at = |key: &str| format!("mcpServers.{name}.{key}");
    let expand =
        |key: String, text: &str| expand_vars(text, lookup).map_err(|e| format!("{key}: {e}"));
    let transport = match (raw.command, raw.url, raw.kind.as_deref()) {
        (_, _, Some("sse")) => {
            return Err(format!(
                "{}: the SSE transport is deprecated; use the server's Streamable HTTP endpoint",
                at("type")
            ));
        }
        (Some(_), Some(_), _) => {
            return Err(format!(
                "mcpServers.{name}: give either `command` or `url`, not both"
            ));
        }
        (Some(command), None, _) => TransportConfig::Stdio {
            command: expand(at("command"), &command)?,
            args: raw
                .args
                .iter()
                .map(|a| expand(at("args"), a))
                .collect::<Result<_, _>>()?,
            env: string_pairs(&raw.env, &at("env"), &expand)?,
            cwd: raw.cwd,
        },
        (None, Some(url), _) => TransportConfig::Http {
            url: expand(at("url"), &url)?,
            headers: string_pairs(&raw.headers, &at("headers"), &expand)?,
        },
        (None, None, _) => {
            return Err(format!(
                "mcpServers.{name}: needs `command` (stdio) or `url` (HTTP)"
            ));
        }
    };
    Ok(ServerConfig {
        name: name.to_string(),
        transport,
        startup_timeout: seconds(raw.startup_timeout_sec, DEFAULT_STARTUP_TIMEOUT),
        tool_timeout: seconds(raw.tool_timeout_sec, DEFAULT_TOOL_TIMEOUT),
        trust_read_only_hints: raw.trust_read_only_hints,
        always_allow: raw.always_allow,
        source,
    })
}

type Expand<'a> = dyn Fn(String, &str) -> Result<String, String> + 'a;

fn string_pairs(
    map: &Map<String, Value>,
    at: &str,
    expand: &Expand<'_>,
) -> Result<Vec<(String, String)>, String> {
    map.iter()
        .map(|(key, value)| match value {
            Value::String(text) => Ok((key.clone(), expand(format!("{at}.{key}"), text)?)),
            _ => Err(format!("{at}.{key}: must be a string")),
        })
        .collect()
}

fn seconds(value: Option<f64>, default: Duration) -> Duration {
    value
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(default, Duration::from_secs_f64)
}

/// Expands `${VAR}` and `${VAR:-default}` from the environment, so keys stay out of the file. A
/// variable that is not set (and has no default) is an error naming it. `$$` is not special; a `$`
/// not followed by `{` is kept as it is. Hand-written: the expansion is a few lines and the crates
/// that do it also expand `$VAR` and `~`, which would change arguments users write today.
pub fn expand_vars(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("`${{` without a closing `}}` in {text:?}"));
        };
        let inner = &after[..end];
        let (var, default) = match inner.split_once(":-") {
            Some((var, default)) => (var, Some(default)),
            None => (inner, None),
        };
        match (lookup(var), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => return Err(format!("${{{var}}} is not set in the environment")),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env(var: &str) -> Option<String> {
        (var == "TOKEN").then(|| "s3cret".to_string())
    }

    fn parse(value: Value) -> Vec<ServerEntry> {
        let Value::Object(map) = value else {
            panic!("not an object")
        };
        parse_servers(&map, ConfigSource::User, &env)
    }

    #[test]
    fn stdio_and_http_entries_parse_with_expanded_variables() {
        let entries = parse(json!({
            "fs": {"command": "npx", "args": ["-y", "pkg", "${HOME_DIR:-/tmp}"],
                   "env": {"KEY": "${TOKEN}"}, "toolTimeoutSec": 5, "alwaysAllow": ["read"]},
            "web": {"type": "http", "url": "https://x.test/mcp",
                    "headers": {"Authorization": "Bearer ${TOKEN}"}, "disabled": true}
        }));
        let fs = entries[0].config.as_ref().expect("fs parses");
        assert_eq!(
            fs.transport,
            TransportConfig::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "pkg".into(), "/tmp".into()],
                env: vec![("KEY".into(), "s3cret".into())],
                cwd: None,
            }
        );
        assert_eq!(fs.tool_timeout, Duration::from_secs(5));
        assert_eq!(fs.startup_timeout, DEFAULT_STARTUP_TIMEOUT);
        assert_eq!(fs.always_allow, vec!["read".to_string()]);
        assert!(!entries[0].disabled);
        let web = entries[1].config.as_ref().expect("web parses");
        assert!(entries[1].disabled);
        assert_eq!(
            web.transport,
            TransportConfig::Http {
                url: "https://x.test/mcp".into(),
                headers: vec![("Authorization".into(), "Bearer s3cret".into())],
            }
        );
    }

    #[test]
    fn a_bad_entry_is_reported_by_name_and_the_others_still_parse() {
        let entries = parse(json!({
            "a": {"args": []},
            "b": {"command": "x", "env": {"K": "${MISSING}"}},
            "c": {"command": "x", "comand": "typo"},
            "d": {"command": "ok"},
            "e": {"type": "sse", "url": "http://x"}
        }));
        let errors: Vec<_> = entries.iter().map(|e| e.config.clone().err()).collect();
        assert!(
            errors[0]
                .as_deref()
                .unwrap_or("")
                .contains("needs `command`")
        );
        assert_eq!(
            errors[1].as_deref(),
            Some("mcpServers.b.env.K: ${MISSING} is not set in the environment")
        );
        assert!(
            errors[2].as_deref().unwrap_or("").contains("comand"),
            "{errors:?}"
        );
        assert_eq!(errors[3], None);
        assert!(errors[4].as_deref().unwrap_or("").contains("SSE"));
    }

    #[test]
    fn expansion_keeps_plain_dollars_and_rejects_an_open_brace() {
        assert_eq!(
            expand_vars("a$b ${TOKEN}!", &env).as_deref(),
            Ok("a$b s3cret!")
        );
        assert!(expand_vars("${TOKEN", &env).is_err());
    }
}
