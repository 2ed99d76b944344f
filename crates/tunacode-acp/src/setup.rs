//! Opening a session (`session/new`, `session/load`): the settings for its working directory, the
//! runtime over it, the editor's MCP servers handed to the runtime, the saved history replayed; and
//! `session/list`.

use std::path::Path;
use std::sync::Arc;

use agent_client_protocol::v1::schema::{
    ListSessionsRequest, ListSessionsResponse, LoadSessionRequest, LoadSessionResponse, McpServer,
    NewSessionRequest, NewSessionResponse, SessionInfo,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error};
use tunacode_core::runtime::{LaunchError, LaunchOptions};
use tunacode_core::{EditorFiles, Op, Runtime, RuntimeEvent, SessionChoice};
use tunacode_protocol::{McpServerSpec, McpTransport};

use crate::client_fs::ClientFiles;
use crate::modes::{ASK_MODE, config_options, mode_state, offered_models};
use crate::session::Session;
use crate::shared::Server;

/// A session to open, with the responder of the request that asked.
pub(crate) enum Opening {
    /// `session/new`.
    New(NewSessionRequest, Responder<NewSessionResponse>),
    /// `session/load`.
    Load(LoadSessionRequest, Responder<LoadSessionResponse>),
}

/// Opens the session and answers its request; then the session runs in a task of its own.
pub(crate) async fn open(
    server: Arc<Server>,
    cx: ConnectionTo<Client>,
    opening: Opening,
) -> Result<(), Error> {
    match opening {
        Opening::New(request, responder) => {
            let started = start(&server, &cx, &request.cwd, SessionChoice::New).await;
            let mut session = match started {
                Ok(session) => session,
                Err(e) => return responder.respond_with_error(e),
            };
            session.add_mcp_servers(&request.mcp_servers);
            let response = NewSessionResponse::new(session.id().to_string())
                .modes(mode_state(ASK_MODE))
                .config_options(config_options(
                    &session.models,
                    session.model(),
                    session.budget,
                ));
            run(&server, session, |_| responder.respond(response))?;
        }
        Opening::Load(request, responder) => {
            let id = request.session_id.to_string();
            if !Runtime::is_session_id(&id) {
                return responder.respond_with_error(
                    Error::invalid_params().data(serde_json::json!(format!("no session `{id}`"))),
                );
            }
            // Loading a session open in this connection starts it over from what it saved.
            let _lifecycle = server.sessions.lifecycle().await;
            server.sessions.close_unlocked(&id).await;
            let choice = SessionChoice::Resume(id);
            let mut session = match start(&server, &cx, &request.cwd, choice).await {
                Ok(session) => session,
                Err(e) => return responder.respond_with_error(e),
            };
            session.add_mcp_servers(&request.mcp_servers);
            session.replay_history()?;
            let response = LoadSessionResponse::new()
                .modes(mode_state(session.mode()))
                .config_options(config_options(
                    &session.models,
                    session.model(),
                    session.budget,
                ));
            run(&server, session, |_| responder.respond(response))?;
        }
    }
    Ok(())
}

/// Registers the session (requests for it are routed from now on, waiting in its queue), answers the
/// request that opened it with `respond`, then runs it until it closes or its runtime stops: its
/// updates never precede that answer.
pub(crate) fn run(
    server: &Arc<Server>,
    session: Session,
    respond: impl FnOnce(&str) -> Result<(), Error>,
) -> Result<(), Error> {
    let id = session.id().to_string();
    let registered = server.sessions.register(&id);
    let answered = respond(&id);
    server
        .sessions
        .started(&id, tokio::spawn(session.run(registered)));
    answered
}

