//! A test editor: the crate's client side connected in process to `tunacode_acp::serve_on`, with the
//! fake provider behind the agent. It records every update, permission request and file request,
//! answers permissions from a queue and serves files from its "unsaved buffers".

#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    CancelNotification, ClientCapabilities, ContentBlock, FileSystemCapabilities,
    InitializeRequest, InitializeResponse, NewSessionRequest, PermissionOptionKind, PromptRequest,
    PromptResponse, ReadTextFileRequest, ReadTextFileResponse, RequestPermissionOutcome,
    RequestPermissionRequest, RequestPermissionResponse, SelectedPermissionOutcome,
    SessionNotification, SessionUpdate, SetSessionModeRequest, StopReason, TextContent,
    WriteTextFileRequest, WriteTextFileResponse,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Channel, Client, JsonRpcRequest};
use tokio::sync::{Notify, mpsc};
use tunacode_core::Paths;
use tunacode_core::SettingsFlags;
use tunacode_testkit::{FakeProvider, TestEnv, Turn};

/// How long any one wait may take before the test fails.
pub const LIMIT: Duration = Duration::from_secs(20);

/// What the editor saw, shared with its handlers.
#[derive(Default)]
pub struct Seen {
    pub permissions: Vec<RequestPermissionRequest>,
    pub reads: Vec<PathBuf>,
    pub writes: Vec<(PathBuf, String)>,
}

/// The editor's state shared with its handlers.
#[derive(Default)]
struct Shared {
    seen: Mutex<Seen>,
    answers: Mutex<VecDeque<PermissionOptionKind>>,
    buffers: Mutex<HashMap<PathBuf, String>>,
    /// When set, permission requests are held unanswered (as a user who has not decided yet).
    hold: Mutex<Option<Vec<Responder<RequestPermissionResponse>>>>,
    held: Notify,
}

/// One editor connected to one in-process agent.
pub struct Editor {
    pub cx: ConnectionTo<Agent>,
    updates: mpsc::UnboundedReceiver<SessionNotification>,
    shared: Arc<Shared>,
    done: Arc<Notify>,
}

/// The agent's paths inside a test environment.
pub fn paths(env: &TestEnv) -> Paths {
    let home = env.workspace().parent().unwrap().to_path_buf();
    Paths {
        config_file: env.config_file(),
        sessions_dir: env.sessions_dir(),
        log_dir: home.join("state"),
        models_cache: home.join("data/tunacode/models.json"),
        mcp_approvals: home.join("data/tunacode/mcp_approvals.json"),
    }
}

/// Model flags pointing at `fake`.
pub fn flags(fake: &FakeProvider) -> SettingsFlags {
    SettingsFlags {
        model: Some("openai:test-model".into()),
        base_url: Some(fake.base_url()),
        ..SettingsFlags::default()
    }
}

