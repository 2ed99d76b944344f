//! Tests of the Responses stream decoder.

use super::*;
use pretty_assertions::assert_eq;
use tunacode_protocol::Usage;

fn run(d: &mut ResponsesStreamDecoder, events: &[Value]) -> Vec<ModelEvent> {
    events
        .iter()
        .flat_map(|e| d.decode_event("", e).unwrap())
        .collect()
}

fn details(pairs: Value) -> Map<String, Value> {
    pairs.as_object().cloned().unwrap_or_default()
}

#[test]
fn decodes_reasoning_text_calls_usage_and_finish() {
    let mut d = ResponsesStreamDecoder::default();
    let events = run(
        &mut d,
        &[
            json!({"type": "response.created", "response": {"id": "resp_1", "model": "gpt-x"}}),
            json!({"type": "response.output_item.added", "output_index": 0,
                   "item": {"id": "rs_1", "type": "reasoning", "summary": []}}),
            json!({"type": "response.reasoning_summary_text.delta", "summary_index": 0, "delta": "a"}),
            json!({"type": "response.reasoning_summary_text.delta", "summary_index": 1, "delta": "b"}),
            json!({"type": "response.output_item.done", "output_index": 0,
                   "item": {"id": "rs_1", "type": "reasoning", "encrypted_content": "ENC"}}),
            json!({"type": "response.output_text.delta", "delta": "Hi", "obfuscation": "xx"}),
            json!({"type": "response.output_item.added", "output_index": 2, "item": {"id": "fc_1",
                   "type": "function_call", "call_id": "c1", "name": "grep", "arguments": ""}}),
            json!({"type": "response.function_call_arguments.delta", "output_index": 2, "delta": "{}"}),
            json!({"type": "response.function_call_arguments.done", "output_index": 2, "arguments": "{}"}),
            json!({"type": "response.output_item.added", "output_index": 3, "item": {"id": "fc_2",
                   "type": "function_call", "call_id": "c2", "name": "glob", "arguments": ""}}),
            json!({"type": "response.function_call_arguments.done", "output_index": 3, "arguments": "{\"p\":1}"}),
            json!({"type": "response.output_item.done", "output_index": 3, "item": {"id": "fc_2",
                   "type": "function_call", "call_id": "c2", "name": "glob", "arguments": "{\"p\":1}"}}),
            json!({"type": "some.future.event"}),
            json!({"type": "response.completed", "response": {"usage": {"input_tokens": 10,
                   "input_tokens_details": {"cached_tokens": 4}, "output_tokens": 7,
                   "output_tokens_details": {"reasoning_tokens": 5}}}}),
        ],
    );
    assert_eq!(
        events,
        vec![
            ModelEvent::ResponseDetails(details(json!({"id": "resp_1", "model": "gpt-x"}))),
            ModelEvent::ThinkingStart,
            ModelEvent::PartDetails {
                target: PartTarget::Thinking,
                details: details(json!({"provider": "openai-responses", "id": "rs_1"})),
            },
            ModelEvent::ThinkingDelta("a".into()),
            ModelEvent::ThinkingDelta("\n\nb".into()),
            ModelEvent::ThinkingSignature("ENC".into()),
            ModelEvent::TextDelta("Hi".into()),
            ModelEvent::ToolCallStart {
                index: 2,
                id: "c1".into(),
                name: "grep".into()
            },
            ModelEvent::PartDetails {
                target: PartTarget::ToolCall(2),
                details: details(json!({"item_id": "fc_1"})),
            },
            ModelEvent::ToolCallArgs {
                index: 2,
                fragment: "{}".into()
            },
            ModelEvent::ToolCallStart {
                index: 3,
                id: "c2".into(),
                name: "glob".into()
            },
            ModelEvent::PartDetails {
                target: PartTarget::ToolCall(3),
                details: details(json!({"item_id": "fc_2"})),
            },
            ModelEvent::ToolCallArgs {
                index: 3,
                fragment: "{\"p\":1}".into()
            },
            ModelEvent::Usage(Usage {
                request_tokens: 10,
                response_tokens: 7,
                cached_tokens: 4,
                reasoning_tokens: 5,
                ..Usage::default()
            }),
            ModelEvent::Finish("tool_calls".into()),
        ]
    );
    assert!(d.finished());
    let after = d
        .decode(&SseEvent {
            event: "x".into(),
            data: "{}".into(),
        })
        .unwrap();
    assert!(matches!(after, Decoded::Done));
}

#[test]
fn incomplete_response_finishes_with_length() {
    let mut d = ResponsesStreamDecoder::default();
    let events = run(
        &mut d,
        &[
            json!({"type": "response.incomplete", "response": {"usage": null,
                   "incomplete_details": {"reason": "max_output_tokens"}}}),
        ],
    );
    assert_eq!(
        events,
        vec![
            ModelEvent::ResponseDetails(details(json!({"incomplete_reason": "max_output_tokens"}))),
            ModelEvent::Finish("length".into()),
        ]
    );
    assert!(d.finished());
}

#[test]
fn errors_inside_the_stream_are_classified() {
    let cases = [
        (
            json!({"type": "error", "code": "context_length_exceeded", "message": "too long"}),
            "context_overflow",
        ),
        (
            json!({"type": "error", "error": {"code": "rate_limit_exceeded", "message": "slow"}}),
            "rate_limit",
        ),
        (
            json!({"type": "response.failed", "response": {"error": {"code": "server_error", "message": "boom"}}}),
            "server",
        ),
        (
            json!({"type": "response.failed", "response": {"error": {"code": "invalid_prompt", "message": "no"}}}),
            "bad_request",
        ),
        (
            json!({"type": "response.failed", "response": {"error": null}}),
            "server",
        ),
    ];
    for (event, kind) in cases {
        let err = ResponsesStreamDecoder::default()
            .decode_event("", &event)
            .unwrap_err();
        assert_eq!(err.kind(), kind, "{event}");
    }
    let err = ResponsesStreamDecoder::default()
        .decode_event(
            "",
            &json!({"type": "error", "code": "server_error", "message": "boom"}),
        )
        .unwrap_err();
    assert_eq!(
        err,
        LlmError::Server {
            status: 0,
            message: "boom".into()
        }
    );
}