/// Resolves the settings for `cwd`, starts the runtime and waits for its session to open.
pub(crate) async fn start(
    server: &Server,
    cx: &ConnectionTo<Client>,
    cwd: &Path,
    choice: SessionChoice,
) -> Result<Session, Error> {
    if !cwd.is_absolute() || !cwd.is_dir() {
        return Err(Error::invalid_params().data(serde_json::json!(format!(
            "cwd must be an absolute path to a directory: {}",
            cwd.display()
        ))));
    }
    let mut flags = server.options.flags.clone();
    flags.cwd = Some(cwd.to_path_buf());
    let offers = server.client();
    let client_files = ClientFiles::new(cx.clone(), offers);
    let mut options = LaunchOptions::new(server.options.paths.clone(), flags);
    options.session = choice;
    options.editor_files = client_files.clone().map(|f| f as Arc<dyn EditorFiles>);
    let (runtime, mut events) = Runtime::launch(options).await.map_err(|e| match e {
        LaunchError::SessionNotFound(message) => Error::new(-32002, message),
        e => Error::new(-32603, e.to_string()),
    })?;
    let view = match events.recv().await {
        Some(RuntimeEvent::SessionOpened(view)) => *view,
        _ => return Err(Error::new(-32603, "the session did not open")),
    };
    if let Some(files) = &client_files {
        files.set_session(&view.session_id);
    }
    let catalogue = Runtime::catalogue(&server.options.paths)
        .await
        .unwrap_or_default();
    let models = offered_models(&catalogue, &view.model.model);
    let root = view.workspace.clone();
    let files = client_files.map(|f| f as Arc<dyn EditorFiles>);
    let mut session = Session::new(cx.clone(), runtime, events, view, root, files, models);
    session.notices = offers.notices;
    session.hunk_review = offers.hunks;
    Ok(session)
}

/// The editor's MCP servers as the runtime takes them (stdio and HTTP; SSE is refused by name).
pub(crate) fn mcp_specs(servers: &[McpServer]) -> Vec<McpServerSpec> {
    servers.iter().map(mcp_spec).collect()
}

fn mcp_spec(server: &McpServer) -> McpServerSpec {
    let (name, transport) = match server {
        McpServer::Stdio(s) => (
            s.name.clone(),
            McpTransport::Stdio {
                command: s.command.to_string_lossy().into_owned(),
                args: s.args.clone(),
                env: s
                    .env
                    .iter()
                    .map(|v| (v.name.clone(), v.value.clone()))
                    .collect(),
                cwd: None,
            },
        ),
        McpServer::Http(s) => (
            s.name.clone(),
            McpTransport::Http {
                url: s.url.clone(),
                headers: s
                    .headers
                    .iter()
                    .map(|h| (h.name.clone(), h.value.clone()))
                    .collect(),
            },
        ),
        McpServer::Sse(s) => (
            s.name.clone(),
            McpTransport::Unsupported {
                reason: format!(
                    "MCP server `{}`: the SSE transport is not supported; use HTTP",
                    s.name
                ),
            },
        ),
        other => (
            format!("{other:?}").chars().take(40).collect(),
            McpTransport::Unsupported {
                reason: "this MCP server kind is not supported".to_string(),
            },
        ),
    };
    McpServerSpec { name, transport }
}

/// `session/list`: the saved sessions of `cwd`'s project (the agent's working directory's without
/// one), newest first, with their first prompt as the title.
pub(crate) async fn list_sessions(
    server: &Server,
    request: ListSessionsRequest,
    responder: Responder<ListSessionsResponse>,
) -> Result<(), Error> {
    let listed = Runtime::list_sessions(&server.options.paths, request.cwd).await;
    match listed {
        Ok((cwd, sessions)) => {
            let infos = sessions
                .into_iter()
                .map(|s| {
                    SessionInfo::new(s.session_id.clone(), cwd.clone())
                        .title(s.title.clone())
                        .updated_at(s.last_modified.clone())
                })
                .collect();
            responder.respond(ListSessionsResponse::new(infos))
        }
        Err(e) => responder.respond_with_error(Error::new(-32603, e)),
    }
}

impl Session {
    /// Hands the editor's MCP servers to the runtime.
    pub(crate) fn add_mcp_servers(&mut self, servers: &[McpServer]) {
        if !servers.is_empty() {
            self.submit(Op::AddMcpServers {
                servers: mcp_specs(servers),
            });
        }
    }
}
