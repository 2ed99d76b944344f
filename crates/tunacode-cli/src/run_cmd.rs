//! `tunacode run`: one task, headless. Builds the agent from the resolved settings, renders its event
//! stream, turns Ctrl+C / SIGTERM into an abort through the engine's cancellation path, and maps how the
//! request ended to the exit code.

use std::io::{IsTerminal, Read};
use std::sync::Arc;

use anyhow::{Context, bail};
use serde_json::json;
use tokio_util::sync::CancellationToken;
use tunacode_core::mentions::expand_mentions;
use tunacode_core::{
    Agent, Approver, AutoApprove, ClientCache, DenyAll, EventSink, RequestError, RunOutcome,
    Session, SessionHandle,
};
use tunacode_protocol::FinishReason;
use tunacode_store::{SessionStore, project_id};
use tunacode_tools::{ToolSet, Workspace};

use crate::approval_prompt::TtyApprover;
use crate::args::RunArgs;
use crate::output::{Renderer, RunResult};
use crate::resolve::{Resolved, resolve};

/// The task finished.
pub const EXIT_OK: u8 = 0;
/// Something failed.
pub const EXIT_ERROR: u8 = 1;
/// The iteration limit stopped the task.
pub const EXIT_ITERATION_LIMIT: u8 = 3;
/// The time limit stopped the task.
pub const EXIT_TIMEOUT: u8 = 4;
/// The user interrupted.
pub const EXIT_INTERRUPTED: u8 = 130;

/// Told to the model when it may not write or run commands.
const NO_APPROVAL_REASON: &str = "this run is non-interactive and was not started with --yes, so \
    writes and commands are not allowed. Do not retry them; explain what you would change or run instead.";

/// Runs `tunacode run`; returns the exit code.
pub async fn run(args: RunArgs) -> anyhow::Result<u8> {
    let prompt = read_prompt(&args.prompt)?;
    let resolved = resolve(
        args.model.as_deref(),
        args.base_url.as_deref(),
        args.wire_api.as_deref(),
        args.cwd.as_deref(),
        args.max_iterations,
        args.timeout,
    )?;
    crate::logging::init(&resolved.paths.log_dir);
    let store = SessionStore::new(&resolved.paths.sessions_dir);
    let session = open_session(&store, &resolved, &args)?;
    let session_id = session.id.clone();
    let (events, mut rx) = EventSink::channel();
    let mut renderer = Renderer::new(args.output, std::io::stdout(), std::io::stderr());
    let approver: Arc<dyn Approver> = if args.yes {
        Arc::new(AutoApprove)
    } else if TtyApprover::available() {
        Arc::new(TtyApprover)
    } else {
        renderer.note(
            "note: writes and commands will be refused (no terminal; pass --yes to allow them)",
        );
        Arc::new(DenyAll {
            reason: NO_APPROVAL_REASON.into(),
        })
    };
    let workspace = Workspace::new(&resolved.cwd);
    let prompt = expand_mentions(&prompt, &workspace);
    if !prompt.attached.is_empty() {
        renderer.note(&format!("note: attached {}", prompt.attached.join(", ")));
    }
    let prompt = prompt.text;
    let tools = ToolSet::builtin_with_todos(&session.todos);
    let agent = Arc::new(Agent::new(
        resolved.options.clone(),
        resolved.provider.clone(),
        ClientCache::default(),
        tools,
        workspace,
        approver,
        SessionHandle::new(session),
        Some(store),
        events,
    ));
    if args.plan {
        agent.set_plan_mode(true);
    }
    let cancel = CancellationToken::new();
    let signals = tokio::spawn(watch_signals(cancel.clone()));
    let mut task = {
        let (agent, cancel) = (agent.clone(), cancel.clone());
        tokio::spawn(async move { agent.process_request(&prompt, cancel).await })
    };
    let outcome = loop {
        tokio::select! {
            Some(event) = rx.recv() => renderer.event(&event),
            joined = &mut task => break joined.context("the agent task failed")?,
        }
    };
    while let Ok(event) = rx.try_recv() {
        renderer.event(&event);
    }
    signals.abort();
    let request_id = agent.session().lock().runtime.request_id.clone();
    let result = run_result(outcome, session_id, request_id, resolved.model.to_string());
    let code = result.exit_code;
    renderer.finish(result);
    Ok(code)
}

/// The prompt from the arguments, or from stdin for `-` or when stdin is piped.
fn read_prompt(words: &[String]) -> anyhow::Result<String> {
    let from_stdin = words == ["-"] || (words.is_empty() && !std::io::stdin().is_terminal());
    let prompt = if from_stdin {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read the prompt from stdin")?;
        text
    } else {
        words.join(" ")
    };
    if prompt.trim().is_empty() {
        bail!("no task given: tunacode run \"what to do\"");
    }
    Ok(prompt)
}

fn open_session(
    store: &SessionStore,
    resolved: &Resolved,
    args: &RunArgs,
) -> anyhow::Result<Session> {
    let project = project_id(&resolved.cwd);
    let id = match (&args.session, args.continue_last) {
        (Some(id), _) => Some(id.clone()),
        (None, true) => {
            let (sessions, _) = store.list(&project)?;
            let latest = sessions.first().with_context(|| {
                format!(
                    "no saved session to continue for {}",
                    resolved.cwd.display()
                )
            })?;
            Some(latest.session_id.clone())
        }
        (None, false) => None,
    };
    match id {
        Some(id) => Ok(Session::from_file(store.load(&project, &id)?)),
        None => Ok(Session::new(&resolved.cwd, &resolved.model.to_string())),
    }
}

/// Ctrl+C or SIGTERM aborts the request through the engine; a second Ctrl+C exits at once.
async fn watch_signals(cancel: CancellationToken) {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let terminated = async {
        match term.as_mut() {
            Some(s) => {
                s.recv().await;
            }
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminated => {}
    }
    cancel.cancel();
    if tokio::signal::ctrl_c().await.is_ok() {
        std::process::exit(i32::from(EXIT_INTERRUPTED));
    }
}

fn run_result(
    outcome: Result<RunOutcome, RequestError>,
    session_id: String,
    request_id: String,
    model: String,
) -> RunResult {
    let mut result = RunResult {
        status: String::new(),
        exit_code: EXIT_OK,
        session_id,
        request_id,
        model,
        iterations: 0,
        response: String::new(),
        usage: Default::default(),
        error: None,
        limit_summary: None,
    };
    match outcome {
        Ok(outcome) => {
            result.iterations = outcome.iterations;
            result.response = outcome.response;
            let (status, code) = match outcome.reason {
                FinishReason::Completed => ("completed", EXIT_OK),
                FinishReason::Answered => ("answered", EXIT_OK),
                FinishReason::IterationLimit => ("iteration_limit", EXIT_ITERATION_LIMIT),
                FinishReason::PlanPresented => ("plan_presented", EXIT_OK),
            };
            (result.status, result.exit_code) = (status.to_string(), code);
        }
        Err(err) => {
            let (status, code) = match &err {
                RequestError::Aborted => ("aborted", EXIT_INTERRUPTED),
                RequestError::TimedOut(_) => ("timeout", EXIT_TIMEOUT),
                _ => ("error", EXIT_ERROR),
            };
            (result.status, result.exit_code) = (status.to_string(), code);
            result.error = Some(json!({"kind": err.kind(), "message": err.to_string()}));
        }
    }
    result
}
