//! Anthropic Messages SSE events → model events.
//!
//! A response is `message_start` → content blocks (`content_block_start` / `_delta` / `_stop`, one
//! block at a time) → `message_delta` (stop reason, cumulative usage) → `message_stop`; `ping` events
//! may come anywhere and `error` events end the stream.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use crate::client::{ModelEvent, PartTarget};
use crate::error::LlmError;
use crate::http::{Decoded, StreamDecoder};
use crate::sse::SseEvent;
use crate::usage_norm::{Counting, RawUsage, normalize};

use super::error::{error_event, truncate};
use super::request::PROVIDER;

/// What the content block at an index is.
#[derive(Debug)]
enum Block {
    /// A `tool_use` block: the `input` it started with, and whether a non-empty argument fragment
    /// arrived since.
    ToolUse {
        input: Option<String>,
        streamed: bool,
    },
    /// Text, thinking, or a block type we do not decode.
    Other,
}

/// Decodes one Messages stream. Blocks are keyed by their `index`, which also orders tool calls.
#[derive(Debug, Default)]
pub struct AnthropicStreamDecoder {
    blocks: HashMap<usize, Block>,
    usage: RawUsage,
    usage_seen: bool,
    usage_sent: bool,
    /// Response ids held back until the first content event, so that an error right after
    /// `message_start` still counts as "nothing delivered" and can be retried.
    pending_details: Option<Map<String, Value>>,
    finished: bool,
}

impl StreamDecoder for AnthropicStreamDecoder {
    fn decode(&mut self, event: &SseEvent) -> Result<Decoded, LlmError> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(Decoded::Events(Vec::new()));
        }
        let value: Value = serde_json::from_str(data).map_err(|e| LlmError::InvalidResponse {
            message: format!("event is not JSON ({e}): {}", truncate(data, 200)),
        })?;
        let kind = value
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(event.event.as_str());
        if kind == "message_stop" {
            self.finished = true;
            // Usage normally goes out with `message_delta`; if none came, send it now and let the
            // stream end on its own (it closes right after `message_stop`).
            let events = self.flush(false);
            if !events.is_empty() {
                return Ok(Decoded::Events(events));
            }
            return Ok(Decoded::Done);
        }
        self.decode_value(kind, &value).map(Decoded::Events)
    }

    fn finished(&self) -> bool {
        self.finished
    }
}

impl AnthropicStreamDecoder {
    /// Decodes one parsed event of type `kind` (`message_stop` aside, which ends the stream).
    pub fn decode_value(&mut self, kind: &str, value: &Value) -> Result<Vec<ModelEvent>, LlmError> {
        let mut events = Vec::new();
        match kind {
            "message_start" => self.message_start(value.get("message").unwrap_or(&Value::Null)),
            "content_block_start" => {
                let index = block_index(value);
                let block = value.get("content_block").unwrap_or(&Value::Null);
                self.start_block(index, block, &mut events);
            }
            "content_block_delta" => {
                let index = block_index(value);
                let delta = value.get("delta").unwrap_or(&Value::Null);
                self.block_delta(index, delta, &mut events);
            }
            "content_block_stop" => self.stop_block(block_index(value), &mut events),
            "message_delta" => return Ok(self.message_delta(value)),
            "error" => {
                return Err(error_event(value.get("error").unwrap_or(value)));
            }
            // `ping` and event types added later.
            _ => {}
        }
        if !events.is_empty()
            && let Some(details) = self.pending_details.take()
        {
            events.insert(0, ModelEvent::ResponseDetails(details));
        }
        Ok(events)
    }

    /// Holds back the message's id and model until the first content, and reads its first usage.
    fn message_start(&mut self, message: &Value) {
        let mut details = Map::new();
        details.insert("provider".into(), json!(PROVIDER));
        for key in ["id", "model"] {
            if let Some(v) = message.get(key).and_then(Value::as_str) {
                details.insert(key.into(), json!(v));
            }
        }
        self.pending_details = Some(details);
        if let Some(usage) = message.get("usage") {
            self.read_usage(usage);
        }
    }

    /// The end of a block: a tool call whose whole input came in its start block (and no delta
    /// repeated it) sends that input now.
    fn stop_block(&mut self, index: usize, events: &mut Vec<ModelEvent>) {
        if let Some(Block::ToolUse {
            input: Some(input),
            streamed: false,
        }) = self.blocks.get_mut(&index)
        {
            let fragment = std::mem::take(input);
            events.push(ModelEvent::ToolCallArgs { index, fragment });
        }
    }

