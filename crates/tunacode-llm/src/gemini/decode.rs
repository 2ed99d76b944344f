//! Gemini `GenerateContentResponse` SSE chunks → model events, and Google error bodies → [`LlmError`].
//!
//! Gemini has no end marker: the body simply ends. A chunk with a `finishReason` makes the response
//! complete. Each `functionCall` arrives whole in one part; a `thoughtSignature` on a part is passed
//! on byte-exact as [`ModelEvent::PartDetails`] for that part.

use std::time::Duration;

use serde_json::{Map, Value, json};
use tunacode_protocol::Usage;

use crate::client::{ModelEvent, PartTarget};
use crate::error::{LlmError, is_context_overflow};
use crate::http::{Decoded, StreamDecoder};
use crate::sse::SseEvent;
use crate::usage_norm::{Counting, RawUsage, normalize};

/// Decodes the chunks of one streamed Gemini response.
#[derive(Debug, Default)]
pub struct GeminiStreamDecoder {
    /// Tool calls seen so far (the index of the next one).
    calls: usize,
    /// A finish reason (or a blocked prompt) was seen.
    finished: bool,
    /// The latest cumulative usage.
    usage: Option<Usage>,
    /// `responseId` / `modelVersion` as last reported.
    details: Map<String, Value>,
}

impl StreamDecoder for GeminiStreamDecoder {
    fn decode(&mut self, event: &SseEvent) -> Result<Decoded, LlmError> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(Decoded::Events(Vec::new()));
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

impl GeminiStreamDecoder {
    /// Decodes one parsed chunk.
    pub fn decode_chunk(&mut self, chunk: &Value) -> Result<Vec<ModelEvent>, LlmError> {
        if let Some(error) = chunk.get("error") {
            return Err(classify_error_value(0, error, None));
        }
        let mut events = Vec::new();
        self.response_details(chunk, &mut events);
        let candidate = chunk
            .get("candidates")
            .and_then(Value::as_array)
            .and_then(|c| c.first());
        let parts = candidate
            .and_then(|c| c.pointer("/content/parts"))
            .and_then(Value::as_array);
        for part in parts.into_iter().flatten() {
            self.decode_part(part, &mut events);
        }
        let finish = candidate
            .and_then(|c| c.get("finishReason"))
            .and_then(Value::as_str)
            .map(|reason| self.finish_reason(reason))
            .or_else(|| {
                // A blocked prompt has no candidate at all, only the reason.
                chunk
                    .pointer("/promptFeedback/blockReason")
                    .and_then(Value::as_str)
                    .map(str::to_ascii_lowercase)
            });
        let usage = chunk
            .get("usageMetadata")
            .filter(|u| u.is_object())
            .map(parse_usage);
        if usage.is_some() {
            self.usage = usage;
        }
        if let Some(reason) = finish {
            self.finished = true;
            events.push(ModelEvent::Finish(reason));
            events.extend(self.usage.map(ModelEvent::Usage));
        } else if self.finished && usage.is_some() {
            // Usage reported after the finish: the assembler keeps the last value.
            events.extend(self.usage.map(ModelEvent::Usage));
        }
        Ok(events)
    }

    fn decode_part(&mut self, part: &Value, events: &mut Vec<ModelEvent>) {
        let signature = part.get("thoughtSignature").and_then(Value::as_str);
        if let Some(call) = part.get("functionCall") {
            let index = self.calls;
            self.calls += 1;
            let text = |key| call.get(key).and_then(Value::as_str).unwrap_or_default();
            events.push(ModelEvent::ToolCallStart {
                index,
                id: text("id").to_string(),
                name: text("name").to_string(),
            });
            let fragment = match call.get("args") {
                None | Some(Value::Null) => "{}".to_string(),
                Some(args) => args.to_string(),
            };
            events.push(ModelEvent::ToolCallArgs { index, fragment });
            if let Some(sig) = signature {
                events.push(details(PartTarget::ToolCall(index), Some(sig)));
            }
            return;
        }
        let Some(text) = part.get("text").and_then(Value::as_str) else {
            // Other part kinds (inline data, code execution) are not used by TunaCode.
            return;
        };
        if part.get("thought").and_then(Value::as_bool) == Some(true) {
            if !text.is_empty() {
                events.push(ModelEvent::ThinkingDelta(text.to_string()));
            }
            if !text.is_empty() || signature.is_some() {
                events.push(details(PartTarget::Thinking, signature));
            }
            return;
        }
        if !text.is_empty() {
            events.push(ModelEvent::TextDelta(text.to_string()));
        }
        if let Some(sig) = signature {
            events.push(details(PartTarget::Text, Some(sig)));
        }
    }

