//! The Anthropic Messages client's errors against the fake provider: error events before and after
//! output, rate limits, overload, auth and context errors, and streams cut short.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod anthropic_support;
mod support;

use std::time::Duration;

use anthropic_support::{anthropic_body, message_start, run, sse, start, text_block};
use pretty_assertions::assert_eq;
use serde_json::json;
use support::recorded_turn;
use tunacode_llm::{LlmError, ModelEvent};
use tunacode_testkit::{Ending, Reply, Turn};

#[tokio::test]
async fn an_error_event_after_output_ends_the_stream_without_a_retry() {
    let mut events = vec![message_start(), ("ping", json!({"type": "ping"}))];
    events.extend(text_block("partial"));
    events.push((
        "error",
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    ));
    let body = sse(&events);
    let fake = start(vec![recorded_turn(&body), Turn::text("never")]);
    let (events, result) = run(&fake).await;
    assert_eq!(
        result.unwrap_err(),
        LlmError::Overloaded {
            status: 0,
            message: "Overloaded".into()
        }
    );
    assert!(events.contains(&ModelEvent::TextDelta("partial".into())));
    assert_eq!(fake.requests().len(), 1, "no retry after output");
}

#[tokio::test]
async fn an_error_event_before_any_content_is_retried() {
    let body = sse(&[
        message_start(),
        (
            "error",
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        ),
    ]);
    let fake = start(vec![recorded_turn(&body), Turn::text("second try")]);
    let (events, message) = run(&fake).await;
    assert_eq!(message.unwrap().text(), "second try");
    assert!(
        matches!(&events[0], ModelEvent::Retrying { attempt: 1, error, .. } if error.contains("Overloaded")),
        "{events:?}"
    );
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn rate_limit_retry_after_is_honoured() {
    let fake = start(vec![
        Turn::http_error(
            429,
            &[("retry-after", "1")],
            &anthropic_body(
                "rate_limit_error",
                "Number of request tokens has exceeded your per-minute rate limit",
            ),
        ),
        Turn::text("ok"),
    ]);
    let (events, message) = run(&fake).await;
    assert_eq!(message.unwrap().text(), "ok");
    assert!(
        matches!(&events[0], ModelEvent::Retrying { attempt: 1, delay_ms: 1000, error, .. }
            if error.contains("per-minute rate limit")),
        "{events:?}"
    );
    let r = fake.requests();
    assert!(r[1].received_at.duration_since(r[0].received_at) >= Duration::from_secs(1));
}

#[tokio::test]
async fn overloaded_529_is_retried() {
    let fake = start(vec![
        Turn::http_error(529, &[], &anthropic_body("overloaded_error", "Overloaded")),
        Turn::text("ok"),
    ]);
    let (events, message) = run(&fake).await;
    assert_eq!(message.unwrap().text(), "ok");
    assert!(
        matches!(&events[0], ModelEvent::Retrying { attempt: 1, error, .. }
            if error == "provider overloaded (HTTP 529): Overloaded"),
        "{events:?}"
    );
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn auth_and_context_errors_are_not_retried_and_keep_the_message() {
    let fake = start(vec![
        Turn::http_error(
            401,
            &[],
            &anthropic_body("authentication_error", "invalid x-api-key"),
        ),
        Turn::http_error(
            400,
            &[],
            &anthropic_body(
                "invalid_request_error",
                "prompt is too long: 212000 tokens > 200000 maximum",
            ),
        ),
    ]);
    let (_, result) = run(&fake).await;
    assert_eq!(
        result.unwrap_err(),
        LlmError::Auth {
            status: 401,
            message: "invalid x-api-key (set ANTHROPIC_API_KEY in the environment or under \"env\" in /srv/conf/tunacode-custom.json)".into()
        }
    );
    let (_, result) = run(&fake).await;
    assert_eq!(
        result.unwrap_err(),
        LlmError::ContextOverflow {
            message: "prompt is too long: 212000 tokens > 200000 maximum".into()
        }
    );
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn a_cut_stream_after_output_is_a_network_error() {
    let fake = start(vec![
        Turn::Reply(Reply {
            text: Some("partial answer here".into()),
            // message_start, ping, block start, two text deltas.
            ending: Ending::Cut { after_events: 5 },
            ..Reply::default()
        }),
        Turn::text("never"),
    ]);
    let (events, result) = run(&fake).await;
    let err = result.unwrap_err();
    assert_eq!(err.kind(), "network", "{err}");
    assert!(
        matches!(events[0], ModelEvent::ResponseDetails(_)),
        "{events:?}"
    );
    let text = [
        ModelEvent::TextDelta("part".into()),
        ModelEvent::TextDelta("ial ".into()),
    ];
    assert_eq!(events[1..], text);
    assert_eq!(fake.requests().len(), 1);
}

#[tokio::test]
async fn a_stream_closed_after_the_stop_reason_is_complete_but_not_before() {
    let mut without_stop = vec![message_start()];
    without_stop.extend(text_block("done"));
    let unfinished = sse(&without_stop);
    without_stop.push((
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}}),
    ));
    let fake = start(vec![
        recorded_turn(&sse(&without_stop)),
        recorded_turn(&unfinished),
    ]);
    let (_, message) = run(&fake).await;
    assert_eq!(message.unwrap().text(), "done");
    let (_, result) = run(&fake).await;
    assert_eq!(
        result.unwrap_err(),
        LlmError::Network {
            message: "the stream ended before the response was complete".into()
        }
    );
}
