//! The Google Gemini streaming (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse`) wire
//! format of the fake provider.
//!
//! Like the real API: one `GenerateContentResponse` JSON per `data:` event, events separated by CRLF
//! (`\r\n\r\n`), no end marker (the body just ends), `usageMetadata` repeated and cumulative in every
//! chunk, each function call whole in one part carrying a `thoughtSignature`, and a last chunk with an
//! empty text part and `finishReason: STOP` (also when there are calls).

use serde_json::{Map, Value, json};

use crate::script::{Reply, ScriptedToolCall, ScriptedUsage};
use crate::wire::{RenderContext, SseReply, WireFormat, split_chars};

/// Characters per text/reasoning chunk when the reply says 0.
const DEFAULT_CHUNK_CHARS: usize = 4;

/// Google Gemini streaming (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse`).
///
/// Reasoning is sent as thought-summary parts (`{"text": …, "thought": true}`). Each scripted tool call
/// is one `functionCall` part (`args` is the parsed argument object; `id` is the scripted id, left out
/// when empty) with the signature [`Gemini::thought_signature`] of its turn and position.
#[derive(Debug, Clone, Copy, Default)]
pub struct Gemini;

impl Gemini {
    /// The fake `thoughtSignature` on call `call_index` (0-based) of turn `turn_number` (1-based).
    /// It holds `+`, `/` and `=` so a client that re-encodes it instead of sending it back byte-exact
    /// is caught.
    pub fn thought_signature(turn_number: usize, call_index: usize) -> String {
        format!("ZmFrZQ+sig/turn{turn_number}/call{call_index}==")
    }
}

impl WireFormat for Gemini {
    fn check_request(&self, body: &Value) -> crate::rules::Verdict {
        crate::rules::gemini(body)
    }

    fn name(&self) -> &str {
        "gemini"
    }

    fn handles(&self, path: &str) -> bool {
        path.ends_with(":streamGenerateContent")
    }

    fn render(&self, reply: &Reply, ctx: &RenderContext<'_>) -> SseReply {
        let chunk_chars = if reply.chunk_chars == 0 {
            DEFAULT_CHUNK_CHARS
        } else {
            reply.chunk_chars
        };
        let mut parts: Vec<Value> = Vec::new();
        if let Some(reasoning) = &reply.reasoning {
            for piece in split_chars(reasoning, chunk_chars) {
                parts.push(json!({"text": piece, "thought": true}));
            }
        }
        if let Some(text) = &reply.text {
            for piece in split_chars(text, chunk_chars) {
                parts.push(json!({"text": piece}));
            }
        }
        for (index, call) in reply.tool_calls.iter().enumerate() {
            parts.push(function_call(call, ctx.turn_number, index));
        }
        parts.push(json!({"text": ""}));

        let chunker = Chunker {
            model: model_of(ctx.request.path_without_query()),
            response_id: format!("fake-response-{}", ctx.turn_number),
            usage: reply.usage,
            chunks: parts.len(),
        };
        let last = parts.len() - 1;
        let finish = finish_reason(reply);
        let frames = parts
            .into_iter()
            .enumerate()
            .map(|(i, part)| chunker.frame(i, part, (i == last).then_some(finish.as_str())))
            .collect();
        SseReply {
            frames,
            end_marker: None,
        }
    }

    fn error_body(&self, status: u16, message: &str) -> String {
        json!({"error": {"code": status, "message": message, "status": status_name(status)}})
            .to_string()
    }
}

/// One `functionCall` part with its signature.
fn function_call(call: &ScriptedToolCall, turn_number: usize, index: usize) -> Value {
    let args = match serde_json::from_str::<Value>(&call.arguments) {
        Ok(Value::Object(map)) => Value::Object(map),
        _ if call.arguments.trim().is_empty() => json!({}),
        // Not an object: Gemini never sends that, but keep the scripted text visible.
        _ => Value::String(call.arguments.clone()),
    };
    let mut function = Map::new();
    function.insert("name".into(), json!(call.name));
    function.insert("args".into(), args);
    if !call.id.is_empty() {
        function.insert("id".into(), json!(call.id));
    }
    json!({
        "functionCall": function,
        "thoughtSignature": Gemini::thought_signature(turn_number, index),
    })
}

