//! [`EventSink`]: where the engine and the runtime send what happens. Nothing in core prints; front ends
//! read the receiving end. One channel carries both the engine's [`AgentEvent`]s and the runtime's own
//! events, so their order is the order they happened in.

use tokio::sync::mpsc;
use tunacode_protocol::AgentEvent;

use tunacode_protocol::runtime::RuntimeEvent;

/// The sending side of the event stream. Sending never blocks and never fails the request: when no one
/// listens, events are dropped.
#[derive(Debug, Clone)]
pub struct EventSink {
    tx: Option<mpsc::UnboundedSender<RuntimeEvent>>,
}

impl EventSink {
    /// A sink and the receiver that front ends consume.
    pub fn channel() -> (Self, mpsc::UnboundedReceiver<RuntimeEvent>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (EventSink { tx: Some(tx) }, rx)
    }

    /// A sink that drops everything.
    pub fn none() -> Self {
        EventSink { tx: None }
    }

    /// Sends one engine event.
    pub fn emit(&self, event: AgentEvent) {
        self.send(RuntimeEvent::Agent(event));
    }

    /// Sends one runtime event.
    pub fn send(&self, event: RuntimeEvent) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(event);
        }
    }
}