impl Editor {
    /// Starts an agent with `flags` over `env` and connects to it (not yet initialized).
    pub async fn connect(env: &TestEnv, flags: SettingsFlags) -> Editor {
        let (agent_end, client_end) = Channel::duplex();
        let options = tunacode_acp::AcpOptions {
            paths: paths(env),
            flags,
        };
        tokio::spawn(tunacode_acp::serve_on(options, agent_end));
        let shared = Arc::new(Shared::default());
        let (updates_tx, updates) = mpsc::unbounded_channel();
        let (cx_tx, cx_rx) = tokio::sync::oneshot::channel();
        let done = Arc::new(Notify::new());
        let (s1, s2, s3, finished) = (shared.clone(), shared.clone(), shared.clone(), done.clone());
        let client = Client
            .v1()
            .on_receive_notification(
                async move |n: SessionNotification, _cx| {
                    let _ = updates_tx.send(n);
                    Ok(())
                },
                agent_client_protocol::on_receive_notification!(),
            )
            .on_receive_request(
                async move |request: RequestPermissionRequest, responder: Responder<_>, _cx| {
                    let mut hold = s1.hold.lock().unwrap();
                    if let Some(held) = hold.as_mut() {
                        s1.seen.lock().unwrap().permissions.push(request);
                        held.push(responder);
                        s1.held.notify_one();
                        return Ok(());
                    }
                    drop(hold);
                    responder.respond(answer_permission(&s1, request))
                },
                agent_client_protocol::on_receive_request!(),
            )
            .on_receive_request(
                async move |request: ReadTextFileRequest, responder, _cx| {
                    s2.seen.lock().unwrap().reads.push(request.path.clone());
                    let buffered = s2.buffers.lock().unwrap().get(&request.path).cloned();
                    match buffered.or_else(|| std::fs::read_to_string(&request.path).ok()) {
                        Some(text) => responder.respond(ReadTextFileResponse::new(text)),
                        None => responder.respond_with_error(agent_client_protocol::Error::new(
                            -32002,
                            "no such file",
                        )),
                    }
                },
                agent_client_protocol::on_receive_request!(),
            )
            .on_receive_request(
                async move |request: WriteTextFileRequest, responder, _cx| {
                    let (path, text) = (request.path.clone(), request.content.clone());
                    s3.seen
                        .lock()
                        .unwrap()
                        .writes
                        .push((path.clone(), text.clone()));
                    s3.buffers.lock().unwrap().insert(path, text);
                    responder.respond(WriteTextFileResponse::new())
                },
                agent_client_protocol::on_receive_request!(),
            )
            .connect_with(client_end, async move |cx: ConnectionTo<Agent>| {
                let _ = cx_tx.send(cx.clone());
                finished.notified().await;
                Ok(())
            });
        tokio::spawn(client);
        let cx = tokio::time::timeout(LIMIT, cx_rx).await.unwrap().unwrap();
        Editor {
            cx,
            updates,
            shared,
            done,
        }
    }

    /// Sends a request and waits for its answer.
    pub async fn request<R: JsonRpcRequest>(
        &self,
        request: R,
    ) -> Result<R::Response, agent_client_protocol::Error> {
        tokio::time::timeout(LIMIT, self.cx.send_request(request).block_task())
            .await
            .expect("the agent did not answer in time")
    }

    /// `initialize`, with or without the editor's file system.
    pub async fn initialize(&self, fs: bool) -> InitializeResponse {
        let caps = ClientCapabilities::new().fs(FileSystemCapabilities::new()
            .read_text_file(fs)
            .write_text_file(fs));
        self.request(InitializeRequest::new(ProtocolVersion::V1).client_capabilities(caps))
            .await
            .unwrap()
    }

    /// `initialize` with these capabilities.
    pub async fn initialize_with(&self, caps: ClientCapabilities) -> InitializeResponse {
        self.request(InitializeRequest::new(ProtocolVersion::V1).client_capabilities(caps))
            .await
            .unwrap()
    }

    /// `initialize` then `session/new` in `cwd`; the session id.
    pub async fn new_session(&self, cwd: &Path) -> String {
        self.initialize(false).await;
        self.open_session(cwd).await
    }

    /// `session/new` in `cwd` (after `initialize`); the session id.
    pub async fn open_session(&self, cwd: &Path) -> String {
        let response = self.request(NewSessionRequest::new(cwd)).await.unwrap();
        response.session_id.to_string()
    }

    /// `session/cancel` for `session`.
    pub fn cancel(&self, session: &str) {
        self.cx
            .send_notification(CancelNotification::new(session.to_string()))
            .unwrap();
    }

    /// Switches the session's mode.
    pub async fn set_mode(&self, session: &str, mode: &str) {
        self.request(SetSessionModeRequest::new(
            session.to_string(),
            mode.to_string(),
        ))
        .await
        .unwrap();
    }

    /// Sends a text prompt and waits for its stop reason.
    pub async fn prompt(&self, session: &str, text: &str) -> PromptResponse {
        self.request(PromptRequest::new(
            session.to_string(),
            vec![ContentBlock::Text(TextContent::new(text))],
        ))
        .await
        .unwrap()
    }

