//! OpenAI Chat Completions streaming (`POST /v1/chat/completions`, `"stream": true`).

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::script::{Reply, ScriptedUsage};
use crate::wire::{RenderContext, SseReply, WireFormat, split_chars};

/// Characters per text/reasoning delta when the reply says 0.
const DEFAULT_CHUNK_CHARS: usize = 4;
/// Characters per tool-call argument piece.
const ARGUMENT_PIECE_CHARS: usize = 5;

/// The OpenAI Chat Completions SSE format (also spoken by DeepSeek, vLLM, OpenRouter, ...).
///
/// Reasoning is sent as `delta.reasoning_content`. When the request sets
/// `stream_options.include_usage`, every regular chunk carries `"usage": null` like the real API.
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenAiChat;

impl WireFormat for OpenAiChat {
    fn check_request(&self, body: &Value) -> crate::rules::Verdict {
        crate::rules::chat(body)
    }

    fn name(&self) -> &str {
        "openai-chat"
    }

    fn handles(&self, path: &str) -> bool {
        path == "/v1/chat/completions"
    }

    fn render(&self, reply: &Reply, ctx: &RenderContext<'_>) -> SseReply {
        let chunker = Chunker::for_request(ctx);
        let mut frames = vec![chunker.delta(json!({"role": "assistant", "content": ""}), None)];
        frames.extend(deltas(reply).into_iter().map(|d| chunker.delta(d, None)));
        let finish = reply.finish_reason.clone().unwrap_or_else(|| {
            if reply.tool_calls.is_empty() {
                "stop".to_string()
            } else {
                "tool_calls".to_string()
            }
        });
        frames.push(chunker.delta(json!({}), Some(&finish)));
        if let Some(usage) = &reply.usage {
            frames.push(chunker.usage(usage));
        }
        SseReply {
            frames,
            end_marker: Some("data: [DONE]\n\n".to_string()),
        }
    }
}

/// The reply's content as chunk deltas: the reasoning, the text, then each tool call (its name, then
/// its arguments in pieces).
fn deltas(reply: &Reply) -> Vec<Value> {
    let chunk_chars = if reply.chunk_chars == 0 {
        DEFAULT_CHUNK_CHARS
    } else {
        reply.chunk_chars
    };
    let mut deltas = Vec::new();
    if let Some(reasoning) = &reply.reasoning {
        for piece in split_chars(reasoning, chunk_chars) {
            deltas.push(json!({"reasoning_content": piece}));
        }
    }
    if let Some(text) = &reply.text {
        for piece in split_chars(text, chunk_chars) {
            deltas.push(json!({"content": piece}));
        }
    }
    for (index, call) in reply.tool_calls.iter().enumerate() {
        deltas.push(json!({"tool_calls": [{
            "index": index,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }]}));
        for piece in split_chars(&call.arguments, ARGUMENT_PIECE_CHARS) {
            deltas
                .push(json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}));
        }
    }
    deltas
}

/// Builds the chunks of one response.
struct Chunker {
    id: String,
    created: u64,
    model: String,
    usage_null: bool,
}

impl Chunker {
    /// The chunks' id (from the turn), time and model, and whether they carry `"usage": null` (when
    /// the request asks for usage).
    fn for_request(ctx: &RenderContext<'_>) -> Chunker {
        let body = &ctx.request.outline;
        Chunker {
            id: format!("chatcmpl-fake-{}", ctx.turn_number),
            created: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
            model: body
                .get("model")
                .and_then(Value::as_str)
                .unwrap_or("fake-model")
                .to_string(),
            usage_null: body
                .pointer("/stream_options/include_usage")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        }
    }

    fn frame(&self, choices: Value, usage: Option<Value>) -> String {
        let mut chunk = json!({
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": choices,
        });
        match usage {
            Some(usage) => chunk["usage"] = usage,
            None if self.usage_null => chunk["usage"] = Value::Null,
            None => {}
        }
        format!("data: {chunk}\n\n")
    }