    /// Our finish reason for Gemini's (`STOP` says nothing about tool calls).
    fn finish_reason(&self, reason: &str) -> String {
        match reason {
            "STOP" if self.calls > 0 => "tool_calls".into(),
            "STOP" => "stop".into(),
            "MAX_TOKENS" => "length".into(),
            other => other.to_ascii_lowercase(),
        }
    }

    /// Emits `responseId` / `modelVersion` when first seen or changed.
    fn response_details(&mut self, chunk: &Value, events: &mut Vec<ModelEvent>) {
        let mut changed = Map::new();
        for (wire, key) in [
            ("responseId", "response_id"),
            ("modelVersion", "model_version"),
        ] {
            if let Some(value) = chunk.get(wire).filter(|v| v.is_string())
                && self.details.get(key) != Some(value)
            {
                self.details.insert(key.into(), value.clone());
                changed.insert(key.into(), value.clone());
            }
        }
        if !changed.is_empty() {
            changed.insert("provider".into(), json!("google"));
            events.push(ModelEvent::ResponseDetails(changed));
        }
    }
}

/// A [`ModelEvent::PartDetails`] naming Google as the provider, with the signature when there is one.
fn details(target: PartTarget, signature: Option<&str>) -> ModelEvent {
    let mut details = Map::new();
    if let Some(sig) = signature {
        details.insert("thought_signature".into(), json!(sig));
    }
    details.insert("provider".into(), json!("google"));
    ModelEvent::PartDetails { target, details }
}

/// Reads a cumulative `usageMetadata`.
fn parse_usage(usage: &Value) -> Usage {
    let n = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    normalize(
        Counting::Gemini,
        RawUsage {
            input: n("promptTokenCount"),
            output: n("candidatesTokenCount"),
            cache_read: n("cachedContentTokenCount"),
            reasoning: n("thoughtsTokenCount"),
            ..RawUsage::default()
        },
    )
}

/// Classifies a Google error object (`{"code", "message", "status", "details"}`), from an HTTP error
/// body (`http_status` set) or from inside a stream (`http_status` 0: the object's `code` is used).
fn classify_error_value(
    http_status: u16,
    error: &Value,
    retry_after: Option<Duration>,
) -> LlmError {
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| truncate(&error.to_string(), 500));
    let code = error.get("code").and_then(Value::as_u64).unwrap_or(0) as u16;
    let status = if http_status != 0 { http_status } else { code };
    let grpc = error.get("status").and_then(Value::as_str).unwrap_or("");
    let details = error.get("details").and_then(Value::as_array);
    let reason = details
        .into_iter()
        .flatten()
        .find_map(|d| d.get("reason").and_then(Value::as_str))
        .unwrap_or("");
    let lower = message.to_ascii_lowercase();
    if lower.contains("exceeds the maximum number of tokens")
        || (grpc == "INVALID_ARGUMENT" && lower.contains("token count"))
        || is_context_overflow(grpc, &message)
    {
        return LlmError::ContextOverflow { message };
    }
    if reason == "API_KEY_INVALID"
        || matches!(grpc, "UNAUTHENTICATED" | "PERMISSION_DENIED")
        || matches!(status, 401 | 403)
    {
        let status = if status == 0 { 401 } else { status };
        return LlmError::Auth { status, message };
    }
    if status == 429 || grpc == "RESOURCE_EXHAUSTED" {
        // Gemini words even per-minute limits as "quota"; its `RetryInfo` says how long to wait.
        let asked = details
            .into_iter()
            .flatten()
            .find_map(|d| d.get("retryDelay").and_then(Value::as_str))
            .and_then(parse_delay);
        return LlmError::RateLimit {
            message,
            retry_after: retry_after.or(asked),
        };
    }
    if grpc == "UNAVAILABLE" || status == 503 {
        return LlmError::Overloaded { status, message };
    }
    if matches!(grpc, "INTERNAL" | "DEADLINE_EXCEEDED") || status == 0 {
        return LlmError::Server { status, message };
    }
    LlmError::from_status(status, message, grpc, retry_after)
}

