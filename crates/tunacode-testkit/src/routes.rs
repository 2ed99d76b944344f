//! Conversations the fake tells apart by what their requests hold (sub-agents asking in whatever
//! order they run), and requests it holds until several are in flight at once (proof they ran in
//! parallel, with no timing guessed).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::watch;

use crate::script::Turn;

/// A script of its own for the requests whose body contains every one of `markers`: they take its
/// turns in order instead of the main script's.
#[derive(Debug, Clone, Default)]
pub struct Route {
    /// Texts a request's body must all contain.
    pub markers: Vec<String>,
    /// Its turns.
    pub turns: Vec<Turn>,
}

/// The first `count` requests whose body contains `marker` are each held until all `count` have
/// arrived (at most 20 s); [`crate::FakeProvider::gathered`] says whether they all did.
#[derive(Debug, Clone, Default)]
pub struct Gather {
    /// The text that marks a request as one of them.
    pub marker: String,
    /// How many must be in flight together.
    pub count: usize,
}

/// The routes and the gathering of one fake.
pub(crate) struct Routing {
    routes: Vec<(Route, Mutex<usize>)>,
    gather: Option<Gather>,
    arrived: watch::Sender<usize>,
    met: AtomicBool,
}

impl Routing {
    pub(crate) fn new(routes: Vec<Route>, gather: Option<Gather>) -> Self {
        Routing {
            routes: routes.into_iter().map(|r| (r, Mutex::new(0))).collect(),
            gather,
            arrived: watch::channel(0).0,
            met: AtomicBool::new(false),
        }
    }

    /// The next turn of the route `body` belongs to, with its 1-based number (`None`: no route, or
    /// its script is exhausted; `Some(None)` for the latter).
    pub(crate) fn turn(&self, body: &str) -> Option<Option<(Turn, usize)>> {
        let (route, next) = self
            .routes
            .iter()
            .find(|(r, _)| r.markers.iter().all(|m| body.contains(m.as_str())))?;
        let mut next = next.lock().unwrap_or_else(|e| e.into_inner());
        let turn = route.turns.get(*next).cloned();
        if turn.is_some() {
            *next += 1;
        }
        Some(turn.map(|t| (t, *next)))
    }

    /// Holds a model call that is one of the gathering until all of it arrived.
    pub(crate) async fn gather(&self, body: &str, model_call: bool) {
        let marked = |g: &&Gather| model_call && body.contains(&g.marker);
        let Some(gather) = self.gather.as_ref().filter(marked) else {
            return;
        };
        let mut joined = false;
        self.arrived.send_if_modified(|n| {
            joined = *n < gather.count;
            *n += 1;
            joined
        });
        if !joined {
            return;
        }
        let mut seen = self.arrived.subscribe();
        let all = seen.wait_for(|n| *n >= gather.count);
        if let Ok(Ok(_)) = tokio::time::timeout(Duration::from_secs(20), all).await {
            self.met.store(true, Ordering::SeqCst);
        }
    }

    /// Whether the gathering's requests were all in flight together.
    pub(crate) fn gathered(&self) -> bool {
        self.met.load(Ordering::SeqCst)
    }
}