/// The scripted finish reason (OpenAI words) in Gemini's words.
fn finish_reason(reply: &Reply) -> String {
    match reply.finish_reason.as_deref() {
        None | Some("stop") | Some("tool_calls") => "STOP".into(),
        Some("length") => "MAX_TOKENS".into(),
        Some(other) => other.to_ascii_uppercase(),
    }
}

/// The model name of `/…/models/{model}:streamGenerateContent`.
fn model_of(path: &str) -> String {
    path.rsplit_once("/models/")
        .map(|(_, rest)| rest)
        .and_then(|rest| rest.split_once(':'))
        .map_or_else(|| "fake-model".to_string(), |(model, _)| model.to_string())
}

/// The gRPC status name Google puts next to an HTTP status.
fn status_name(status: u16) -> &'static str {
    match status {
        400 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        409 => "ABORTED",
        429 => "RESOURCE_EXHAUSTED",
        499 => "CANCELLED",
        500 => "INTERNAL",
        503 => "UNAVAILABLE",
        504 => "DEADLINE_EXCEEDED",
        _ => "UNKNOWN",
    }
}

/// Builds the chunks of one response.
struct Chunker {
    model: String,
    response_id: String,
    usage: Option<ScriptedUsage>,
    chunks: usize,
}

impl Chunker {
    /// Chunk `i` holding `part`, with the finish reason on the last one.
    fn frame(&self, i: usize, part: Value, finish: Option<&str>) -> String {
        let mut candidate = json!({"content": {"parts": [part], "role": "model"}, "index": 0});
        if let Some(reason) = finish {
            candidate["finishReason"] = json!(reason);
        }
        let mut chunk = json!({"candidates": [candidate]});
        if let Some(usage) = &self.usage {
            chunk["usageMetadata"] = self.usage_at(usage, i);
        }
        chunk["modelVersion"] = json!(self.model);
        chunk["responseId"] = json!(self.response_id);
        format!("data: {chunk}\r\n\r\n")
    }

