//! The record step: what a model call leaves in the session besides its message (a response's
//! reasoning as the session's thoughts, every call's usage, compaction's included, priced and added
//! to the session's total).

use tunacode_protocol::{AgentEvent, Message, Part, Usage};

use crate::agent::Agent;

/// Records `response`'s thoughts and `usage` in the session, and says the new totals.
pub(super) fn record_usage_and_thoughts(agent: &Agent, usage: Option<Usage>, response: &Message) {
    {
        let mut session = agent.session.lock();
        for part in &response.parts {
            if let Part::Thinking(t) = part
                && !t.content.trim().is_empty()
            {
                session
                    .thoughts
                    .push(serde_json::Value::String(t.content.clone()));
            }
        }
    }
    if let Some(usage) = usage {
        record_usage(agent, usage);
    }
}

/// Adds what a call cost (priced from the catalogue when the provider did not say) to the session,
/// and says the new totals.
pub(super) fn record_usage(agent: &Agent, mut usage: Usage) {
    let mut session = agent.session.lock();
    if usage.cost == 0.0
        && let Some(pricing) = agent.options.pricing.filter(|p| p.is_known())
    {
        usage.cost = pricing.cost(&usage);
    }
    session.usage.last_call = usage;
    session.usage.session_total.add(&usage);
    agent.events.emit(AgentEvent::UsageUpdated {
        last_call: usage,
        session_total: session.usage.session_total,
    });
}