    /// Queues the answers to the next permission requests.
    pub fn answer_with(&self, kinds: &[PermissionOptionKind]) {
        self.shared
            .answers
            .lock()
            .unwrap()
            .extend(kinds.iter().cloned());
    }

    /// Holds the next permission requests unanswered.
    pub fn hold_permissions(&self) {
        *self.shared.hold.lock().unwrap() = Some(Vec::new());
    }

    /// Waits until a permission request is held.
    pub async fn wait_for_held(&self) {
        loop {
            let notified = self.shared.held.notified();
            if self
                .shared
                .hold
                .lock()
                .unwrap()
                .as_ref()
                .is_some_and(|h| !h.is_empty())
            {
                return;
            }
            tokio::time::timeout(LIMIT, notified)
                .await
                .expect("no permission request in time");
        }
    }

    /// Answers the held permission requests `cancelled` (as the spec asks of a client on cancel).
    pub fn release_cancelled(&self) {
        let held = self.shared.hold.lock().unwrap().take().unwrap_or_default();
        for responder in held {
            responder
                .respond(RequestPermissionResponse::new(
                    RequestPermissionOutcome::Cancelled,
                ))
                .unwrap();
        }
    }

    /// Seeds an unsaved buffer.
    pub fn buffer(&self, path: &Path, text: &str) {
        self.shared
            .buffers
            .lock()
            .unwrap()
            .insert(path.to_path_buf(), text.into());
    }

    /// What the editor saw so far.
    pub fn seen<T>(&self, f: impl FnOnce(&Seen) -> T) -> T {
        f(&self.shared.seen.lock().unwrap())
    }

    /// The updates received so far (without waiting).
    pub fn drain(&mut self) -> Vec<SessionUpdate> {
        let mut out = Vec::new();
        while let Ok(n) = self.updates.try_recv() {
            out.push(n.update);
        }
        out
    }

    /// Waits for the next update matching `pred`, returning it (earlier ones are dropped).
    pub async fn wait_for(&mut self, pred: impl Fn(&SessionUpdate) -> bool) -> SessionUpdate {
        loop {
            let next = tokio::time::timeout(LIMIT, self.updates.recv())
                .await
                .expect("no matching update in time")
                .expect("the connection closed");
            if pred(&next.update) {
                return next.update;
            }
        }
    }
}

impl Drop for Editor {
    fn drop(&mut self) {
        self.done.notify_one();
    }
}

/// Picks the queued kind among the offered options (refusing when nothing is queued).
fn answer_permission(
    shared: &Shared,
    request: RequestPermissionRequest,
) -> RequestPermissionResponse {
    let kind = shared.answers.lock().unwrap().pop_front();
    let chosen = request
        .options
        .iter()
        .find(|o| Some(&o.kind) == kind.as_ref())
        .or_else(|| {
            request
                .options
                .iter()
                .find(|o| o.kind == PermissionOptionKind::RejectOnce)
        })
        .map(|o| o.option_id.clone());
    shared.seen.lock().unwrap().permissions.push(request);
    match chosen {
        Some(id) => RequestPermissionResponse::new(RequestPermissionOutcome::Selected(
            SelectedPermissionOutcome::new(id),
        )),
        None => RequestPermissionResponse::new(RequestPermissionOutcome::Cancelled),
    }
}

/// A fake provider serving `script` and a fresh test environment.
pub fn setup(script: Vec<Turn>) -> (TestEnv, FakeProvider) {
    (TestEnv::new().unwrap(), FakeProvider::start(script))
}

/// The text of a message chunk update.
pub fn chunk_text(update: &SessionUpdate) -> Option<&str> {
    match update {
        SessionUpdate::AgentMessageChunk(c) | SessionUpdate::UserMessageChunk(c) => {
            match &c.content {
                ContentBlock::Text(t) => Some(&t.text),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether `response` stopped for `reason`.
pub fn stopped(response: &PromptResponse, reason: StopReason) -> bool {
    response.stop_reason == reason
}