    /// Cumulative usage after chunk `i`: output tokens grow to the scripted total on the last chunk.
    fn usage_at(&self, usage: &ScriptedUsage, i: usize) -> Value {
        let output = usage.completion_tokens * (i as u64 + 1) / self.chunks.max(1) as u64;
        let mut meta = json!({
            "promptTokenCount": usage.prompt_tokens,
            "candidatesTokenCount": output,
            "totalTokenCount": usage.prompt_tokens + output,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": usage.prompt_tokens}],
        });
        if usage.cached_tokens > 0 {
            meta["cachedContentTokenCount"] = json!(usage.cached_tokens);
        }
        meta
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::Gemini;
    use crate::recorded::RecordedRequest;
    use crate::script::{Reply, ScriptedUsage, Turn};
    use crate::wire::{RenderContext, WireFormat};

    fn render(reply: &Reply) -> (Vec<Value>, Vec<String>) {
        let req = RecordedRequest::post(
            "/v1/models/gemini-x:streamGenerateContent?alt=sse",
            &json!({}),
        );
        let ctx = RenderContext {
            turn_number: 2,
            request: &req,
        };
        let out = Gemini.render(reply, &ctx);
        assert_eq!(out.end_marker, None, "Gemini has no end marker");
        let chunks = out
            .frames
            .iter()
            .map(|f| {
                let data = f
                    .strip_prefix("data: ")
                    .and_then(|f| f.strip_suffix("\r\n\r\n"))
                    .expect("frame shape");
                serde_json::from_str(data).expect("frame JSON")
            })
            .collect();
        (chunks, out.frames)
    }

    fn parts(chunks: &[Value]) -> Vec<Value> {
        chunks
            .iter()
            .map(|c| c["candidates"][0]["content"]["parts"][0].clone())
            .collect()
    }

    #[test]
    fn handles_the_streaming_path_only() {
        assert!(Gemini.handles("/v1beta/models/gemini-2.5-pro:streamGenerateContent"));
        assert!(!Gemini.handles("/v1beta/models/gemini-2.5-pro:generateContent"));
        assert!(!Gemini.handles("/v1/chat/completions"));
    }

    #[test]
    fn text_reply_is_crlf_framed_and_ends_with_an_empty_stop_chunk() {
        let Turn::Reply(reply) = Turn::text("héllo world") else {
            unreachable!()
        };
        let (chunks, frames) = render(&reply);
        // One event per frame, ended by a blank line with CRLF line ends.
        assert!(
            frames
                .iter()
                .all(|f| f.matches('\n').count() == 2 && f.ends_with("\r\n\r\n"))
        );
        assert_eq!(
            parts(&chunks),
            [
                json!({"text": "héll"}),
                json!({"text": "o wo"}),
                json!({"text": "rld"}),
                json!({"text": ""})
            ]
        );
        assert_eq!(
            chunks[3],
            json!({"candidates": [{"content": {"parts": [{"text": ""}], "role": "model"}, "index": 0,
                   "finishReason": "STOP"}],
                   "modelVersion": "gemini-x", "responseId": "fake-response-2"})
        );
        assert!(
            chunks[..3]
                .iter()
                .all(|c| c["candidates"][0].get("finishReason").is_none())
        );
        assert!(chunks.iter().all(|c| c.get("usageMetadata").is_none()));
    }

    #[test]
    fn thoughts_calls_with_signatures_and_cumulative_usage() {
        let reply = Reply {
            reasoning: Some("plan".into()),
            usage: Some(ScriptedUsage {
                prompt_tokens: 10,
                completion_tokens: 8,
                cached_tokens: 3,
            }),
            ..match Turn::tool_calls(&[
                ("call_1", "read_file", r#"{"path": "a"}"#),
                ("", "list_dir", ""),
            ]) {
                Turn::Reply(r) => r,
                Turn::HttpError { .. } => unreachable!(),
            }
        };
        let (chunks, _) = render(&reply);
        assert_eq!(
            parts(&chunks),
            [
                json!({"text": "plan", "thought": true}),
                json!({"functionCall": {"name": "read_file", "args": {"path": "a"}, "id": "call_1"},
                       "thoughtSignature": "ZmFrZQ+sig/turn2/call0=="}),
                json!({"functionCall": {"name": "list_dir", "args": {}},
                       "thoughtSignature": "ZmFrZQ+sig/turn2/call1=="}),
                json!({"text": ""}),
            ]
        );
        assert_eq!(chunks[3]["candidates"][0]["finishReason"], "STOP");
        let output: Vec<u64> = chunks
            .iter()
            .map(|c| c["usageMetadata"]["candidatesTokenCount"].as_u64().unwrap())
            .collect();
        assert_eq!(
            output,
            [2, 4, 6, 8],
            "cumulative, complete on the last chunk"
        );
        assert_eq!(
            chunks[3]["usageMetadata"],
            json!({"promptTokenCount": 10, "candidatesTokenCount": 8, "totalTokenCount": 18,
                   "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 10}],
                   "cachedContentTokenCount": 3})
        );
    }

    #[test]
    fn finish_reasons_and_error_bodies_use_google_words() {
        let reply = Reply {
            text: Some("cut".into()),
            finish_reason: Some("length".into()),
            ..Reply::default()
        };
        let (chunks, _) = render(&reply);
        assert_eq!(chunks[1]["candidates"][0]["finishReason"], "MAX_TOKENS");
        let body: Value = serde_json::from_str(&Gemini.error_body(429, "slow down")).unwrap();
        assert_eq!(
            body,
            json!({"error": {"code": 429, "message": "slow down", "status": "RESOURCE_EXHAUSTED"}})
        );
    }
}
