//! The connection: `initialize`, the session requests, and `session/cancel`, each handed to the session
//! it names. Handlers run on the connection's dispatch loop, so they only route: opening a session and
//! running a prompt happen in tasks of their own.

use std::sync::{Arc, Mutex};

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, CancelNotification, CloseSessionRequest, CloseSessionResponse,
    ForkSessionRequest, Implementation, InitializeRequest, InitializeResponse, ListSessionsRequest,
    LoadSessionRequest, McpCapabilities, NewSessionRequest, PromptCapabilities, PromptRequest,
    SessionCapabilities, SessionCloseCapabilities, SessionForkCapabilities,
    SessionListCapabilities, SetSessionConfigOptionRequest, SetSessionModeRequest,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{
    Agent, Client, ConnectTo, HandleDispatchFrom, NullClose, NullRun, Stdio, V1,
};

use crate::command::Command;
use crate::open_sessions::OpenSessions;
use crate::shared::{AcpOptions, ClientOffers, Server};
use crate::{fork, setup};

/// Why serving stopped.
#[derive(Debug, thiserror::Error)]
pub enum AcpError {
    /// The connection failed (the transport broke, or the peer violated the protocol fatally).
    #[error("the editor connection failed: {0}")]
    Connection(#[from] agent_client_protocol::Error),
}

/// Serves ACP on stdin/stdout until stdin closes.
pub async fn serve(options: AcpOptions) -> Result<(), AcpError> {
    serve_on(options, Stdio::new()).await
}

/// Serves ACP over `transport` until it closes; then every session is stopped (a running request is
/// interrupted and saved) before it returns.
pub async fn serve_on(
    options: AcpOptions,
    transport: impl ConnectTo<Agent> + 'static,
) -> Result<(), AcpError> {
    let server = Arc::new(Server {
        options,
        client: Mutex::new(ClientOffers::default()),
        sessions: OpenSessions::default(),
    });
    let builder = Agent.v1().name("tunacode");
    let served = turn_handlers(session_handlers(builder, &server), &server)
        .connect_to(transport)
        .await;
    for id in server.sessions.ids() {
        server.sessions.close(&id).await;
    }
    Ok(served?)
}

/// The builder of the agent's side of a v1 connection.
type AgentBuilder<H> = agent_client_protocol::Builder<Agent, H, NullRun, NullClose, V1>;

/// `initialize` and the session requests that open, list and close sessions.
fn session_handlers<H: HandleDispatchFrom<Client>>(
    builder: AgentBuilder<H>,
    server: &Arc<Server>,
) -> AgentBuilder<impl HandleDispatchFrom<Client>> {
    let [s1, s2, s3, s4, s5, s6] = clones(server);
    builder
        .on_receive_request(
            async move |request: InitializeRequest, responder, _cx| {
                responder.respond(initialize(&s1, &request))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: NewSessionRequest, responder, cx| {
                spawn_open(&s2, cx, setup::Opening::New(request, responder))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: LoadSessionRequest, responder, cx| {
                spawn_open(&s3, cx, setup::Opening::Load(request, responder))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: ForkSessionRequest, responder, cx| {
                let (server, connection) = (s6.clone(), cx.clone());
                cx.spawn(async move { fork::fork(server, connection, request, responder).await })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: ListSessionsRequest, responder, cx| {
                let server = s4.clone();
                cx.spawn(async move { setup::list_sessions(&server, request, responder).await })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: CloseSessionRequest, responder: Responder<_>, cx| {
                // Out of the routing table now: later requests for it are refused.
                let id = request.session_id.to_string();
                let stopping = s5.sessions.begin_close(&id);
                let server = s5.clone();
                cx.spawn(async move {
                    if let Some(stopping) = stopping {
                        server.sessions.finish_close(&id, stopping).await;
                    }
                    // A load of it that was under way has registered it again: close that too.
                    server.sessions.close(&id).await;
                    responder.respond(CloseSessionResponse::new())
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
}

/// The requests about one session's turns, routed to the session's task.
fn turn_handlers<H: HandleDispatchFrom<Client>>(
    builder: AgentBuilder<H>,
    server: &Arc<Server>,
) -> AgentBuilder<impl HandleDispatchFrom<Client>> {
    let [s1, s2, s3, s4] = clones(server);
    builder
        .on_receive_request(
            async move |request: PromptRequest, responder: Responder<_>, _cx| {
                let id = request.session_id.to_string();
                s1.route(&id, Command::Prompt(request.prompt, responder))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionModeRequest, responder: Responder<_>, _cx| {
                let id = request.session_id.to_string();
                s2.route(
                    &id,
                    Command::SetMode(request.mode_id.to_string(), responder),
                )
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionConfigOptionRequest, responder: Responder<_>, _cx| {
                let id = request.session_id.to_string();
                s3.route(&id, Command::SetConfig(request, responder))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |notification: CancelNotification, _cx| {
                if let Some(queue) = s4.session(&notification.session_id.to_string()) {
                    let _ = queue.send(Command::Cancel);
                }
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
}

/// `N` handles on the server, one for each handler.
fn clones<const N: usize>(server: &Arc<Server>) -> [Arc<Server>; N] {
    std::array::from_fn(|_| server.clone())
}

/// Opens a session in a task of its own (settings, the saved history, the runtime start).
fn spawn_open(
    server: &Arc<Server>,
    cx: ConnectionTo<Client>,
    opening: setup::Opening,
) -> Result<(), agent_client_protocol::Error> {
    let server = server.clone();
    let connection = cx.clone();
    cx.spawn(async move { setup::open(server, connection, opening).await })
}

/// The `initialize` answer: protocol v1 (the version the editors ship; a client asking for a newer
/// one gets v1, the latest this agent speaks, as the spec's negotiation says), what the agent can do,
/// and who it is. Remembers what the client offers (its file system, notices).
fn initialize(server: &Server, request: &InitializeRequest) -> InitializeResponse {
    let caps = &request.client_capabilities;
    *server
        .client
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = ClientOffers {
        reads: caps.fs.read_text_file,
        writes: caps.fs.write_text_file,
        notices: caps.session.as_ref().is_some_and(|s| s.notices.is_some()),
        hunks: crate::hunks::offered(caps.meta.as_ref()),
    };
    let capabilities = AgentCapabilities::new()
        .load_session(true)
        .prompt_capabilities(PromptCapabilities::new().embedded_context(true).image(true))
        .mcp_capabilities(McpCapabilities::new().http(true))
        .session_capabilities(
            SessionCapabilities::new()
                .list(SessionListCapabilities::new())
                .close(SessionCloseCapabilities::new())
                .fork(SessionForkCapabilities::new()),
        );
    InitializeResponse::new(ProtocolVersion::V1)
        .agent_capabilities(capabilities)
        .agent_info(Implementation::new("tunacode", env!("CARGO_PKG_VERSION")).title("TunaCode"))
}