    fn delta(&self, delta: Value, finish_reason: Option<&str>) -> String {
        self.frame(
            json!([{"index": 0, "delta": delta, "finish_reason": finish_reason}]),
            None,
        )
    }

    fn usage(&self, usage: &ScriptedUsage) -> String {
        self.frame(
            json!([]),
            Some(json!({
                "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens,
                "total_tokens": usage.prompt_tokens + usage.completion_tokens,
                "prompt_tokens_details": {"cached_tokens": usage.cached_tokens},
            })),
        )
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::OpenAiChat;
    use crate::recorded::RecordedRequest;
    use crate::script::{Reply, ScriptedUsage, Turn};
    use crate::wire::{RenderContext, WireFormat};

    fn request(body: Value) -> RecordedRequest {
        RecordedRequest::post("/v1/chat/completions", &body)
    }

    fn chunks(reply: &Reply, body: Value) -> Vec<Value> {
        let req = request(body);
        let ctx = RenderContext {
            turn_number: 3,
            request: &req,
        };
        let out = OpenAiChat.render(reply, &ctx);
        assert_eq!(out.end_marker.as_deref(), Some("data: [DONE]\n\n"));
        out.frames
            .iter()
            .map(|f| {
                let data = f
                    .strip_prefix("data: ")
                    .and_then(|f| f.strip_suffix("\n\n"));
                serde_json::from_str(data.expect("frame shape")).expect("frame JSON")
            })
            .collect()
    }

    #[test]
    fn text_reply_chunks() {
        let Turn::Reply(reply) = Turn::text("héllo world") else {
            unreachable!()
        };
        let c = chunks(&reply, json!({"model": "gpt-x", "stream": true}));
        assert_eq!(c[0]["id"], "chatcmpl-fake-3");
        assert_eq!(c[0]["object"], "chat.completion.chunk");
        assert_eq!(c[0]["model"], "gpt-x");
        assert_eq!(
            c[0]["choices"],
            json!([{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}])
        );
        let text: Vec<&str> = c[1..c.len() - 1]
            .iter()
            .map(|c| {
                c["choices"][0]["delta"]["content"]
                    .as_str()
                    .expect("content")
            })
            .collect();
        assert_eq!(text, ["héll", "o wo", "rld"]);
        let last = &c[c.len() - 1];
        assert_eq!(last["choices"][0]["delta"], json!({}));
        assert_eq!(last["choices"][0]["finish_reason"], "stop");
        assert!(last.get("usage").is_none());
    }

    #[test]
    fn reasoning_tools_usage_and_usage_null() {
        let reply = Reply {
            reasoning: Some("think".into()),
            usage: Some(ScriptedUsage {
                prompt_tokens: 10,
                completion_tokens: 5,
                cached_tokens: 2,
            }),
            ..match Turn::tool_calls(&[("call_1", "read_file", r#"{"path":"src/main.rs"}"#)]) {
                Turn::Reply(r) => r,
                Turn::HttpError { .. } => unreachable!(),
            }
        };
        let body = json!({"stream": true, "stream_options": {"include_usage": true}});
        let c = chunks(&reply, body);
        assert_eq!(c[0]["model"], "fake-model");
        assert_eq!(c[0]["usage"], Value::Null);
        assert_eq!(c[1]["choices"][0]["delta"]["reasoning_content"], "thin");
        assert_eq!(c[2]["choices"][0]["delta"]["reasoning_content"], "k");
        assert_eq!(
            c[3]["choices"][0]["delta"]["tool_calls"][0],
            json!({"index":0,"id":"call_1","type":"function","function":{"name":"read_file","arguments":""}})
        );
        let n = c.len();
        assert_eq!(c[n - 2]["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(c[n - 1]["choices"], json!([]));
        assert_eq!(c[n - 1]["usage"]["total_tokens"], 15);
        assert_eq!(
            c[n - 1]["usage"]["prompt_tokens_details"]["cached_tokens"],
            2
        );
    }
}
