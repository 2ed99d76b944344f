//! Chat Completions SSE chunks → model events, and HTTP error bodies → [`LlmError`].

use std::time::Duration;

use serde_json::Value;
use tunacode_protocol::Usage;

use crate::client::{ModelEvent, PartTarget};
use crate::error::{LlmError, is_context_overflow};
use crate::http::{Decoded, StreamDecoder};
use crate::openai_chat::reasoning_details::ReasoningDetails;
use crate::sse::SseEvent;

/// Decodes `chat.completion.chunk` events. Tool calls are keyed by their `index`.
#[derive(Debug, Default)]
pub struct ChatStreamDecoder {
    started: std::collections::HashSet<usize>,
    finished: bool,
    details: ReasoningDetails,
    details_sent: bool,
}

impl StreamDecoder for ChatStreamDecoder {
    fn decode(&mut self, event: &SseEvent) -> Result<Decoded, LlmError> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(Decoded::Events(Vec::new()));
        }
        if data == "[DONE]" {
            return Ok(Decoded::Done);
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| LlmError::InvalidResponse {
            message: format!("chunk is not JSON ({e}): {}", truncate(data, 200)),
        })?;
        self.decode_chunk(&chunk).map(Decoded::Events)
    }

    fn finished(&self) -> bool {
        self.finished
    }
}

impl ChatStreamDecoder {
    /// Decodes one parsed chunk.
    pub fn decode_chunk(&mut self, chunk: &Value) -> Result<Vec<ModelEvent>, LlmError> {
        if let Some(error) = chunk.get("error") {
            return Err(stream_error(error));
        }
        let mut events = Vec::new();
        let choice = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first());
        if let Some(choice) = choice {
            if let Some(delta) = choice.get("delta") {
                self.decode_delta(delta, &mut events);
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finished = true;
                self.flush_details(&mut events);
                events.push(ModelEvent::Finish(reason.to_string()));
            }
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            events.push(ModelEvent::Usage(parse_usage(usage)));
        }
        Ok(events)
    }

    /// Sends the merged `reasoning_details` once, with the finish (OpenRouter repeats the finish reason
    /// on several chunks).
    fn flush_details(&mut self, events: &mut Vec<ModelEvent>) {
        if self.details.is_empty() || self.details_sent {
            return;
        }
        self.details_sent = true;
        let mut details = serde_json::Map::new();
        details.insert("provider".into(), Value::String("openrouter".into()));
        details.insert("reasoning_details".into(), self.details.to_value());
        events.push(ModelEvent::PartDetails {
            target: PartTarget::Thinking,
            details,
        });
    }

    fn decode_delta(&mut self, delta: &Value, events: &mut Vec<ModelEvent>) {
        if let Some(fragments) = delta.get("reasoning_details").and_then(Value::as_array) {
            self.details.merge(fragments);
        }
        for key in ["reasoning_content", "reasoning"] {
            if let Some(text) = delta
                .get(key)
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
            {
                events.push(ModelEvent::ThinkingDelta(text.to_string()));
                break;
            }
        }
        if let Some(text) = delta
            .get("content")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
        {
            events.push(ModelEvent::TextDelta(text.to_string()));
        }
        let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) else {
            return;
        };
        for (position, call) in calls.iter().enumerate() {
            let index = call
                .get("index")
                .and_then(Value::as_u64)
                .map(|i| i as usize)
                .unwrap_or(position);
            let function = call.get("function");
            let name = function.and_then(|f| f.get("name")).and_then(Value::as_str);
            let id = call.get("id").and_then(Value::as_str);
            if (name.is_some() || id.is_some()) && self.started.insert(index) {
                events.push(ModelEvent::ToolCallStart {
                    index,
                    id: id.unwrap_or_default().to_string(),
                    name: name.unwrap_or_default().to_string(),
                });
            }
            let args = function.and_then(|f| f.get("arguments"));
            let fragment = match args {
                Some(Value::String(s)) => s.clone(),
                // Some local servers send the arguments as an object in one piece.
                Some(v @ Value::Object(_)) => v.to_string(),
                _ => String::new(),
            };
            if !fragment.is_empty() {
                events.push(ModelEvent::ToolCallArgs { index, fragment });
            }
        }
    }
}

/// Reads `usage` of a chunk: prompt/completion tokens, cached and reasoning details, and `cost` where
/// the provider reports it (OpenRouter).
pub(crate) fn parse_usage(usage: &Value) -> Usage {
    let n = |v: Option<&Value>| v.and_then(Value::as_u64).unwrap_or(0);
    Usage {
        request_tokens: n(usage.get("prompt_tokens")),
        response_tokens: n(usage.get("completion_tokens")),
        cached_tokens: n(usage.pointer("/prompt_tokens_details/cached_tokens")),
        cache_write_tokens: 0,
        reasoning_tokens: n(usage.pointer("/completion_tokens_details/reasoning_tokens")),
        cost: usage.get("cost").and_then(Value::as_f64).unwrap_or(0.0),
    }
}

