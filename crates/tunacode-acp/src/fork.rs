//! `session/fork` (unstable in the spec; this agent offers it because its protocol library does,
//! behind its `unstable_session_fork` feature): the saved session is forked after its last prompt
//! into a new session (its own id, a link to the original, which stays as it is), which then opens
//! like `session/new`; the editor already shows its history, so it is not replayed.

use std::sync::Arc;

use agent_client_protocol::v1::schema::{ForkSessionRequest, ForkSessionResponse};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error};
use tunacode_core::checkpoints::RewindConfig;
use tunacode_core::saved_sessions::SavedSessions;
use tunacode_core::{Runtime, SessionChoice};

use crate::modes::{config_options, mode_state};
use crate::setup::{run, start};
use crate::shared::Server;

/// Forks the session and answers with the new one, which then runs in a task of its own.
pub(crate) async fn fork(
    server: Arc<Server>,
    cx: ConnectionTo<Client>,
    request: ForkSessionRequest,
    responder: Responder<ForkSessionResponse>,
) -> Result<(), Error> {
    let id = request.session_id.to_string();
    let invalid = |message: String| Error::invalid_params().data(serde_json::json!(message));
    if !Runtime::is_session_id(&id) || !request.cwd.is_absolute() {
        return responder.respond_with_error(invalid(format!("no session `{id}`")));
    }
    let (paths, cwd) = (server.options.paths.clone(), request.cwd.clone());
    let forked = tokio::task::spawn_blocking(move || {
        // The fork needs no snapshot: the bounds only shape snapshots.
        let saved = SavedSessions::new(&paths, &cwd, RewindConfig::default());
        saved.fork(&id, None).map_err(|e| e.to_string())
    })
    .await;
    let forked = match forked {
        Ok(Ok(forked)) => forked,
        Ok(Err(message)) => return responder.respond_with_error(invalid(message)),
        Err(e) => return responder.respond_with_error(Error::new(-32603, e.to_string())),
    };
    let choice = SessionChoice::Resume(forked.session_id);
    let mut session = match start(&server, &cx, &request.cwd, choice).await {
        Ok(session) => session,
        Err(e) => return responder.respond_with_error(e),
    };
    session.add_mcp_servers(&request.mcp_servers);
    let response = ForkSessionResponse::new(session.id().to_string())
        .modes(mode_state(session.mode()))
        .config_options(config_options(
            &session.models,
            session.model(),
            session.budget,
        ));
    run(&server, session, |_| responder.respond(response))
}
