//! The OpenAI Responses streaming (`POST /v1/responses`) wire format of the fake provider.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::script::{Reply, ScriptedToolCall, ScriptedUsage};
use crate::wire::{RenderContext, SseReply, WireFormat, split_chars};

/// Characters per text/reasoning delta when the reply says 0.
const DEFAULT_CHUNK_CHARS: usize = 4;
/// Characters per tool-call argument piece.
const ARGUMENT_PIECE_CHARS: usize = 5;

/// OpenAI Responses streaming (`POST /v1/responses`), with `event:` lines and `sequence_number`s
/// like the real API.
///
/// Reasoning becomes a `reasoning` item `rs_<turn>` whose summary is streamed and whose
/// `encrypted_content` is `enc-<turn>`; text becomes a `message` item `msg_<turn>`; each tool call a
/// `function_call` item `fc_<turn>_<n>` whose arguments arrive in pieces. The stream ends with
/// `response.completed` (or `response.incomplete` when the reply's finish reason is `length`), which
/// is the [`SseReply::end_marker`], so cut and stalled streams never send it. The usage reports
/// `reasoning_tokens` as the reasoning text's length in characters / 4 (rounded up, at most the
/// completion tokens), since [`ScriptedUsage`] has no such field.
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenAiResponses;

impl WireFormat for OpenAiResponses {
    fn check_request(&self, body: &Value) -> crate::rules::Verdict {
        crate::rules::responses(body)
    }

    fn name(&self) -> &str {
        "openai-responses"
    }

    fn handles(&self, path: &str) -> bool {
        path.ends_with("/responses")
    }

    fn render(&self, reply: &Reply, ctx: &RenderContext<'_>) -> SseReply {
        let turn = ctx.turn_number;
        let chunk_chars = if reply.chunk_chars == 0 {
            DEFAULT_CHUNK_CHARS
        } else {
            reply.chunk_chars
        };
        let mut r = Renderer::for_request(ctx);
        let response = r.response.clone();
        r.push("response.created", json!({"response": response}));
        r.push("response.in_progress", json!({"response": response}));
        if let Some(reasoning) = &reply.reasoning {
            r.reasoning(
                &format!("rs_{turn}"),
                reasoning,
                &format!("enc-{turn}"),
                chunk_chars,
            );
        }
        if let Some(text) = &reply.text {
            r.message(&format!("msg_{turn}"), text, chunk_chars);
        }
        for (n, call) in reply.tool_calls.iter().enumerate() {
            r.function_call(&format!("fc_{turn}_{n}"), call);
        }
        let end = r.completion(reply);
        SseReply {
            frames: r.frames,
            end_marker: Some(end),
        }
    }
}

/// Builds the frames of one response, numbering them.
struct Renderer {
    frames: Vec<String>,
    /// Finished output items, for `response.completed`.
    output: Vec<Value>,
    /// The response object of `response.created`.
    response: Value,
}

