//! Responses SSE events → model events. Each event has an `event:` line and a JSON `data:` line whose
//! `type` is authoritative. There is no `[DONE]` marker: the stream is complete after
//! `response.completed` (or `response.incomplete`).

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::request::PROVIDER_TAG;
use crate::client::{ModelEvent, PartTarget};
use crate::error::{LlmError, is_context_overflow};
use crate::http::{Decoded, StreamDecoder};
use crate::sse::SseEvent;
use crate::usage_norm::{Counting, RawUsage, normalize};

/// Decodes the events of one Responses stream. Tool calls are keyed by their `output_index`.
#[derive(Debug, Default)]
pub struct ResponsesStreamDecoder {
    /// Response id and model, held back until the first content event so that an error reported
    /// before any output can still be retried.
    pending_details: Map<String, Value>,
    /// Reasoning items whose start was reported.
    reasoning_started: HashSet<String>,
    /// The summary index of the last summary delta of the current reasoning item.
    summary_index: Option<u64>,
    /// Tool calls (by output index) whose start was reported.
    calls_started: HashSet<usize>,
    /// Tool calls (by output index) whose arguments were reported (deltas or the `.done` text).
    args_sent: HashSet<usize>,
    finished: bool,
}

impl StreamDecoder for ResponsesStreamDecoder {
    fn decode(&mut self, event: &SseEvent) -> Result<Decoded, LlmError> {
        if self.finished {
            return Ok(Decoded::Done);
        }
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(Decoded::Events(Vec::new()));
        }
        let value: Value = serde_json::from_str(data).map_err(|e| LlmError::InvalidResponse {
            message: format!("event is not JSON ({e}): {}", truncate(data, 200)),
        })?;
        self.decode_event(&event.event, &value).map(Decoded::Events)
    }

    fn finished(&self) -> bool {
        self.finished
    }
}

impl ResponsesStreamDecoder {
    /// Decodes one parsed event; `event_name` (the `event:` line) is used only when the data has no
    /// `type`.
    pub fn decode_event(
        &mut self,
        event_name: &str,
        data: &Value,
    ) -> Result<Vec<ModelEvent>, LlmError> {
        let kind = data
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(event_name);
        if let Some(error) = failure(kind, data) {
            return Err(error);
        }
        let index = data
            .get("output_index")
            .and_then(Value::as_u64)
            .unwrap_or(0) as usize;
        let mut events = Vec::new();
        match kind {
            "response.created" | "response.in_progress" => self.hold_details(data),
            "response.output_item.added" => {
                if let Some(item) = data.get("item") {
                    self.item_added(index, item, &mut events);
                }
            }
            "response.output_item.done" => {
                if let Some(item) = data.get("item") {
                    self.item_done(index, item, &mut events);
                }
            }
            "response.function_call_arguments.done" => {
                self.send_full_args(index, str_field(data, "arguments"), &mut events);
            }
            "response.completed" | "response.incomplete" => {
                self.completed(kind, data.get("response"), &mut events);
            }
            _ => self.delta(kind, index, data, &mut events),
        }
        if !events.is_empty() && !self.pending_details.is_empty() {
            let details = std::mem::take(&mut self.pending_details);
            events.insert(0, ModelEvent::ResponseDetails(details));
        }
        Ok(events)
    }

    /// Holds back the response's id and model until the first content event.
    fn hold_details(&mut self, data: &Value) {
        if let Some(response) = data.get("response") {
            for key in ["id", "model"] {
                if let Some(v) = response.get(key).filter(|v| v.is_string()) {
                    self.pending_details.insert(key.into(), v.clone());
                }
            }
        }
    }

