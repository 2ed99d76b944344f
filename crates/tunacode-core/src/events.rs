//! [`EventSink`]: where the engine sends [`AgentEvent`]s. Nothing in core prints; front ends read the
//! receiving end.

use tokio::sync::mpsc;
use tunacode_protocol::AgentEvent;

/// The sending side of the event stream. Sending never blocks and never fails the request: when no one
/// listens, events are dropped.
#[derive(Debug, Clone)]
pub struct EventSink {
    tx: Option<mpsc::UnboundedSender<AgentEvent>>,
}

impl EventSink {
    /// A sink and the receiver that front ends consume.
    pub fn channel() -> (Self, mpsc::UnboundedReceiver<AgentEvent>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (EventSink { tx: Some(tx) }, rx)
    }

    /// A sink that drops everything.
    pub fn none() -> Self {
        EventSink { tx: None }
    }

    /// Sends one event.
    pub fn emit(&self, event: AgentEvent) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(event);
        }
    }
}
