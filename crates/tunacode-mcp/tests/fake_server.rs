//! The manager against the in-repo fake server, in both eras of the protocol: start, tools, calls,
//! errors, cancellation, list changes, failures at start and a clean stop.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tunacode_mcp::{
    ConfigSource, McpManager, ServerEntry, ServerState, ServerStatus, parse_servers,
};
use tunacode_tools::{Tool, ToolContext, ToolError, ToolKind, ToolSource, Workspace};

const WAIT: Duration = Duration::from_secs(20);

struct Harness {
    manager: McpManager,
    statuses: mpsc::UnboundedReceiver<ServerStatus>,
    dir: tempfile::TempDir,
}

impl Harness {
    /// A manager with `servers` (an `mcpServers` object), every fake logging to `<dir>/<name>.log`.
    fn start(servers: Value) -> Harness {
        let dir = tempfile::tempdir().expect("temp dir");
        let Value::Object(mut map) = servers else {
            panic!("servers must be an object")
        };
        for (name, entry) in map.iter_mut() {
            if entry.get("command").is_some() && entry.get("env").is_none() {
                let log = dir.path().join(format!("{name}.log"));
                entry["env"] = json!({"FAKE_MCP_LOG": log});
            }
        }
        let entries: Vec<ServerEntry> =
            parse_servers(&map, ConfigSource::User, &|v| std::env::var(v).ok());
        let (tx, statuses) = mpsc::unbounded_channel();
        let manager = McpManager::new(
            dir.path(),
            Arc::new(move |status| {
                let _ = tx.send(status);
            }),
        );
        manager.start(entries);
        Harness {
            manager,
            statuses,
            dir,
        }
    }

    /// Waits until `name`'s status is one `accept` takes (its current status counts).
    async fn wait_for(
        &mut self,
        name: &str,
        accept: impl Fn(&ServerState) -> bool,
    ) -> ServerStatus {
        self.wait_until(name, |s| accept(&s.state)).await
    }

    /// Waits until `name`'s whole status is one `accept` takes (its current status counts).
    async fn wait_until(
        &mut self,
        name: &str,
        accept: impl Fn(&ServerStatus) -> bool,
    ) -> ServerStatus {
        let now = self.manager.statuses().into_iter().find(|s| s.name == name);
        if let Some(status) = now.filter(|s| accept(s)) {
            return status;
        }
        let found = tokio::time::timeout(WAIT, async {
            while let Some(status) = self.statuses.recv().await {
                if status.name == name && accept(&status) {
                    return status;
                }
            }
            panic!("the status channel closed")
        })
        .await;
        found
            .unwrap_or_else(|_| panic!("{name} never got there; now {:?}", self.manager.statuses()))
    }

    fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(format!("{name}.log"))).unwrap_or_default()
    }

    /// Waits until `name`'s log has a line `line`.
    async fn wait_for_log(&self, name: &str, line: &str) {
        let found = tokio::time::timeout(WAIT, async {
            loop {
                if self.log(name).lines().any(|l| l == line) {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await;
        assert!(
            found.is_ok(),
            "{name}'s log never had {line:?}: {}",
            self.log(name)
        );
    }

    fn tool(&self, name: &str) -> Arc<dyn Tool> {
        self.manager
            .tools()
            .into_iter()
            .find(|t| t.name() == name)
            .unwrap_or_else(|| panic!("no tool {name}"))
    }
}

fn fake(args: &[&str]) -> Value {
    json!({"command": tunacode_testkit::fake_mcp_binary(), "args": args})
}

fn ctx(dir: &Path) -> ToolContext {
    ToolContext {
        workspace: Workspace::new(dir),
        cancel: CancellationToken::new(),
        exec: Default::default(),
        output: None,
        call_id: String::new(),
    }
}

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

#[tokio::test]
async fn a_2026_07_28_server_is_discovered_and_its_tools_are_called() {
    let mut h = Harness::start(json!({"modern": fake(&[])}));
    let ready = h.wait_for("modern", |s| *s == ServerState::Ready).await;
    assert_eq!(ready.protocol.as_deref(), Some("2026-07-28"));
    assert!(
        ready.tools.contains(&"mcp__modern__echo".to_string()),
        "{:?}",
        ready.tools
    );
    let log = h.log("modern");
    assert!(log.contains("discover"), "{log}");
    assert!(
        !log.contains("initialize"),
        "the new lifecycle needs no initialize: {log}"
    );

    let echo = h.tool("mcp__modern__echo");
    assert_eq!(
        echo.kind(),
        ToolKind::Execute,
        "MCP tools are approved like commands"
    );
    assert!(echo.description().contains("Echoes"));
    assert!(
        echo.parameters().get("$schema").is_none(),
        "{}",
        echo.parameters()
    );
    let out = echo
        .call(args(json!({"message": "hi"})), &ctx(h.dir.path()))
        .await
        .expect("echo answers");
    assert_eq!(out.content, "echo: hi");

    let failed = h
        .tool("mcp__modern__fail")
        .call(Map::new(), &ctx(h.dir.path()))
        .await;
    assert_eq!(
        failed,
        Err(ToolError::Retry("the fake tool failed on purpose".into())),
        "an isError result goes back to the model as a tool error"
    );
    h.manager.shutdown().await;
}

#[tokio::test]
async fn a_2025_11_25_server_falls_back_to_initialize_and_its_tool_list_can_change() {
    let mut h = Harness::start(json!({"old": fake(&["--legacy"])}));
    let ready = h.wait_for("old", |s| *s == ServerState::Ready).await;
    assert_eq!(ready.protocol.as_deref(), Some("2025-11-25"));
    let log = h.log("old");
    assert!(
        log.contains("discover") && log.contains("initialize"),
        "{log}"
    );
    assert!(!ready.tools.contains(&"mcp__old__extra".to_string()));

    let grow = h.tool("mcp__old__grow");
    grow.call(Map::new(), &ctx(h.dir.path()))
        .await
        .expect("grow runs");
    let grown = h
        .wait_until("old", |s| s.tools.contains(&"mcp__old__extra".to_string()))
        .await;
    assert_eq!(grown.state, ServerState::Ready);
    let extra = h.tool("mcp__old__extra");
    let out = extra
        .call(Map::new(), &ctx(h.dir.path()))
        .await
        .expect("extra runs");
    assert_eq!(out.content, "extra ran");
    h.manager.shutdown().await;
}

#[tokio::test]
async fn an_interrupted_call_is_cancelled_on_the_server() {
    let mut h = Harness::start(json!({"s": fake(&[])}));
    h.wait_for("s", |s| *s == ServerState::Ready).await;
    let slow = h.tool("mcp__s__slow");
    let context = ctx(h.dir.path());
    let cancel = context.cancel.clone();
    let call = tokio::spawn(async move { slow.call(Map::new(), &context).await });
    h.wait_for_log("s", "call slow").await;
    cancel.cancel();
    let result = tokio::time::timeout(WAIT, call)
        .await
        .expect("the call ends")
        .expect("no panic");
    assert_eq!(result, Err(ToolError::Cancelled));
    h.wait_for_log("s", "cancelled slow").await;
    h.manager.shutdown().await;
}

#[tokio::test]
async fn read_only_hints_count_only_when_the_user_trusts_them() {
    let mut h = Harness::start(json!({
        "trusted": {"command": tunacode_testkit::fake_mcp_binary(), "trustReadOnlyHints": true},
        "plain": fake(&[]),
    }));
    h.wait_for("trusted", |s| *s == ServerState::Ready).await;
    h.wait_for("plain", |s| *s == ServerState::Ready).await;
    assert_eq!(h.tool("mcp__trusted__peek").kind(), ToolKind::ReadOnly);
    assert_eq!(h.tool("mcp__trusted__echo").kind(), ToolKind::Execute);
    assert_eq!(h.tool("mcp__plain__peek").kind(), ToolKind::Execute);
    h.manager.shutdown().await;
}

#[tokio::test]
async fn failures_at_start_are_reported_with_their_reason_and_others_still_start() {
    let mut h = Harness::start(json!({
        "broken": fake(&["--crash"]),
        "late": {"command": tunacode_testkit::fake_mcp_binary(), "args": ["--delay-ms", "5000"],
                 "startupTimeoutSec": 0.5},
        "missing": {"command": "/nonexistent/mcp-server"},
        "off": {"command": "x", "disabled": true},
        "good": fake(&[]),
    }));
    let broken = h
        .wait_for("broken", |s| matches!(s, ServerState::Failed(_)))
        .await;
    let ServerState::Failed(reason) = broken.state else {
        unreachable!()
    };
    assert!(reason.contains("exited at start"), "{reason}");
    assert!(
        reason.contains("cannot read its configuration"),
        "stderr is shown: {reason}"
    );
    let late = h
        .wait_for("late", |s| matches!(s, ServerState::Failed(_)))
        .await;
    assert_eq!(
        late.state,
        ServerState::Failed("did not start within 0.5 s".into())
    );
    let missing = h
        .wait_for("missing", |s| matches!(s, ServerState::Failed(_)))
        .await;
    assert!(
        format!("{:?}", missing.state).contains("could not start"),
        "{missing:?}"
    );
    h.wait_for("good", |s| *s == ServerState::Ready).await;
    let statuses = h.manager.statuses();
    let off = statuses.iter().find(|s| s.name == "off").expect("listed");
    assert_eq!(off.state, ServerState::Disabled);
    h.manager.shutdown().await;
}

#[tokio::test]
async fn shutdown_stops_every_server_process() {
    let mut h = Harness::start(json!({"a": fake(&[]), "b": fake(&["--legacy"])}));
    h.wait_for("a", |s| *s == ServerState::Ready).await;
    h.wait_for("b", |s| *s == ServerState::Ready).await;
    let pids: Vec<PathBuf> = ["a", "b"]
        .iter()
        .map(|n| {
            let log = h.log(n);
            let pid = log
                .lines()
                .find_map(|l| l.strip_prefix("pid "))
                .expect("pid logged")
                .to_string();
            PathBuf::from(format!("/proc/{pid}"))
        })
        .collect();
    assert!(pids.iter().all(|p| p.exists()));
    tokio::time::timeout(WAIT, h.manager.shutdown())
        .await
        .expect("shutdown ends");
    for pid in &pids {
        assert!(!pid.exists(), "{} still runs", pid.display());
    }
    assert!(
        h.manager
            .statuses()
            .iter()
            .all(|s| s.state == ServerState::Stopped)
    );
    assert!(h.manager.tools().is_empty());
}

#[tokio::test]
async fn a_2026_07_28_server_reports_tool_changes_through_its_subscription() {
    let mut h = Harness::start(json!({"new": fake(&[])}));
    h.wait_for("new", |s| *s == ServerState::Ready).await;
    let grow = h.tool("mcp__new__grow");
    grow.call(Map::new(), &ctx(h.dir.path()))
        .await
        .expect("grow runs");
    let grown = h
        .wait_until("new", |s| s.tools.contains(&"mcp__new__extra".to_string()))
        .await;
    assert_eq!(grown.protocol.as_deref(), Some("2026-07-28"));
    h.manager.shutdown().await;
}

#[tokio::test]
async fn a_stdio_server_starts_from_the_given_environment_plus_its_own() {
    let dir = tempfile::tempdir().expect("temp dir");
    let seen = dir.path().join("env.txt");
    let script = format!(
        "env > {}; exec {}",
        seen.display(),
        tunacode_testkit::fake_mcp_binary().display()
    );
    let servers = json!({"wrapped": {"command": "sh", "args": ["-c", script],
                                     "env": {"OWN_VAR": "from-its-config"}}});
    let Value::Object(map) = servers else {
        unreachable!()
    };
    let entries = parse_servers(&map, ConfigSource::User, &|v| std::env::var(v).ok());
    let path = std::env::var_os("PATH").unwrap_or_default();
    let base = vec![
        ("PATH".into(), path),
        ("GIVEN_VAR".into(), "from-the-agent".into()),
    ];
    let (tx, mut statuses) = mpsc::unbounded_channel();
    let manager = McpManager::with_env(
        dir.path(),
        Arc::new(move |status| {
            let _ = tx.send(status);
        }),
        Some(Arc::new(base)),
    );
    manager.start(entries);
    tokio::time::timeout(WAIT, async {
        while let Some(status) = statuses.recv().await {
            if status.state == ServerState::Ready {
                return;
            }
        }
    })
    .await
    .expect("the server starts");
    let env = std::fs::read_to_string(&seen).expect("the server wrote its environment");
    assert!(
        env.lines().any(|l| l == "GIVEN_VAR=from-the-agent"),
        "{env}"
    );
    assert!(env.lines().any(|l| l == "OWN_VAR=from-its-config"), "{env}");
    assert!(
        !env.lines().any(|l| l.starts_with("HOME=")),
        "nothing else of the agent's environment: {env}"
    );
    manager.shutdown().await;
}
