//! Running an operation's file or process work off the async threads, its failure as data; and
//! freeing a long history off them.

use crate::runtime::events::OpFailure;

/// Runs `work` on a blocking thread; a panic or a cancelled task is an internal failure.
pub(super) async fn off_thread<T, F>(what: &str, work: F) -> Result<T, OpFailure>
where
    F: FnOnce() -> Result<T, OpFailure> + Send + 'static,
    T: Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result,
        Err(e) => {
            tracing::error!(error = %e, what, "an operation's blocking work failed");
            Err(OpFailure::Invalid(format!("internal error: {e}")))
        }
    }
}

/// Below this many messages a history is freed where it is dropped (a thread costs more).
const FREED_ASIDE_FROM: usize = 1_000;

/// Drops `history` on a short-lived thread of its own when it is long: the runtime then stops when
/// its last event is out, not after freeing every message (~5 ms for 10,000). A history is only
/// memory: a process that exits before the thread is done loses nothing.
pub(super) fn free_aside(history: std::sync::Arc<Vec<tunacode_protocol::Message>>) {
    if history.len() >= FREED_ASIDE_FROM {
        drop_on_own_thread(history);
    }
}

/// Drops `value` on a new thread (here when none can be started).
fn drop_on_own_thread<T: Send + 'static>(value: T) {
    let freeing = std::thread::Builder::new()
        .name(FREEING_THREAD.into())
        .spawn(move || drop(value));
    // Not started: the value was dropped here, with the closure.
    drop(freeing);
}

const FREEING_THREAD: &str = "tunacode-free";

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::mpsc;

    use tunacode_protocol::Message;

    use super::*;

    /// Says on which thread it was dropped.
    struct Told(mpsc::Sender<Option<String>>);

    impl Drop for Told {
        fn drop(&mut self) {
            let _ = self
                .0
                .send(std::thread::current().name().map(str::to_string));
        }
    }

    #[test]
    fn a_value_is_dropped_on_a_thread_of_its_own() {
        let (tx, rx) = mpsc::channel();
        drop_on_own_thread(Told(tx));
        let on = rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap();
        assert_eq!(on.as_deref(), Some(FREEING_THREAD));
    }

    #[test]
    fn a_short_history_is_freed_before_returning() {
        let short = Arc::new(vec![Message::user("hi"); FREED_ASIDE_FROM - 1]);
        let weak = Arc::downgrade(&short);
        free_aside(short);
        assert!(weak.upgrade().is_none());
    }
}
