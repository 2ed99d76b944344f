//! The Anthropic Messages streaming (`POST /v1/messages`) wire format of the fake provider.

use serde_json::{Value, json};

use crate::script::{Reply, ScriptedUsage};
use crate::wire::{RenderContext, SseReply, WireFormat, split_chars};

/// Characters per text/thinking delta when the reply says 0.
const DEFAULT_CHUNK_CHARS: usize = 4;
/// Characters per `input_json_delta` piece.
const ARGUMENT_PIECE_CHARS: usize = 5;

/// Anthropic Messages streaming (`POST /v1/messages`), as the real API sends it: `event:` lines,
/// `message_start` → one content block at a time (`thinking` with a `signature_delta` of
/// `sig-<turn>`, `text`, then each `tool_use` with `input: {}` and `input_json_delta` pieces) →
/// `message_delta` (stop reason, cumulative `output_tokens`) → `message_stop`, with a `ping` after
/// `message_start`.
///
/// Usage is always sent, as the real API does (zeros when the reply has none). Anthropic's
/// `input_tokens` exclude cache reads, so it is `prompt_tokens - cached_tokens` and the client's
/// normalised input equals `prompt_tokens` as in every other format. A scripted `finish_reason` in
/// OpenAI's words (`stop`, `tool_calls`, `length`) is translated; others are sent as they are.
#[derive(Debug, Clone, Copy, Default)]
pub struct AnthropicMessages;

impl WireFormat for AnthropicMessages {
    fn check_request(&self, body: &Value) -> crate::rules::Verdict {
        crate::rules::anthropic(body)
    }

    fn name(&self) -> &str {
        "anthropic-messages"
    }

    fn handles(&self, path: &str) -> bool {
        path.ends_with("/messages")
    }

    fn render(&self, reply: &Reply, ctx: &RenderContext<'_>) -> SseReply {
        let model = ctx
            .request
            .outline
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or("fake-model");
        let usage = reply.usage.unwrap_or_default();
        let mut frames = vec![message_start(ctx.turn_number, model, &usage)];
        frames.push(frame("ping", json!({"type": "ping"})));
        let blocks = content_blocks(reply, ctx.turn_number);
        for (index, (start, deltas)) in blocks.into_iter().enumerate() {
            block(&mut frames, index, start, deltas);
        }
        frames.push(frame(
            "message_delta",
            json!({
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason(reply), "stop_sequence": null},
                "usage": {"output_tokens": usage.completion_tokens},
            }),
        ));
        SseReply {
            frames,
            end_marker: Some(frame("message_stop", json!({"type": "message_stop"}))),
        }
    }

    fn error_body(&self, status: u16, message: &str) -> String {
        let kind = match status {
            401 => "authentication_error",
            403 => "permission_error",
            404 => "not_found_error",
            413 => "request_too_large",
            429 => "rate_limit_error",
            529 => "overloaded_error",
            400..=499 => "invalid_request_error",
            _ => "api_error",
        };
        json!({"type": "error", "error": {"type": kind, "message": message}}).to_string()
    }
}