/// Parses a protobuf duration such as `"32s"` or `"1.5s"`.
fn parse_delay(text: &str) -> Option<Duration> {
    let secs: f64 = text.trim().strip_suffix('s')?.parse().ok()?;
    (secs.is_finite() && secs >= 0.0)
        .then(|| Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX))
}

/// Classifies an HTTP error response of the Gemini API (the body may be an object or, for some
/// endpoints, a one-element array).
pub(crate) fn classify_error(status: u16, body: &str, retry_after: Option<Duration>) -> LlmError {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let error = parsed.as_ref().and_then(|v| match v {
        Value::Array(items) => items.first().and_then(|i| i.get("error")),
        other => other.get("error"),
    });
    match error {
        Some(error) if error.is_object() => classify_error_value(status, error, retry_after),
        _ => {
            let text = body.trim();
            let message = if text.is_empty() {
                format!("HTTP {status}")
            } else {
                truncate(text, 500)
            };
            LlmError::from_status(status, message, "", retry_after)
        }
    }
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

    fn chunk(parts: Value, finish: Option<&str>, usage: Option<Value>) -> Value {
        let mut candidate = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
        if let Some(f) = finish {
            candidate["finishReason"] = json!(f);
        }
        let mut c =
            json!({"candidates": [candidate], "modelVersion": "gemini-x", "responseId": "r1"});
        if let Some(u) = usage {
            c["usageMetadata"] = u;
        }
        c
    }

    fn pd(target: PartTarget, details: Value) -> ModelEvent {
        let details = details.as_object().cloned().unwrap();
        ModelEvent::PartDetails { target, details }
    }

    #[test]
    fn decodes_thoughts_text_calls_signatures_finish_and_last_usage() {
        let mut d = GeminiStreamDecoder::default();
        let u1 =
            json!({"promptTokenCount": 10, "candidatesTokenCount": 1, "thoughtsTokenCount": 5});
        let u2 = json!({"promptTokenCount": 12, "candidatesTokenCount": 7, "thoughtsTokenCount": 5,
                        "cachedContentTokenCount": 4});
        let chunks = [
            chunk(json!([{"text": "plan", "thought": true}]), None, Some(u1)),
            chunk(json!([{"text": "Hi"}]), None, None),
            chunk(
                json!([
                    {"functionCall": {"name": "glob", "args": {"pattern": "*"}, "id": "x1"}, "thoughtSignature": "S+/="},
                    {"functionCall": {"name": "grep"}}
                ]),
                None,
                None,
            ),
            chunk(
                json!([{"text": "", "thoughtSignature": "T=="}]),
                Some("STOP"),
                Some(u2),
            ),
        ];
        let events: Vec<ModelEvent> = chunks
            .iter()
            .flat_map(|c| d.decode_chunk(c).unwrap())
            .collect();
        let usage = Usage {
            request_tokens: 12,
            response_tokens: 12,
            cached_tokens: 4,
            reasoning_tokens: 5,
            ..Usage::default()
        };
        let response =
            json!({"response_id": "r1", "model_version": "gemini-x", "provider": "google"});
        assert_eq!(
            events,
            vec![
                ModelEvent::ResponseDetails(response.as_object().cloned().unwrap()),
                ModelEvent::ThinkingDelta("plan".into()),
                pd(PartTarget::Thinking, json!({"provider": "google"})),
                ModelEvent::TextDelta("Hi".into()),
                ModelEvent::ToolCallStart {
                    index: 0,
                    id: "x1".into(),
                    name: "glob".into()
                },
                ModelEvent::ToolCallArgs {
                    index: 0,
                    fragment: "{\"pattern\":\"*\"}".into()
                },
                pd(
                    PartTarget::ToolCall(0),
                    json!({"thought_signature": "S+/=", "provider": "google"})
                ),
                ModelEvent::ToolCallStart {
                    index: 1,
                    id: String::new(),
                    name: "grep".into()
                },
                ModelEvent::ToolCallArgs {
                    index: 1,
                    fragment: "{}".into()
                },
                pd(
                    PartTarget::Text,
                    json!({"thought_signature": "T==", "provider": "google"})
                ),
                ModelEvent::Finish("tool_calls".into()),
                ModelEvent::Usage(usage),
            ]
        );
        assert!(d.finished());
        // Usage after the finish updates it.
        let late = json!({"usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 7}});
        assert_eq!(
            d.decode_chunk(&late).unwrap(),
            vec![ModelEvent::Usage(Usage {
                request_tokens: 20,
                response_tokens: 7,
                ..Usage::default()
            })]
        );
    }

    #[test]
    fn finish_reasons_map_and_a_blocked_prompt_finishes() {
        for (wire, ours) in [
            ("STOP", "stop"),
            ("MAX_TOKENS", "length"),
            ("SAFETY", "safety"),
            ("RECITATION", "recitation"),
            ("MALFORMED_FUNCTION_CALL", "malformed_function_call"),
        ] {
            let mut d = GeminiStreamDecoder::default();
            assert!(!d.finished());
            let events = d.decode_chunk(&chunk(json!([]), Some(wire), None)).unwrap();
            assert_eq!(events.last(), Some(&ModelEvent::Finish(ours.into())));
            assert!(d.finished());
        }
        let mut d = GeminiStreamDecoder::default();
        let events = d
            .decode_chunk(&json!({"promptFeedback": {"blockReason": "SAFETY"}}))
            .unwrap();
        assert_eq!(events, vec![ModelEvent::Finish("safety".into())]);
        assert!(d.finished());
    }

    #[test]
    fn error_bodies_and_stream_errors_map_to_kinds() {
        let overflow = "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).";
        let cases = [
            (
                429,
                "RESOURCE_EXHAUSTED",
                "Resource has been exhausted (e.g. check quota).",
                "rate_limit",
            ),
            (400, "INVALID_ARGUMENT", overflow, "context_overflow"),
            (403, "PERMISSION_DENIED", "Permission denied", "auth"),
            (
                400,
                "INVALID_ARGUMENT",
                "Invalid JSON payload received.",
                "bad_request",
            ),
            (404, "NOT_FOUND", "models/x is not found", "bad_request"),
            (503, "UNAVAILABLE", "The model is overloaded.", "overloaded"),
            (500, "INTERNAL", "An internal error has occurred.", "server"),
        ];
        for (status, grpc, message, kind) in cases {
            let body = json!({"error": {"code": status, "message": message, "status": grpc}});
            let err = classify_error(status, &body.to_string(), None);
            assert_eq!(err.kind(), kind, "{body}");
            assert!(err.to_string().contains(message), "{err}");
        }
        assert_eq!(
            classify_error(502, "<html>bad gateway</html>", None),
            LlmError::Server {
                status: 502,
                message: "<html>bad gateway</html>".into()
            }
        );
        let invalid_key = r#"[{"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.",
            "status": "INVALID_ARGUMENT", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "API_KEY_INVALID", "domain": "googleapis.com"}]}}]"#;
        assert_eq!(
            classify_error(400, invalid_key, None),
            LlmError::Auth {
                status: 400,
                message: "API key not valid. Please pass a valid API key.".into()
            }
        );
        let with_delay = r#"{"error": {"code": 429, "message": "You exceeded your current quota", "status":
            "RESOURCE_EXHAUSTED", "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2.5s"}]}}"#;
        assert_eq!(
            classify_error(429, with_delay, None),
            LlmError::RateLimit {
                message: "You exceeded your current quota".into(),
                retry_after: Some(Duration::from_millis(2500))
            }
        );
        let header_wins = classify_error(429, with_delay, Some(Duration::from_secs(1)));
        assert!(
            matches!(header_wins, LlmError::RateLimit { retry_after: Some(d), .. } if d == Duration::from_secs(1))
        );
        let mut d = GeminiStreamDecoder::default();
        let err = d
            .decode_chunk(
                &json!({"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}}),
            )
            .unwrap_err();
        assert_eq!(
            err,
            LlmError::Overloaded {
                status: 503,
                message: "overloaded".into()
            }
        );
        let err = d
            .decode_chunk(&json!({"error": {"message": "something broke"}}))
            .unwrap_err();
        assert!(err.is_retryable(), "{err:?}");
    }
}
