//! `tunacode mcp list | add | remove | approve`: the MCP servers of the config (and of the project's
//! `.mcp.json`), their states and tools; and the notices `run` prints about them.

use std::io::Write;
use std::path::Path;

use anyhow::bail;
use serde_json::{Map, Value, json};
use tunacode_core::RuntimeEvent;
use tunacode_core::mcp::{ProjectMcp, ServerState, ServerStatus};
use tunacode_store::{Paths, add_mcp_server, approve_project_mcp, remove_mcp_server};

use crate::args::{McpAddArgs, McpArgs, McpCommand};

/// Runs `tunacode mcp …`; the exit code.
pub async fn run(args: McpArgs) -> anyhow::Result<u8> {
    let paths = Paths::from_env()?;
    match args.command {
        McpCommand::List { cwd, json } => {
            list(&paths, &crate::sessions_cmd::project_dir(cwd)?, json).await
        }
        McpCommand::Add(add_args) => add(&paths, add_args),
        McpCommand::Remove { name } => {
            let file = &paths.config_file;
            if !remove_mcp_server(file, &name)? {
                bail!("no MCP server `{name}` in {}", file.display());
            }
            say(&format!("removed `{name}` from {}", file.display()));
            Ok(0)
        }
        McpCommand::Approve { cwd } => {
            approve(&paths, &crate::sessions_cmd::project_dir(cwd)?).await
        }
    }
}

#[allow(clippy::print_stdout)]
fn say(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
}

async fn list(paths: &Paths, cwd: &Path, as_json: bool) -> anyhow::Result<u8> {
    let (statuses, project) = tunacode_core::mcp::probe(paths, cwd).await?;
    if as_json {
        let servers: Vec<Value> = statuses.iter().map(status_json).collect();
        let project = project
            .as_ref()
            .map(|p| json!({"file": p.file, "approved": p.approved, "servers": p.names}));
        say(&serde_json::to_string_pretty(
            &json!({"servers": servers, "project": project}),
        )?);
        return Ok(0);
    }
    if statuses.is_empty() && project.is_none() {
        say(&format!(
            "no MCP servers configured (add one with `tunacode mcp add NAME -- COMMAND ARGS…`; \
             they live under `mcpServers` in {})",
            paths.config_file.display()
        ));
        return Ok(0);
    }
    for status in &statuses {
        say(&status_line(status));
        if !status.tools.is_empty() {
            say(&format!("    {}", status.tools.join(", ")));
        }
    }
    if let Some(project) = project.filter(|p| !p.approved) {
        say(&tunacode_protocol::pending_mcp_notice(
            &project.file,
            &project.names,
        ));
    }
    Ok(0)
}

/// One server's line: name, state, protocol and tool count, or the error.
pub fn status_line(status: &ServerStatus) -> String {
    format!(
        "{}  {}",
        status.name,
        tunacode_core::mcp::describe_state(status)
    )
}

fn status_json(status: &ServerStatus) -> Value {
    json!({"name": status.name, "state": status.state.label(), "error": status.state.error(),
           "protocol": status.protocol, "tools": status.tools})
}

fn add(paths: &Paths, args: McpAddArgs) -> anyhow::Result<u8> {
    let mut entry = Map::new();
    match (args.url, args.command.split_first()) {
        (Some(_), Some(_)) => bail!("give either --url or a command after `--`, not both"),
        (None, None) => bail!("give the server's command after `--` (or --url for an HTTP server)"),
        (Some(url), None) => {
            entry.insert("url".into(), Value::String(url));
            entry.insert("headers".into(), Value::Object(pairs(&args.header, ':')?));
        }
        (None, Some((command, rest))) => {
            entry.insert("command".into(), Value::String(command.clone()));
            entry.insert("args".into(), json!(rest));
            entry.insert("env".into(), Value::Object(pairs(&args.env, '=')?));
        }
    }
    entry.retain(|_, v| !v.as_object().is_some_and(Map::is_empty));
    let file = &paths.config_file;
    let replaced = add_mcp_server(file, &args.name, Value::Object(entry))?;
    let verb = if replaced { "replaced" } else { "added" };
    say(&format!("{verb} `{}` in {}", args.name, file.display()));
    Ok(0)
}

/// `K=V` (or `K: V`) items as a JSON object.
fn pairs(items: &[String], separator: char) -> anyhow::Result<Map<String, Value>> {
    let mut map = Map::new();
    for item in items {
        let Some((key, value)) = item.split_once(separator) else {
            bail!("`{item}` is not of the form KEY{separator}VALUE");
        };
        map.insert(
            key.trim().to_string(),
            Value::String(value.trim().to_string()),
        );
    }
    Ok(map)
}

async fn approve(paths: &Paths, cwd: &Path) -> anyhow::Result<u8> {
    let project = tunacode_core::mcp::project_mcp(paths, cwd).await?;
    let Some(ProjectMcp {
        file, text, names, ..
    }) = project
    else {
        bail!("{} has no .mcp.json naming servers", cwd.display());
    };
    approve_project_mcp(&paths.mcp_approvals, &file, &text)?;
    say(&format!(
        "approved {} ({}); its servers start with the next session",
        file.display(),
        names.join(", ")
    ));
    Ok(0)
}

/// A warning for a server that failed, shown by headless runs.
pub fn failure_notice(event: &RuntimeEvent) -> Option<String> {
    match event {
        RuntimeEvent::McpServer(ServerStatus {
            name,
            state: ServerState::Failed(reason),
            ..
        }) => Some(format!(
            "MCP server `{name}` is not available: {reason}; going on without it"
        )),
        _ => None,
    }
}