    /// The message's final usage, then its stop reason, which finishes the stream.
    fn message_delta(&mut self, value: &Value) -> Vec<ModelEvent> {
        if let Some(usage) = value.get("usage") {
            self.read_usage(usage);
        }
        let reason = value.pointer("/delta/stop_reason").and_then(Value::as_str);
        let mut events = self.flush(true);
        if let Some(reason) = reason {
            self.finished = true;
            events.push(ModelEvent::Finish(map_stop_reason(reason).to_string()));
        }
        events
    }

    fn start_block(&mut self, index: usize, block: &Value, events: &mut Vec<ModelEvent>) {
        let text = |key: &str| {
            block
                .get(key)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let mut details = Map::new();
        details.insert("provider".into(), json!(PROVIDER));
        let mut kind = Block::Other;
        match block.get("type").and_then(Value::as_str).unwrap_or("") {
            "text" => events.extend(text("text").map(ModelEvent::TextDelta)),
            "thinking" => {
                events.push(ModelEvent::ThinkingStart);
                events.push(ModelEvent::PartDetails {
                    target: PartTarget::Thinking,
                    details,
                });
                events.extend(text("thinking").map(ModelEvent::ThinkingDelta));
                events.extend(text("signature").map(ModelEvent::ThinkingSignature));
            }
            "redacted_thinking" => {
                details.insert(
                    "redacted_data".into(),
                    block.get("data").cloned().unwrap_or(Value::Null),
                );
                events.push(ModelEvent::ThinkingStart);
                events.push(ModelEvent::PartDetails {
                    target: PartTarget::Thinking,
                    details,
                });
            }
            "tool_use" => {
                events.push(ModelEvent::ToolCallStart {
                    index,
                    id: text("id").unwrap_or_default(),
                    name: text("name").unwrap_or_default(),
                });
                let input = block
                    .get("input")
                    .filter(|i| i.as_object().is_some_and(|o| !o.is_empty()))
                    .map(Value::to_string);
                kind = Block::ToolUse {
                    input,
                    streamed: false,
                };
            }
            // Server tools and their results, citations, …: not ours to run or send back.
            _ => {}
        }
        self.blocks.insert(index, kind);
    }

    fn block_delta(&mut self, index: usize, delta: &Value, events: &mut Vec<ModelEvent>) {
        let field = |key: &str| delta.get(key).and_then(Value::as_str).unwrap_or("");
        match delta.get("type").and_then(Value::as_str).unwrap_or("") {
            "text_delta" if !field("text").is_empty() => {
                events.push(ModelEvent::TextDelta(field("text").to_string()));
            }
            "thinking_delta" if !field("thinking").is_empty() => {
                events.push(ModelEvent::ThinkingDelta(field("thinking").to_string()));
            }
            "signature_delta" if !field("signature").is_empty() => {
                events.push(ModelEvent::ThinkingSignature(
                    field("signature").to_string(),
                ));
            }
            "input_json_delta" => {
                let fragment = field("partial_json");
                if let Some(Block::ToolUse { streamed, .. }) = self.blocks.get_mut(&index)
                    && !fragment.is_empty()
                {
                    *streamed = true;
                    events.push(ModelEvent::ToolCallArgs {
                        index,
                        fragment: fragment.to_string(),
                    });
                }
            }
            _ => {}
        }
    }

    /// Takes the latest counts of a `usage` object (later events revise earlier ones).
    fn read_usage(&mut self, usage: &Value) {
        let mut set = |key: &str, slot: &mut u64| {
            if let Some(n) = usage.get(key).and_then(Value::as_u64) {
                *slot = n;
                self.usage_seen = true;
            }
        };
        let mut raw = self.usage;
        set("input_tokens", &mut raw.input);
        set("output_tokens", &mut raw.output);
        set("cache_read_input_tokens", &mut raw.cache_read);
        set("cache_creation_input_tokens", &mut raw.cache_write);
        self.usage = raw;
    }

    /// The held-back response ids and, unless sent already (or `again`), the usage.
    fn flush(&mut self, again: bool) -> Vec<ModelEvent> {
        let mut events = Vec::new();
        if let Some(details) = self.pending_details.take() {
            events.push(ModelEvent::ResponseDetails(details));
        }
        if self.usage_seen && (again || !self.usage_sent) {
            self.usage_sent = true;
            events.push(ModelEvent::Usage(normalize(
                Counting::Anthropic,
                self.usage,
            )));
        }
        events
    }
}

fn block_index(value: &Value) -> usize {
    value.get("index").and_then(Value::as_u64).unwrap_or(0) as usize
}

/// Anthropic's stop reasons in our vocabulary (`stop`, `tool_calls`, `length`; others unchanged).
pub(crate) fn map_stop_reason(reason: &str) -> &str {
    match reason {
        "end_turn" | "stop_sequence" => "stop",
        "tool_use" => "tool_calls",
        "max_tokens" => "length",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use tunacode_protocol::Usage;

    fn sse(data: &str) -> SseEvent {
        SseEvent {
            event: "message".into(),
            data: data.into(),
        }
    }

    fn run(d: &mut AnthropicStreamDecoder, frames: &[Value]) -> Vec<ModelEvent> {
        let mut out = Vec::new();
        for f in frames {
            match d.decode(&sse(&f.to_string())).unwrap() {
                Decoded::Events(e) => out.extend(e),
                Decoded::Done => out.push(ModelEvent::Finish("<done>".into())),
            }
        }
        out
    }

    #[test]
    fn decodes_blocks_usage_and_held_back_details() {
        let mut d = AnthropicStreamDecoder::default();
        let events = run(
            &mut d,
            &[
                json!({"type": "message_start", "message": {"id": "msg_1", "model": "claude-x",
                       "usage": {"input_tokens": 10, "cache_read_input_tokens": 5,
                                 "cache_creation_input_tokens": 2, "output_tokens": 1}}}),
                json!({"type": "ping"}),
                json!({"type": "content_block_start", "index": 0,
                       "content_block": {"type": "redacted_thinking", "data": "Zm9v"}}),
                json!({"type": "content_block_stop", "index": 0}),
                json!({"type": "content_block_start", "index": 1,
                       "content_block": {"type": "tool_use", "id": "tu_1", "name": "glob",
                                         "input": {"pattern": "*.rs"}}}),
                json!({"type": "content_block_delta", "index": 1,
                       "delta": {"type": "input_json_delta", "partial_json": ""}}),
                json!({"type": "content_block_stop", "index": 1}),
                json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"},
                       "usage": {"output_tokens": 30, "input_tokens": 12}}),
                json!({"type": "message_stop"}),
            ],
        );
        let mut details = Map::new();
        details.insert("provider".into(), json!("anthropic"));
        let mut response = details.clone();
        response.insert("id".into(), json!("msg_1"));
        response.insert("model".into(), json!("claude-x"));
        let mut redacted = details.clone();
        redacted.insert("redacted_data".into(), json!("Zm9v"));
        assert_eq!(
            events,
            vec![
                ModelEvent::ResponseDetails(response),
                ModelEvent::ThinkingStart,
                ModelEvent::PartDetails {
                    target: PartTarget::Thinking,
                    details: redacted
                },
                ModelEvent::ToolCallStart {
                    index: 1,
                    id: "tu_1".into(),
                    name: "glob".into()
                },
                ModelEvent::ToolCallArgs {
                    index: 1,
                    fragment: "{\"pattern\":\"*.rs\"}".into()
                },
                ModelEvent::Usage(Usage {
                    request_tokens: 19,
                    response_tokens: 30,
                    cached_tokens: 5,
                    cache_write_tokens: 2,
                    ..Usage::default()
                }),
                ModelEvent::Finish("tool_calls".into()),
                ModelEvent::Finish("<done>".into()),
            ]
        );
        assert!(d.finished());
    }

