//! Starting a conversation runtime against the fake provider, and waiting for its events.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use tokio::sync::mpsc::UnboundedReceiver;
use tunacode_core::runtime::OpFailure;
use tunacode_core::{
    Runtime, RuntimeConfig, RuntimeEvent, RuntimeHandle, RuntimeSettings, SessionChoice,
    SessionView, SettingsFlags,
};
use tunacode_store::Paths;

pub const WAIT: Duration = Duration::from_secs(20);

pub fn settings(dir: &std::path::Path, base_url: &str) -> RuntimeSettings {
    settings_in(dir, &dir.join("ws"), base_url)
}

/// Settings with the user's files in `dir` and the workspace `ws` (outside `dir`, the agent's own
/// data does not cover it).
pub fn settings_in(dir: &std::path::Path, ws: &std::path::Path, base_url: &str) -> RuntimeSettings {
    std::fs::create_dir_all(ws).unwrap();
    let paths = Paths {
        config_file: dir.join("tunacode.json"),
        sessions_dir: dir.join("sessions"),
        log_dir: dir.join("log"),
        models_cache: dir.join("models.json"),
        mcp_approvals: dir.join("mcp_approvals.json"),
    };
    let flags = SettingsFlags {
        model: Some("openai:test-model".into()),
        base_url: Some(base_url.into()),
        cwd: Some(ws.to_path_buf()),
        max_iterations: Some(10),
        ..SettingsFlags::default()
    };
    RuntimeSettings::resolve(&paths, &flags).unwrap()
}

pub async fn start(
    settings: RuntimeSettings,
    session: SessionChoice,
    interactive: bool,
) -> (RuntimeHandle, UnboundedReceiver<RuntimeEvent>) {
    let mut config = RuntimeConfig::new(settings);
    config.session = session;
    config.interactive = interactive;
    Runtime::start(config).await.unwrap()
}

/// Waits for the first event `pick` accepts.
pub async fn next<T>(
    rx: &mut UnboundedReceiver<RuntimeEvent>,
    pick: impl Fn(RuntimeEvent) -> Option<T>,
) -> T {
    let wait = async {
        loop {
            let event = rx.recv().await.expect("the runtime stopped");
            if let Some(found) = pick(event) {
                return found;
            }
        }
    };
    tokio::time::timeout(WAIT, wait)
        .await
        .expect("no such event in time")
}

pub fn opened(e: RuntimeEvent) -> Option<SessionView> {
    match e {
        RuntimeEvent::SessionOpened(view) => Some(*view),
        _ => None,
    }
}

pub fn failed(e: RuntimeEvent) -> Option<OpFailure> {
    match e {
        RuntimeEvent::OpFailed(f) => Some(f),
        _ => None,
    }
}

pub fn ended(e: RuntimeEvent) -> Option<Box<tunacode_core::RequestEnd>> {
    match e {
        RuntimeEvent::RequestEnded(end) => Some(end),
        _ => None,
    }
}