/// The reply's content blocks in the order the real API sends them, each as its `content_block` and
/// its deltas: the thinking (signed `sig-<turn>`), the text, then each tool call.
fn content_blocks(reply: &Reply, turn_number: usize) -> Vec<(Value, Vec<Value>)> {
    let chunk_chars = if reply.chunk_chars == 0 {
        DEFAULT_CHUNK_CHARS
    } else {
        reply.chunk_chars
    };
    let mut blocks = Vec::new();
    if let Some(reasoning) = &reply.reasoning {
        let mut deltas: Vec<Value> = split_chars(reasoning, chunk_chars)
            .into_iter()
            .map(|piece| json!({"type": "thinking_delta", "thinking": piece}))
            .collect();
        let signature = format!("sig-{turn_number}");
        deltas.push(json!({"type": "signature_delta", "signature": signature}));
        let start = json!({"type": "thinking", "thinking": "", "signature": ""});
        blocks.push((start, deltas));
    }
    if let Some(text) = &reply.text {
        let deltas = split_chars(text, chunk_chars)
            .into_iter()
            .map(|piece| json!({"type": "text_delta", "text": piece}))
            .collect();
        blocks.push((json!({"type": "text", "text": ""}), deltas));
    }
    for call in &reply.tool_calls {
        // Like the real API: an empty piece first, then the JSON in pieces.
        let deltas = std::iter::once("")
            .chain(split_chars(&call.arguments, ARGUMENT_PIECE_CHARS))
            .map(|piece| json!({"type": "input_json_delta", "partial_json": piece}))
            .collect();
        let start = json!({"type": "tool_use", "id": call.id, "name": call.name, "input": {}});
        blocks.push((start, deltas));
    }
    blocks
}

/// The stop reason: a scripted one in OpenAI's words translated, else what the reply's tool calls
/// imply.
fn stop_reason(reply: &Reply) -> &str {
    match reply.finish_reason.as_deref() {
        None if reply.tool_calls.is_empty() => "end_turn",
        None => "tool_use",
        Some("stop") => "end_turn",
        Some("tool_calls") => "tool_use",
        Some("length") => "max_tokens",
        Some(other) => other,
    }
}