    #[test]
    fn usage_goes_out_at_message_stop_when_no_message_delta_came() {
        let mut d = AnthropicStreamDecoder::default();
        let events = run(
            &mut d,
            &[
                json!({"type": "message_start", "message": {"usage": {"input_tokens": 3, "output_tokens": 1}}}),
                json!({"type": "message_stop"}),
            ],
        );
        assert_eq!(events.len(), 2, "{events:?}");
        assert_eq!(
            events[1],
            ModelEvent::Usage(Usage {
                request_tokens: 3,
                response_tokens: 1,
                ..Usage::default()
            })
        );
        assert!(d.finished());
    }

    #[test]
    fn padded_json_parses_bad_json_and_error_events_are_errors() {
        let mut d = AnthropicStreamDecoder::default();
        // The recorded quirk: runs of spaces before the final `}`, and trailing whitespace.
        let padded = "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}             }";
        match d.decode(&sse(padded)).unwrap() {
            Decoded::Events(e) => assert_eq!(e, vec![ModelEvent::TextDelta("hi".into())]),
            Decoded::Done => panic!("not done"),
        }
        assert!(d.decode(&sse("{\"type\": \"ping\"}   \n")).is_ok());
        let err = d.decode(&sse("{\"type\": \"content_block_delta\"")).err();
        assert_eq!(err.map(|e| e.kind()), Some("invalid_response"));
        let event =
            r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#;
        let err = d.decode(&sse(event)).err();
        assert_eq!(
            err,
            Some(LlmError::Overloaded {
                status: 0,
                message: "Overloaded".into()
            })
        );
    }
}
