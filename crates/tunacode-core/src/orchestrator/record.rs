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
        record_usage(agent, usage, model_of(response));
    }
}

/// The model that wrote `response`: a fallback model records itself on it.
fn model_of(response: &Message) -> Option<&str> {
    response.extra.get("model").and_then(|m| m.as_str())
}

/// Adds what a call cost (priced from the catalogue when the provider did not say) to the session,
/// and says the new totals.
pub(super) fn record_usage(agent: &Agent, mut usage: Usage, model: Option<&str>) {
    // Priced as the model that answered is (a fallback model has prices of its own).
    let pricing = match model {
        Some(name) if name != agent.options.model => agent
            .fallbacks
            .iter()
            .find(|f| f.options.model == name)
            .and_then(|f| f.options.pricing),
        _ => agent.options.pricing,
    };
    let mut session = agent.session.lock();
    if usage.cost == 0.0
        && let Some(pricing) = pricing.filter(|p| p.is_known())
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
