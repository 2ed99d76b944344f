//! Sessions of the Python TunaCode 0.2.x (the version its users have now): `role`/`content` messages
//! (`user`; `assistant` with `text`, `thinking` and `tool_call` items; `tool_result` with
//! `tool_call_id` and `is_error`) and a `compaction` record whose compacted messages are gone. They
//! are converted into canonical messages when loaded, so a resumed session remembers what was done:
//! earlier prompts, calls and their paired results reach the model. The format is documented, with
//! real files, in `tests/fixtures/tunacode-0.2/`.
//!
//! What is not sent to a model is left out: failed provider calls (an assistant message with
//! `stop_reason: "error"`, which 0.2.x did not send either). The Python file itself is never
//! rewritten: once resumed, the session is saved in this version's format under its own folder.

use serde_json::{Map, Value};
use tunacode_protocol::{Message, Part, content_to_text};

/// Whether `messages` are 0.2.x messages (a `role` and a list `content`).
pub(crate) fn is_v02(messages: &[Message]) -> bool {
    messages.iter().any(|m| {
        m.legacy.as_ref().is_some_and(|v| {
            v.get("role").is_some_and(Value::is_string)
                && v.get("content").is_some_and(Value::is_array)
        })
    })
}

/// The canonical history of a 0.2.x session: the compaction summary (as 0.2.x sends it, a user
/// message first) and every message, tool results grouped into the request that answers the calls
/// before them. Messages of other shapes stay as they are (kept, never sent).
pub(crate) fn convert(messages: Vec<Message>, compaction: Option<&Value>) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::with_capacity(messages.len() + 1);
    if let Some(summary) = compaction
        .and_then(|c| c.get("summary"))
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
    {
        out.push(Message::user(format!("[Compaction summary]\n\n{summary}")));
    }
    for message in messages {
        let Some(dict) = message.legacy.as_deref().and_then(Value::as_object) else {
            out.push(message);
            continue;
        };
        let content = dict.get("content").and_then(Value::as_array);
        match (dict.get("role").and_then(Value::as_str), content) {
            (Some("user"), Some(items)) => out.push(Message::user(user_text(items))),
            (Some("assistant"), Some(items)) => {
                if let Some(response) = assistant(dict, items) {
                    out.push(response);
                }
            }
            (Some("tool_result"), Some(items)) => push_tool_result(&mut out, dict, items),
            _ => out.push(message),
        }
    }
    out
}

fn user_text(items: &[Value]) -> String {
    items
        .iter()
        .map(|item| match item.get("type").and_then(Value::as_str) {
            Some("text") => item.get("text").map(content_to_text).unwrap_or_default(),
            Some(other) => format!("[{other}]"),
            None => String::new(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// An assistant message as a response; `None` for a failed provider call.
fn assistant(dict: &Map<String, Value>, items: &[Value]) -> Option<Message> {
    if dict.get("stop_reason").and_then(Value::as_str) == Some("error") {
        return None;
    }
    let mut parts = Vec::new();
    for item in items.iter().filter(|i| i.is_object()) {
        let text = |key: &str| item.get(key).and_then(Value::as_str).unwrap_or_default();
        match item.get("type").and_then(Value::as_str) {
            Some("text") if !text("text").is_empty() => parts.push(Part::text(text("text"))),
            Some("thinking") if !text("thinking").is_empty() => {
                parts.push(Part::thinking(text("thinking"), None))
            }
            Some("tool_call") => parts.push(Part::tool_call(
                text("id"),
                text("name"),
                item.get("arguments").cloned().unwrap_or(Value::Null),
            )),
            _ => {}
        }
    }
    if parts.is_empty() {
        return None;
    }
    let mut response = Message::response(parts);
    if let Some(model) = dict.get("model").and_then(Value::as_str) {
        response
            .extra
            .insert("model_name".into(), Value::String(model.into()));
    }
    Some(response)
}

/// A tool result joins the request of results right before it (one request answers one response).
fn push_tool_result(out: &mut Vec<Message>, dict: &Map<String, Value>, items: &[Value]) {
    let field = |key: &str| {
        dict.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let part = Part::tool_return(field("tool_call_id"), field("tool_name"), user_text(items));
    match out.last_mut() {
        Some(last) if last.is_request() && last.parts.iter().all(Part::is_tool_answer) => {
            last.parts.push(part)
        }
        _ => out.push(Message::request(vec![part])),
    }
}

#[cfg(test)]
#[path = "legacy_v02_tests.rs"]
mod tests;