impl Renderer {
    /// No frames yet, and the `in_progress` response object for the turn and the request's model.
    fn for_request(ctx: &RenderContext<'_>) -> Renderer {
        let turn = ctx.turn_number;
        Renderer {
            frames: Vec::new(),
            output: Vec::new(),
            response: json!({
                "id": format!("resp_fake_{turn}"),
                "object": "response",
                "created_at": SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0),
                "status": "in_progress",
                "error": null,
                "incomplete_details": null,
                "model": ctx.request.outline.get("model").and_then(Value::as_str).unwrap_or("fake-model"),
                "output": [],
                "store": false,
                "usage": null,
            }),
        }
    }

    fn frame(&self, kind: &str, data: Value) -> String {
        // `type` first, as the API writes it.
        let mut ordered = serde_json::Map::new();
        ordered.insert("type".into(), json!(kind));
        if let Value::Object(map) = data {
            ordered.extend(map);
        }
        ordered.insert("sequence_number".into(), json!(self.frames.len()));
        format!("event: {kind}\ndata: {}\n\n", Value::Object(ordered))
    }

    fn push(&mut self, kind: &str, data: Value) {
        let frame = self.frame(kind, data);
        self.frames.push(frame);
    }

    fn finish_item(&mut self, index: usize, item: Value) {
        self.push(
            "response.output_item.done",
            json!({"output_index": index, "item": item}),
        );
        self.output.push(item);
    }

    fn reasoning(&mut self, id: &str, text: &str, encrypted: &str, chunk_chars: usize) {
        let index = self.output.len();
        let at = json!({"item_id": id, "output_index": index, "summary_index": 0});
        self.push(
            "response.output_item.added",
            json!({"output_index": index, "item": {"id": id, "type": "reasoning", "summary": []}}),
        );
        self.push(
            "response.reasoning_summary_part.added",
            with(&at, json!({"part": {"type": "summary_text", "text": ""}})),
        );
        for piece in split_chars(text, chunk_chars) {
            self.push(
                "response.reasoning_summary_text.delta",
                with(&at, json!({"delta": piece, "obfuscation": "fake"})),
            );
        }
        self.push(
            "response.reasoning_summary_text.done",
            with(&at, json!({"text": text})),
        );
        self.push(
            "response.reasoning_summary_part.done",
            with(&at, json!({"part": {"type": "summary_text", "text": text}})),
        );
        self.finish_item(
            index,
            json!({"id": id, "type": "reasoning", "encrypted_content": encrypted,
                                       "summary": [{"type": "summary_text", "text": text}]}),
        );
    }

    fn message(&mut self, id: &str, text: &str, chunk_chars: usize) {
        let index = self.output.len();
        let at = json!({"item_id": id, "output_index": index, "content_index": 0});
        self.push("response.output_item.added", json!({"output_index": index, "item":
            {"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []}}));
        self.push(
            "response.content_part.added",
            with(
                &at,
                json!({"part": {"type": "output_text", "annotations": [], "text": ""}}),
            ),
        );
        for piece in split_chars(text, chunk_chars) {
            self.push(
                "response.output_text.delta",
                with(
                    &at,
                    json!({"delta": piece, "logprobs": [], "obfuscation": "fake"}),
                ),
            );
        }
        self.push(
            "response.output_text.done",
            with(&at, json!({"text": text, "logprobs": []})),
        );
        let part = json!({"type": "output_text", "annotations": [], "logprobs": [], "text": text});
        self.push(
            "response.content_part.done",
            with(&at, json!({"part": part})),
        );
        self.finish_item(
            index,
            json!({"id": id, "type": "message", "status": "completed",
                                       "role": "assistant", "content": [part]}),
        );
    }

    /// A `function_call` item whose arguments arrive in pieces.
    fn function_call(&mut self, item_id: &str, call: &ScriptedToolCall) {
        let index = self.output.len();
        let mut item = json!({"id": item_id, "type": "function_call", "status": "in_progress",
                              "arguments": "", "call_id": call.id, "name": call.name});
        self.push(
            "response.output_item.added",
            json!({"output_index": index, "item": item}),
        );
        for piece in split_chars(&call.arguments, ARGUMENT_PIECE_CHARS) {
            self.push("response.function_call_arguments.delta",
                      json!({"item_id": item_id, "output_index": index, "delta": piece, "obfuscation": "fake"}));
        }
        self.push(
            "response.function_call_arguments.done",
            json!({"item_id": item_id, "output_index": index, "arguments": call.arguments}),
        );
        item["status"] = json!("completed");
        item["arguments"] = json!(call.arguments);
        self.finish_item(index, item);
    }

    /// The final `response.completed` (or `response.incomplete`) frame.
    fn completion(&self, reply: &Reply) -> String {
        let mut response = self.response.clone();
        let incomplete = reply.finish_reason.as_deref() == Some("length");
        response["status"] = json!(if incomplete {
            "incomplete"
        } else {
            "completed"
        });
        if incomplete {
            response["incomplete_details"] = json!({"reason": "max_output_tokens"});
        }
        response["output"] = Value::Array(self.output.clone());
        if let Some(usage) = &reply.usage {
            response["usage"] = usage_json(usage, reply.reasoning.as_deref());
        }
        let kind = if incomplete {
            "response.incomplete"
        } else {
            "response.completed"
        };
        self.frame(kind, json!({"response": response}))
    }
}

/// `base` with the fields of `extra` added.
fn with(base: &Value, extra: Value) -> Value {
    let mut out = base.clone();
    if let (Value::Object(out), Value::Object(extra)) = (&mut out, extra) {
        out.extend(extra);
    }
    out
}

fn usage_json(usage: &ScriptedUsage, reasoning: Option<&str>) -> Value {
    let reasoning_tokens = reasoning
        .map(|r| (r.chars().count() as u64).div_ceil(4))
        .unwrap_or(0)
        .min(usage.completion_tokens);
    json!({
        "input_tokens": usage.prompt_tokens,
        "input_tokens_details": {"cached_tokens": usage.cached_tokens},
        "output_tokens": usage.completion_tokens,
        "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
        "total_tokens": usage.prompt_tokens + usage.completion_tokens,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::OpenAiResponses;
    use crate::recorded::RecordedRequest;
    use crate::script::{Reply, ScriptedUsage, Turn};
    use crate::wire::{RenderContext, WireFormat};

    /// Renders `reply` as turn 2 and returns `(event line, data)` of every frame, end marker last.
    fn frames(reply: &Reply) -> Vec<(String, Value)> {
        let body = json!({"model": "gpt-x", "stream": true});
        let req = RecordedRequest::post("/v1/responses", &body);
        let ctx = RenderContext {
            turn_number: 2,
            request: &req,
        };
        let out = OpenAiResponses.render(reply, &ctx);
        let end = out.end_marker.clone().expect("completion frame");
        out.frames
            .iter()
            .chain(std::iter::once(&end))
            .map(|f| {
                let (event, data) = f
                    .strip_prefix("event: ")
                    .and_then(|f| f.strip_suffix("\n\n"))
                    .and_then(|f| f.split_once("\ndata: "))
                    .expect("frame shape");
                (
                    event.to_string(),
                    serde_json::from_str(data).expect("frame JSON"),
                )
            })
            .collect()
    }

    #[test]
    fn handles_only_the_responses_path() {
        assert!(OpenAiResponses.handles("/v1/responses"));
        assert!(!OpenAiResponses.handles("/v1/chat/completions"));
    }

    #[test]
    fn text_reply_has_the_real_event_sequence() {
        let Turn::Reply(reply) = Turn::text("héllo world") else {
            unreachable!()
        };
        let f = frames(&reply);
        let kinds: Vec<&str> = f.iter().map(|(e, _)| e.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "response.created",
                "response.in_progress",
                "response.output_item.added",
                "response.content_part.added",
                "response.output_text.delta",
                "response.output_text.delta",
                "response.output_text.delta",
                "response.output_text.done",
                "response.content_part.done",
                "response.output_item.done",
                "response.completed",
            ]
        );
        for (n, (event, data)) in f.iter().enumerate() {
            assert_eq!(data["type"], event.as_str());
            assert_eq!(data["sequence_number"], n);
        }
        assert_eq!(f[0].1["response"]["id"], "resp_fake_2");
        assert_eq!(f[0].1["response"]["model"], "gpt-x");
        let text: Vec<&str> = f[4..7]
            .iter()
            .map(|(_, d)| d["delta"].as_str().expect("delta"))
            .collect();
        assert_eq!(text, ["héll", "o wo", "rld"]);
        let done = &f[10].1["response"];
        assert_eq!(done["status"], "completed");
        assert_eq!(done["usage"], Value::Null);
        assert_eq!(
            done["output"],
            json!([{"id": "msg_2", "type": "message", "status": "completed", "role": "assistant",
                    "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": "héllo world"}]}])
        );
    }

    #[test]
    fn reasoning_tool_calls_and_usage() {
        let reply = Reply {
            reasoning: Some("think it over".into()),
            usage: Some(ScriptedUsage {
                prompt_tokens: 10,
                completion_tokens: 20,
                cached_tokens: 3,
            }),
            chunk_chars: 6,
            ..match Turn::tool_calls(&[
                ("call_1", "read_file", r#"{"path":"a.rs"}"#),
                ("call_2", "glob", ""),
            ]) {
                Turn::Reply(r) => r,
                Turn::HttpError { .. } => unreachable!(),
            }
        };
        let f = frames(&reply);
        let kinds: Vec<&str> = f.iter().map(|(e, _)| e.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "response.created",
                "response.in_progress",
                "response.output_item.added",
                "response.reasoning_summary_part.added",
                "response.reasoning_summary_text.delta",
                "response.reasoning_summary_text.delta",
                "response.reasoning_summary_text.delta",
                "response.reasoning_summary_text.done",
                "response.reasoning_summary_part.done",
                "response.output_item.done",
                "response.output_item.added",
                "response.function_call_arguments.delta",
                "response.function_call_arguments.delta",
                "response.function_call_arguments.delta",
                "response.function_call_arguments.done",
                "response.output_item.done",
                "response.output_item.added",
                "response.function_call_arguments.done",
                "response.output_item.done",
                "response.completed",
            ]
        );
        assert_eq!(
            f[9].1["item"],
            json!({"id": "rs_2", "type": "reasoning", "encrypted_content": "enc-2",
                   "summary": [{"type": "summary_text", "text": "think it over"}]})
        );
        assert_eq!(
            f[10].1,
            json!({"type": "response.output_item.added", "output_index": 1, "item": {"id": "fc_2_0",
                   "type": "function_call", "status": "in_progress", "arguments": "", "call_id": "call_1",
                   "name": "read_file"}, "sequence_number": 10})
        );
        let args: String = f[11..14]
            .iter()
            .map(|(_, d)| d["delta"].as_str().expect("delta"))
            .collect();
        assert_eq!(args, r#"{"path":"a.rs"}"#);
        assert_eq!(f[16].1["item"]["id"], "fc_2_1");
        assert_eq!(f[16].1["output_index"], 2);
        let done = &f[19].1["response"];
        assert_eq!(done["output"].as_array().map(Vec::len), Some(3));
        assert_eq!(
            done["usage"],
            json!({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 3}, "output_tokens": 20,
                   "output_tokens_details": {"reasoning_tokens": 4}, "total_tokens": 30})
        );
    }

    #[test]
    fn length_finish_is_an_incomplete_response() {
        let reply = Reply {
            text: Some("cut".into()),
            finish_reason: Some("length".into()),
            ..Reply::default()
        };
        let f = frames(&reply);
        let (event, data) = f.last().expect("end");
        assert_eq!(event, "response.incomplete");
        assert_eq!(data["response"]["status"], "incomplete");
        assert_eq!(
            data["response"]["incomplete_details"],
            json!({"reason": "max_output_tokens"})
        );
    }
}
