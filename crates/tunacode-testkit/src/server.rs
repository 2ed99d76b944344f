//! [`FakeProvider`]: the HTTP server, on its own thread with its own tokio runtime.

use std::convert::Infallible;
use std::fmt;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use bytes::Bytes;
use futures::stream::{self, BoxStream, StreamExt};
use http_body_util::{Either, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{CONTENT_TYPE, HeaderName, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use crate::error::TestkitError;
pub use crate::fake_options::FakeOptions;
use crate::openai_chat::OpenAiChat;
use crate::recorded::RecordedRequest;
use crate::script::{Ending, Reply, Turn};
use crate::wire::{RenderContext, SseReply, WireFormat};

/// A scripted fake LLM provider listening on 127.0.0.1. The n-th request to the wire format's
/// endpoint gets the n-th [`Turn`]. Dropping it shuts the server down.
pub struct FakeProvider {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

type Body =
    Either<Full<Bytes>, StreamBody<BoxStream<'static, Result<Frame<Bytes>, std::io::Error>>>>;

struct Shared {
    format: Arc<dyn WireFormat>,
    script: Vec<Turn>,
    summary: Option<String>,
    served_models: Vec<String>,
    routing: crate::routes::Routing,
    cycle: bool,
    /// Requests are neither checked nor kept ([`FakeOptions::unchecked`]).
    unchecked: bool,
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    /// Shared with the handler that answers each (a 2 MB body is not copied to be kept).
    requests: Vec<Arc<RecordedRequest>>,
    turns_served: usize,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records `request` and, when `take_turn`, hands out the next turn with its 1-based number
    /// (`None` once the script is exhausted).
    fn record(&self, request: Arc<RecordedRequest>, take_turn: bool) -> Option<(Turn, usize)> {
        let mut state = self.lock();
        if !self.unchecked {
            state.requests.push(request);
        }
        let turn = if !take_turn {
            None
        } else {
            let index = state.turns_served;
            let turn = match self.script.get(index) {
                Some(turn) => Some(turn.clone()),
                None if self.cycle && !self.script.is_empty() => {
                    Some(self.script[index % self.script.len()].clone())
                }
                None => None,
            };
            if turn.is_some() {
                state.turns_served += 1;
            }
            turn.map(|t| (t, state.turns_served))
        };
        drop(state);
        self.changed.notify_all();
        turn
    }
}

impl FakeProvider {
    /// Starts an OpenAI Chat Completions fake on a random port.
    ///
    /// # Panics
    /// If the server cannot start (no loopback interface, thread spawn failure).
    pub fn start(script: Vec<Turn>) -> FakeProvider {
        FakeProvider::start_with(Arc::new(OpenAiChat), script, FakeOptions::default())
    }

    /// Starts a fake speaking `format`.
    ///
    /// # Panics
    /// If the server cannot start (e.g. `options.port` is taken); see [`FakeProvider::try_start_with`].
    pub fn start_with(
        format: Arc<dyn WireFormat>,
        script: Vec<Turn>,
        options: FakeOptions,
    ) -> FakeProvider {
        match FakeProvider::try_start_with(format, script, options) {
            Ok(provider) => provider,
            Err(e) => panic!("failed to start the fake provider: {e}"),
        }
    }

    /// Starts a fake speaking `format`, returning an error if the port cannot be bound.
    pub fn try_start_with(
        format: Arc<dyn WireFormat>,
        script: Vec<Turn>,
        options: FakeOptions,
    ) -> Result<FakeProvider, TestkitError> {
        let std_listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, options.port))?;
        std_listener.set_nonblocking(true)?;
        let addr = std_listener.local_addr()?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let listener = {
            let _guard = runtime.enter();
            TcpListener::from_std(std_listener)?
        };
        let shared = Arc::new(Shared {
            format,
            script,
            summary: options.summary,
            served_models: options.served_models,
            routing: crate::routes::Routing::new(options.routes, options.gather),
            cycle: options.cycle,
            unchecked: options.unchecked,
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
        });
        let (shutdown_tx, shutdown_rx) = oneshot::channel();
        let thread_shared = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name(format!("fake-provider-{}", addr.port()))
            .spawn(move || {
                runtime.block_on(accept_loop(listener, thread_shared, shutdown_rx));
                // Dropping the runtime here drops every connection task, closing stalled streams.
                drop(runtime);
            })?;
        Ok(FakeProvider {
            addr,
            shared,
            shutdown: Some(shutdown_tx),
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Whether the requests of [`FakeOptions::gather`] were all in flight together.
    pub fn gathered(&self) -> bool {
        self.shared.routing.gathered()
    }

    /// The listening address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The wire format being served.
    pub fn format(&self) -> &Arc<dyn WireFormat> {
        &self.shared.format
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        copies(&self.shared.lock().requests)
    }

    /// Blocks until at least `n` requests have been received, then returns all of them.
    pub fn wait_for_requests(
        &self,
        n: usize,
        timeout: Duration,
    ) -> Result<Vec<RecordedRequest>, TestkitError> {
        let guard = self.shared.lock();
        let (state, _) = self
            .shared
            .changed
            .wait_timeout_while(guard, timeout, |s| s.requests.len() < n)
            .unwrap_or_else(|e| e.into_inner());
        if state.requests.len() >= n {
            Ok(copies(&state.requests))
        } else {
            Err(TestkitError::Timeout {
                expected: n,
                received: state.requests.len(),
                timeout,
            })
        }
    }

    /// Turns handed out so far (replies and HTTP errors; exhaustion 500s and 404s do not count).
    pub fn turns_served(&self) -> usize {
        self.shared.lock().turns_served
    }
}

impl fmt::Debug for FakeProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FakeProvider")
            .field("addr", &self.addr)
            .field("format", &self.shared.format.name())
            .field("script_len", &self.shared.script.len())
            .field("cycle", &self.shared.cycle)
            .finish_non_exhaustive()
    }
}

impl Drop for FakeProvider {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn accept_loop(
    listener: TcpListener,
    shared: Arc<Shared>,
    mut shutdown: oneshot::Receiver<()>,
) {
    let mut connections: u64 = 0;
    loop {
        let accepted = tokio::select! {
            _ = &mut shutdown => return,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(_) => {
                // Out of file descriptors or similar: back off instead of spinning.
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        connections += 1;
        let connection_id = connections;
        let _ = stream.set_nodelay(true);
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let service = service_fn(move |req| handle(Arc::clone(&shared), connection_id, req));
            // Errors here are client disconnects and scripted cuts.
            let _ = http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// The recorded requests, as the tests read them (copies).
fn copies(requests: &[Arc<RecordedRequest>]) -> Vec<RecordedRequest> {
    requests.iter().map(|r| RecordedRequest::clone(r)).collect()
}

/// Whether a request body offers tools (in any of the wire formats' shapes).
fn offers_tools(body: &serde_json::Value) -> bool {
    body.get("tools")
        .and_then(serde_json::Value::as_array)
        .is_some_and(|t| !t.is_empty())
}

async fn handle(
    shared: Arc<Shared>,
    connection_id: u64,
    req: Request<Incoming>,
) -> Result<Response<Body>, Infallible> {
    let request = Arc::new(RecordedRequest::read(req, connection_id, !shared.unchecked).await);
    let format = &shared.format;
    let endpoint = format.handles(request.path_without_query());
    let is_post = request.method == "POST";
    if endpoint
        && is_post
        && !shared.unchecked
        && let Err(broken) = format.check_request(&request.outline)
    {
        return Ok(refuse(&shared, request, &broken));
    }
    let served = take_turn(&shared, &request, endpoint && is_post).await;
    let lists_models = request.method == "GET" && request.path_without_query().ends_with("/models");
    let response = if lists_models {
        models_response(&shared.served_models)
    } else if !endpoint {
        let message = format!(
            "fake provider: no route for {} {}",
            request.method, request.path
        );
        json_response(StatusCode::NOT_FOUND, format.error_body(404, &message))
    } else if !is_post {
        let message = format!("fake provider: method {} not allowed", request.method);
        json_response(
            StatusCode::METHOD_NOT_ALLOWED,
            format.error_body(405, &message),
        )
    } else {
        match served {
            None => {
                let message = format!(
                    "fake provider script exhausted after {} turns",
                    shared.script.len()
                );
                json_response(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format.error_body(500, &message),
                )
            }
            Some((
                Turn::HttpError {
                    status,
                    headers,
                    body,
                },
                _,
            )) => http_error(status, &headers, body),
            Some((Turn::Reply(reply), turn_number)) => {
                reply_response(format.as_ref(), &reply, turn_number, &request)
            }
        }
    };
    Ok(response)
}

/// What an OpenAI-compatible server's `GET /models` answers: the models it serves.
fn models_response(models: &[String]) -> Response<Body> {
    let data: Vec<serde_json::Value> = models
        .iter()
        .map(|id| serde_json::json!({"id": id, "object": "model", "owned_by": "fake"}))
        .collect();
    let body = serde_json::json!({"object": "list", "data": data});
    json_response(StatusCode::OK, body.to_string())
}

/// Refuses a request the real provider would refuse (HTTP 400, in the format's own error shape),
/// without using up a turn of the script.
fn refuse(shared: &Shared, request: Arc<RecordedRequest>, broken: &str) -> Response<Body> {
    shared.record(request, false);
    let message = format!("fake provider (as the real one): {broken}");
    json_response(
        StatusCode::BAD_REQUEST,
        shared.format.error_body(400, &message),
    )
}

/// Records the request (once the requests it is gathered with arrived) and picks what answers it: the fixed summary for a tool-less model call when
/// one is set (it does not use up a turn), else the script's next turn when the call is one the format
/// serves. `None` when the script is exhausted or the call is not a model call.
async fn take_turn(
    shared: &Shared,
    request: &Arc<RecordedRequest>,
    model_call: bool,
) -> Option<(Turn, usize)> {
    shared.routing.gather(&request.raw_body, model_call).await;
    let summary = shared
        .summary
        .as_ref()
        .filter(|_| model_call && !offers_tools(&request.outline));
    if let Some(text) = summary {
        shared.record(Arc::clone(request), false);
        return Some((Turn::text(text), 0));
    }
    let routed = model_call
        .then(|| shared.routing.turn(&request.raw_body))
        .flatten();
    match routed {
        Some(turn) => {
            shared.record(Arc::clone(request), false);
            turn
        }
        None => shared.record(Arc::clone(request), model_call),
    }
}

/// A scripted reply streamed in the format's own framing.
fn reply_response(
    format: &dyn WireFormat,
    reply: &Reply,
    turn_number: usize,
    request: &RecordedRequest,
) -> Response<Body> {
    let ctx = RenderContext {
        turn_number,
        request,
    };
    let sse = format.render(reply, &ctx);
    let body = sse_body(sse, Duration::from_millis(reply.delay_ms), reply.ending);
    let mut response = Response::new(Either::Right(StreamBody::new(body)));
    insert_header(&mut response, "content-type", format.content_type());
    insert_header(&mut response, "cache-control", "no-cache");
    response
}

fn json_response(status: StatusCode, body: String) -> Response<Body> {
    let mut response = Response::new(Either::Left(Full::new(Bytes::from(body))));
    *response.status_mut() = status;
    insert_header(&mut response, "content-type", "application/json");
    response
}

fn http_error(status: u16, headers: &[(String, String)], body: String) -> Response<Body> {
    let mut response = json_response(
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        body,
    );
    for (name, value) in headers {
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(value),
        ) {
            if name == CONTENT_TYPE {
                response.headers_mut().insert(name, value);
            } else {
                response.headers_mut().append(name, value);
            }
        }
    }
    response
}

fn insert_header(response: &mut Response<Body>, name: &'static str, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        response
            .headers_mut()
            .insert(HeaderName::from_static(name), value);
    }
}

/// The response body: one HTTP chunk per frame, then the end marker, a cut or a stall.
fn sse_body(
    sse: SseReply,
    delay: Duration,
    ending: Ending,
) -> BoxStream<'static, Result<Frame<Bytes>, std::io::Error>> {
    let SseReply {
        mut frames,
        end_marker,
    } = sse;
    match ending {
        Ending::Complete => frames.extend(end_marker),
        Ending::Cut { after_events } | Ending::Stall { after_events } => {
            frames.truncate(after_events);
        }
    }
    let frames = stream::iter(frames.into_iter().enumerate()).then(move |(i, frame)| async move {
        if i > 0 && !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        Ok(Frame::data(Bytes::from(frame)))
    });
    match ending {
        Ending::Complete => frames.boxed(),
        Ending::Cut { .. } => frames
            .chain(stream::once(async {
                // Return Pending once so hyper flushes the frames already buffered, then fail the
                // body: hyper closes the connection without the terminating zero-length chunk.
                tokio::task::yield_now().await;
                Err(std::io::Error::other("fake provider: scripted cut"))
            }))
            .boxed(),
        Ending::Stall { .. } => frames.chain(stream::pending()).boxed(),
    }
}
