//! [`EventSink`]: where the engine and the runtime send what happens. Nothing in core prints; front ends
//! read the receiving end. One channel carries both the engine's [`AgentEvent`]s and the runtime's own
//! events, so their order is the order they happened in.

use tokio::sync::mpsc;
use tunacode_protocol::AgentEvent;

use std::sync::Arc;

use tunacode_protocol::runtime::{RuntimeEvent, SubagentChange, SubagentLabel, SubagentUpdate};

/// The sending side of the event stream. Sending never blocks and never fails the request: when no one
/// listens, events are dropped.
#[derive(Debug, Clone)]
pub struct EventSink {
    tx: Option<mpsc::UnboundedSender<RuntimeEvent>>,
    /// A sub-agent's sink: its engine's events go out labelled with it.
    subagent: Option<Arc<SubagentLabel>>,
}

impl EventSink {
    /// A sink and the receiver that front ends consume.
    pub fn channel() -> (Self, mpsc::UnboundedReceiver<RuntimeEvent>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (
            EventSink {
                tx: Some(tx),
                subagent: None,
            },
            rx,
        )
    }

    /// A sink that drops everything.
    pub fn none() -> Self {
        EventSink {
            tx: None,
            subagent: None,
        }
    }

    /// The sink of a sub-agent: its engine's events go out as [`RuntimeEvent::Subagent`] labelled
    /// with `label`; the runtime's own events (budgets, questions) go out as they are.
    pub fn for_subagent(&self, label: SubagentLabel) -> EventSink {
        EventSink {
            tx: self.tx.clone(),
            subagent: Some(Arc::new(label)),
        }
    }

    /// What a sub-agent did, labelled with it (nothing for the agent's own sink).
    pub fn subagent(&self, change: SubagentChange) {
        if let Some(label) = &self.subagent {
            self.send_raw(RuntimeEvent::Subagent(Box::new(SubagentUpdate {
                label: (**label).clone(),
                change,
            })));
        }
    }

    /// Sends one engine event.
    pub fn emit(&self, event: AgentEvent) {
        self.send(RuntimeEvent::Agent(event));
    }

    /// Sends one runtime event.
    pub fn send(&self, event: RuntimeEvent) {
        match event {
            RuntimeEvent::Agent(event) if self.subagent.is_some() => {
                self.subagent(SubagentChange::Event(event))
            }
            event => self.send_raw(event),
        }
    }

    fn send_raw(&self, event: RuntimeEvent) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(event);
        }
    }
}