    /// A reasoning, text or arguments delta (other event kinds are ignored). A reasoning delta of a
    /// new summary part starts a new paragraph.
    fn delta(&mut self, kind: &str, index: usize, data: &Value, events: &mut Vec<ModelEvent>) {
        let delta = str_field(data, "delta");
        if delta.is_empty() {
            return;
        }
        match kind {
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                let summary = data
                    .get("summary_index")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                let text = match self.summary_index {
                    Some(last) if last != summary => format!("\n\n{delta}"),
                    _ => delta.to_string(),
                };
                self.summary_index = Some(summary);
                events.push(ModelEvent::ThinkingDelta(text));
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                events.push(ModelEvent::TextDelta(delta.to_string()));
            }
            "response.function_call_arguments.delta" => {
                self.args_sent.insert(index);
                events.push(ModelEvent::ToolCallArgs {
                    index,
                    fragment: delta.to_string(),
                });
            }
            _ => {}
        }
    }

    fn item_added(&mut self, index: usize, item: &Value, events: &mut Vec<ModelEvent>) {
        match str_field(item, "type") {
            "reasoning" => self.start_reasoning(str_field(item, "id"), events),
            "function_call" => self.start_call(index, item, events),
            _ => {}
        }
    }

    fn item_done(&mut self, index: usize, item: &Value, events: &mut Vec<ModelEvent>) {
        match str_field(item, "type") {
            "reasoning" => {
                let id = str_field(item, "id");
                let fresh = !self.reasoning_started.contains(id);
                self.start_reasoning(id, events);
                if fresh {
                    // No deltas were seen for this item: take the summary from the finished item.
                    let summary: Vec<&str> = item
                        .get("summary")
                        .and_then(Value::as_array)
                        .map(|s| s.iter().map(|p| str_field(p, "text")).collect())
                        .unwrap_or_default();
                    let text = summary.join("\n\n");
                    if !text.is_empty() {
                        events.push(ModelEvent::ThinkingDelta(text));
                    }
                }
                // The encrypted content is complete only here (the `.added` copy differs).
                let encrypted = str_field(item, "encrypted_content");
                if !encrypted.is_empty() {
                    events.push(ModelEvent::ThinkingSignature(encrypted.to_string()));
                }
            }
            "function_call" => {
                self.start_call(index, item, events);
                self.send_full_args(index, str_field(item, "arguments"), events);
            }
            _ => {}
        }
    }

    fn start_reasoning(&mut self, id: &str, events: &mut Vec<ModelEvent>) {
        if !self.reasoning_started.insert(id.to_string()) {
            return;
        }
        self.summary_index = None;
        let mut details = Map::new();
        details.insert("provider".into(), json!(PROVIDER_TAG));
        details.insert("id".into(), json!(id));
        events.push(ModelEvent::ThinkingStart);
        events.push(ModelEvent::PartDetails {
            target: PartTarget::Thinking,
            details,
        });
    }

    fn start_call(&mut self, index: usize, item: &Value, events: &mut Vec<ModelEvent>) {
        if !self.calls_started.insert(index) {
            return;
        }
        events.push(ModelEvent::ToolCallStart {
            index,
            id: str_field(item, "call_id").to_string(),
            name: str_field(item, "name").to_string(),
        });
        let item_id = str_field(item, "id");
        if !item_id.is_empty() {
            let mut details = Map::new();
            details.insert("item_id".into(), json!(item_id));
            events.push(ModelEvent::PartDetails {
                target: PartTarget::ToolCall(index),
                details,
            });
        }
    }

    /// The whole argument text of a call, used only when no delta carried it.
    fn send_full_args(&mut self, index: usize, arguments: &str, events: &mut Vec<ModelEvent>) {
        if arguments.is_empty() || !self.args_sent.insert(index) {
            return;
        }
        events.push(ModelEvent::ToolCallArgs {
            index,
            fragment: arguments.to_string(),
        });
    }

    fn completed(&mut self, kind: &str, response: Option<&Value>, events: &mut Vec<ModelEvent>) {
        self.finished = true;
        let usage = response
            .and_then(|r| r.get("usage"))
            .filter(|u| u.is_object());
        if let Some(usage) = usage {
            events.push(ModelEvent::Usage(parse_usage(usage)));
        }
        let reason = if kind == "response.incomplete" {
            let why = response
                .and_then(|r| r.pointer("/incomplete_details/reason"))
                .and_then(Value::as_str)
                .unwrap_or("unknown");
            let mut details = Map::new();
            details.insert("incomplete_reason".into(), json!(why));
            events.push(ModelEvent::ResponseDetails(details));
            match why {
                "content_filter" => "content_filter",
                _ => "length",
            }
        } else if self.calls_started.is_empty() {
            "stop"
        } else {
            "tool_calls"
        };
        events.push(ModelEvent::Finish(reason.to_string()));
    }
}

/// Reads the `usage` of a finished response.
fn parse_usage(usage: &Value) -> tunacode_protocol::Usage {
    let n = |pointer: &str| usage.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
    normalize(
        Counting::OpenAi,
        RawUsage {
            input: n("/input_tokens"),
            output: n("/output_tokens"),
            cache_read: n("/input_tokens_details/cached_tokens"),
            reasoning: n("/output_tokens_details/reasoning_tokens"),
            ..RawUsage::default()
        },
    )
}

/// An error reported inside the stream (`error` events and `response.failed`).
fn stream_error(error: &Value) -> LlmError {
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| error.to_string());
    let code = str_field(error, "code");
    if is_context_overflow(code, &message) {
        return LlmError::ContextOverflow { message };
    }
    match code {
        "rate_limit_exceeded" => LlmError::RateLimit {
            message,
            retry_after: None,
        },
        "insufficient_quota" => LlmError::QuotaExceeded {
            message,
            resets_in: None,
        },
        "server_error" | "internal_error" | "server_is_overloaded" => {
            LlmError::Server { status: 0, message }
        }
        _ => LlmError::BadRequest {
            status: 400,
            message,
        },
    }
}

fn str_field<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// The error a `response.failed` or `error` event reports; `None` for every other event.
fn failure(kind: &str, data: &Value) -> Option<LlmError> {
    match kind {
        "response.failed" => {
            let error = data.pointer("/response/error").filter(|e| e.is_object());
            Some(match error {
                Some(error) => stream_error(error),
                None => LlmError::Server {
                    status: 0,
                    message: "the response failed without an error message".into(),
                },
            })
        }
        "error" => {
            let error = data.get("error").filter(|e| e.is_object()).unwrap_or(data);
            Some(stream_error(error))
        }
        _ => None,
    }
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