/// One SSE event with its `event:` line.
fn frame(event: &str, data: Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

fn message_start(turn: usize, model: &str, usage: &ScriptedUsage) -> String {
    frame(
        "message_start",
        json!({
            "type": "message_start",
            "message": {
                "id": format!("msg_fake_{turn}"),
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": null,
                "stop_sequence": null,
                "usage": {
                    "input_tokens": usage.prompt_tokens.saturating_sub(usage.cached_tokens),
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": usage.cached_tokens,
                    "output_tokens": 1,
                },
            },
        }),
    )
}

/// A content block: start, deltas, stop.
fn block(frames: &mut Vec<String>, index: usize, start: Value, deltas: Vec<Value>) {
    frames.push(frame(
        "content_block_start",
        json!({"type": "content_block_start", "index": index, "content_block": start}),
    ));
    for delta in deltas {
        frames.push(frame(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": delta}),
        ));
    }
    frames.push(frame(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": index}),
    ));
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::AnthropicMessages;
    use crate::recorded::RecordedRequest;
    use crate::script::{Reply, ScriptedUsage, Turn};
    use crate::wire::{RenderContext, WireFormat};

    fn request(body: Value) -> RecordedRequest {
        RecordedRequest::post("/v1/messages", &body)
    }

    /// `(event name, data)` of every frame, the end marker last.
    fn events(reply: &Reply, body: Value) -> Vec<(String, Value)> {
        let req = request(body);
        let ctx = RenderContext {
            turn_number: 2,
            request: &req,
        };
        let out = AnthropicMessages.render(reply, &ctx);
        assert_eq!(
            out.end_marker.as_deref(),
            Some("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
        );
        out.frames
            .iter()
            .chain(out.end_marker.iter())
            .map(|f| {
                let body = f.strip_suffix("\n\n").expect("frame end");
                let (event, data) = body.split_once('\n').expect("two lines");
                let event = event.strip_prefix("event: ").expect("event line");
                let data = data.strip_prefix("data: ").expect("data line");
                let data: Value = serde_json::from_str(data).expect("frame JSON");
                assert_eq!(data["type"], event, "event name matches the payload type");
                (event.to_string(), data)
            })
            .collect()
    }

    #[test]
    fn text_reply_events() {
        let Turn::Reply(reply) = Turn::text("héllo world") else {
            unreachable!()
        };
        let e = events(&reply, json!({"model": "claude-x"}));
        let names: Vec<&str> = e.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "message_start",
                "ping",
                "content_block_start",
                "content_block_delta",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
        let start = &e[0].1["message"];
        assert_eq!(start["id"], "msg_fake_2");
        assert_eq!(start["model"], "claude-x");
        assert_eq!(
            start["usage"],
            json!({"input_tokens": 0, "cache_creation_input_tokens": 0,
                   "cache_read_input_tokens": 0, "output_tokens": 1})
        );
        assert_eq!(e[2].1["content_block"], json!({"type": "text", "text": ""}));
        let text: Vec<&str> = e[3..6]
            .iter()
            .map(|(_, d)| d["delta"]["text"].as_str().expect("text"))
            .collect();
        assert_eq!(text, ["héll", "o wo", "rld"]);
        assert_eq!(
            e[7].1,
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null},
                   "usage": {"output_tokens": 0}})
        );
    }

    #[test]
    fn thinking_tool_calls_usage_and_finish_reason() {
        let reply = Reply {
            reasoning: Some("think".into()),
            usage: Some(ScriptedUsage {
                prompt_tokens: 50,
                completion_tokens: 7,
                cached_tokens: 20,
            }),
            ..match Turn::tool_calls(&[
                ("toolu_1", "read_file", r#"{"path":"src/main.rs"}"#),
                ("toolu_2", "glob", "{}"),
            ]) {
                Turn::Reply(r) => r,
                Turn::HttpError { .. } => unreachable!(),
            }
        };
        let e = events(&reply, json!({}));
        assert_eq!(e[0].1["message"]["model"], "fake-model");
        assert_eq!(e[0].1["message"]["usage"]["input_tokens"], 30);
        assert_eq!(e[0].1["message"]["usage"]["cache_read_input_tokens"], 20);
        let deltas: Vec<(u64, Value)> = e
            .iter()
            .filter(|(n, _)| n == "content_block_delta")
            .map(|(_, d)| (d["index"].as_u64().expect("index"), d["delta"].clone()))
            .collect();
        assert_eq!(
            deltas[..3],
            [
                (0, json!({"type": "thinking_delta", "thinking": "thin"})),
                (0, json!({"type": "thinking_delta", "thinking": "k"})),
                (0, json!({"type": "signature_delta", "signature": "sig-2"})),
            ]
        );
        let args: String = deltas
            .iter()
            .filter(|(i, _)| *i == 1)
            .map(|(_, d)| d["partial_json"].as_str().expect("partial_json"))
            .collect();
        assert_eq!(args, r#"{"path":"src/main.rs"}"#);
        assert_eq!(deltas.iter().filter(|(i, _)| *i == 1).count(), 1 + 5);
        let starts: Vec<&Value> = e
            .iter()
            .filter(|(n, _)| n == "content_block_start")
            .map(|(_, d)| &d["content_block"])
            .collect();
        assert_eq!(
            starts[1],
            &json!({"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {}})
        );
        assert_eq!(starts[2]["id"], "toolu_2");
        let delta = &e[e.len() - 2].1;
        assert_eq!(delta["delta"]["stop_reason"], "tool_use");
        assert_eq!(delta["usage"], json!({"output_tokens": 7}));

        let capped = Reply {
            finish_reason: Some("length".into()),
            ..Reply::default()
        };
        let e = events(&capped, json!({}));
        assert_eq!(e[e.len() - 2].1["delta"]["stop_reason"], "max_tokens");
    }

    #[test]
    fn routes_and_error_bodies() {
        assert!(AnthropicMessages.handles("/v1/messages"));
        assert!(!AnthropicMessages.handles("/v1/chat/completions"));
        let body: Value =
            serde_json::from_str(&AnthropicMessages.error_body(429, "slow")).expect("json");
        assert_eq!(
            body,
            json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}})
        );
        let body: Value =
            serde_json::from_str(&AnthropicMessages.error_body(500, "exhausted")).expect("json");
        assert_eq!(body["error"]["type"], "api_error");
    }
}