/// An `error` object sent inside a 200 stream.
fn stream_error(error: &Value) -> LlmError {
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| error.to_string());
    let code = error.get("code");
    let status = code.and_then(Value::as_u64).unwrap_or(0) as u16;
    let code_text = code.and_then(Value::as_str).unwrap_or("");
    if is_context_overflow(code_text, &message) {
        return LlmError::ContextOverflow { message };
    }
    match status {
        0 => LlmError::Server { status, message },
        s => LlmError::from_status(s, message, code_text, None),
    }
}

/// Classifies an HTTP error response of an OpenAI-compatible server.
pub(crate) fn classify_error(status: u16, body: &str, retry_after: Option<Duration>) -> LlmError {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let error = parsed.as_ref().and_then(|v| v.get("error"));
    let message = error
        .and_then(|e| e.get("message").or(Some(e)))
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| {
            let text = body.trim();
            if text.is_empty() {
                format!("HTTP {status}")
            } else {
                truncate(text, 500)
            }
        });
    let code = error
        .and_then(|e| e.get("code").or_else(|| e.get("type")))
        .and_then(Value::as_str)
        .unwrap_or("");
    LlmError::from_status(status, message, code, retry_after)
}

fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn decodes_text_reasoning_tool_calls_finish_and_usage() {
        let mut d = ChatStreamDecoder::default();
        let chunks = [
            json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}),
            json!({"choices": [{"delta": {"reasoning_content": "think"}}]}),
            json!({"choices": [{"delta": {"content": "Hi"}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                   "function": {"name": "grep", "arguments": ""}}]}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"a\""}}]}}]}),
            json!({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}),
            json!({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 4,
                   "prompt_tokens_details": {"cached_tokens": 6},
                   "completion_tokens_details": {"reasoning_tokens": 2}, "cost": 0.01}}),
        ];
        let events: Vec<ModelEvent> = chunks
            .iter()
            .flat_map(|c| d.decode_chunk(c).unwrap())
            .collect();
        assert_eq!(
            events,
            vec![
                ModelEvent::ThinkingDelta("think".into()),
                ModelEvent::TextDelta("Hi".into()),
                ModelEvent::ToolCallStart {
                    index: 0,
                    id: "c1".into(),
                    name: "grep".into()
                },
                ModelEvent::ToolCallArgs {
                    index: 0,
                    fragment: "{\"a\"".into()
                },
                ModelEvent::Finish("tool_calls".into()),
                ModelEvent::Usage(Usage {
                    request_tokens: 10,
                    response_tokens: 4,
                    cached_tokens: 6,
                    cache_write_tokens: 0,
                    reasoning_tokens: 2,
                    cost: 0.01
                }),
            ]
        );
        assert!(d.finished());
    }

    #[test]
    fn whole_tool_call_in_one_chunk_and_error_inside_a_stream() {
        let mut d = ChatStreamDecoder::default();
        let chunk = json!({"choices": [{"delta": {"tool_calls": [{"id": "x", "function":
            {"name": "glob", "arguments": {"pattern": "*.rs"}}}]}}]});
        let events = d.decode_chunk(&chunk).unwrap();
        assert_eq!(events.len(), 2);
        assert_eq!(
            events[1],
            ModelEvent::ToolCallArgs {
                index: 0,
                fragment: "{\"pattern\":\"*.rs\"}".into()
            }
        );
        let err = d
            .decode_chunk(&json!({"error": {"code": 400, "message": "Token limit reached"}}))
            .unwrap_err();
        assert_eq!(err.kind(), "bad_request");
        let err = d
            .decode_chunk(&json!({"error": {"message": "overloaded"}}))
            .unwrap_err();
        assert!(err.is_retryable());
    }

    #[test]
    fn error_bodies_keep_the_provider_message() {
        let body = r#"{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}}"#;
        let err = classify_error(401, body, None);
        assert_eq!(
            err,
            LlmError::Auth {
                status: 401,
                message: "Incorrect API key provided".into()
            }
        );
        let err = classify_error(
            400,
            r#"{"error": {"message": "too long", "code": "context_length_exceeded"}}"#,
            None,
        );
        assert_eq!(err.kind(), "context_overflow");
        let err = classify_error(502, "<html>bad gateway</html>", None);
        assert_eq!(
            err,
            LlmError::Server {
                status: 502,
                message: "<html>bad gateway</html>".into()
            }
        );
    }
}
