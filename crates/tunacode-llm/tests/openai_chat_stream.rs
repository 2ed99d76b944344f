//! The OpenAI Chat Completions client against the fake provider speaking the real SSE format.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use futures::StreamExt;
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio_util::sync::CancellationToken;
use tunacode_llm::{
    LlmError, ModelEvent, ModelId, ModelRequest, ProviderSettings, ResponseAssembler, RetryPolicy,
    create_client,
};
use tunacode_protocol::{Message, Part, Usage};
use tunacode_testkit::{Ending, FakeProvider, Reply, ScriptedUsage, Turn};

fn settings(fake: &FakeProvider, key: Option<&str>) -> ProviderSettings {
    let id = ModelId::parse("openai:test-model").unwrap();
    let mut s =
        ProviderSettings::for_model(&id, Some(fake.base_url()), key.map(str::to_string)).unwrap();
    s.retry = RetryPolicy {
        max_retries: 2,
        base_delay: Duration::from_millis(10),
        ..RetryPolicy::default()
    };
    s.idle_timeout = Duration::from_secs(5);
    s
}

fn request() -> ModelRequest {
    ModelRequest {
        model: "test-model".into(),
        system: "sys".into(),
        messages: vec![Message::user("hi")].into(),
        ..Default::default()
    }
}

async fn collect(
    fake: &FakeProvider,
    key: Option<&str>,
) -> (Vec<ModelEvent>, Result<Message, LlmError>) {
    let client = create_client(&settings(fake, key)).unwrap();
    let mut stream = client.stream(request(), CancellationToken::new());
    let mut events = Vec::new();
    let mut assembler = ResponseAssembler::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(ev) => {
                assembler.push(&ev);
                events.push(ev);
            }
            Err(e) => return (events, Err(e)),
        }
    }
    (events, Ok(assembler.finish()))
}

#[tokio::test]
async fn assembles_reasoning_text_two_split_tool_calls_and_usage() {
    let fake = FakeProvider::start(vec![Turn::Reply(Reply {
        reasoning: Some("check both".into()),
        text: Some("Reading two files.".into()),
        tool_calls: Turn::tool_calls(&[
            ("c1", "read_file", r#"{"file_path": "src/main.rs"}"#),
            ("c2", "grep", ""),
        ])
        .calls(),
        usage: Some(ScriptedUsage {
            prompt_tokens: 50,
            completion_tokens: 20,
            cached_tokens: 30,
        }),
        chunk_chars: 3,
        ..Reply::default()
    })]);
    let (events, message) = collect(&fake, Some("sk-test")).await;
    let message = message.unwrap();
    assert_eq!(
        message.parts,
        vec![
            Part::thinking("check both", None),
            Part::text("Reading two files."),
            Part::tool_call("c1", "read_file", json!({"file_path": "src/main.rs"})),
            Part::tool_call("c2", "grep", json!({})),
        ]
    );
    assert_eq!(message.extra["finish_reason"], "tool_calls");
    let usage = events.iter().find_map(|e| match e {
        ModelEvent::Usage(u) => Some(*u),
        _ => None,
    });
    assert_eq!(
        usage,
        Some(Usage {
            request_tokens: 50,
            response_tokens: 20,
            cached_tokens: 30,
            ..Usage::default()
        })
    );
    let deltas = events
        .iter()
        .filter(|e| matches!(e, ModelEvent::TextDelta(_)))
        .count();
    assert_eq!(deltas, 6, "text arrives in pieces");
    let req = &fake.requests()[0];
    assert_eq!(req.path, "/v1/chat/completions");
    assert_eq!(req.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(req.body["stream_options"], json!({"include_usage": true}));
    assert_eq!(
        req.body["messages"][0],
        json!({"role": "system", "content": "sys"})
    );
}

#[tokio::test]
async fn no_key_sends_no_authorization_header() {
    let fake = FakeProvider::start(vec![Turn::text("ok")]);
    let (_, message) = collect(&fake, None).await;
    assert_eq!(message.unwrap().text(), "ok");
    assert_eq!(fake.requests()[0].header("authorization"), None);
}

#[tokio::test]
async fn retry_after_ms_is_honoured() {
    let fake = FakeProvider::start(vec![
        Turn::http_error(
            429,
            &[("retry-after-ms", "300")],
            r#"{"error": {"message": "slow down"}}"#,
        ),
        Turn::text("ok"),
    ]);
    let (events, message) = collect(&fake, None).await;
    assert_eq!(message.unwrap().text(), "ok");
    assert!(
        matches!(
            events[0],
            ModelEvent::Retrying {
                attempt: 1,
                delay_ms: 300,
                ..
            }
        ),
        "{events:?}"
    );
    let r = fake.requests();
    assert!(r[1].received_at.duration_since(r[0].received_at) >= Duration::from_millis(300));
}

#[tokio::test]
async fn retries_stop_at_the_limit_and_report_the_last_error() {
    let err = r#"{"error": {"message": "upstream down"}}"#;
    let fake = FakeProvider::start(vec![
        Turn::http_error(503, &[], err),
        Turn::http_error(503, &[], err),
        Turn::http_error(503, &[], err),
        Turn::text("never"),
    ]);
    let (_, result) = collect(&fake, None).await;
    assert_eq!(
        result.unwrap_err(),
        LlmError::Overloaded {
            status: 503,
            message: "upstream down".into()
        }
    );
    assert_eq!(fake.requests().len(), 3, "one try and two retries");
}

#[tokio::test]
async fn an_error_object_inside_a_200_stream_is_an_error() {
    let fake = FakeProvider::start(vec![Turn::http_error(
        200,
        &[("content-type", "text/event-stream")],
        "data: {\"error\": {\"code\": 400, \"message\": \"This model's maximum context length is 8192 tokens\"}}\n\n",
    )]);
    let (_, result) = collect(&fake, None).await;
    assert_eq!(result.unwrap_err().kind(), "context_overflow");
}

#[tokio::test]
async fn cancelling_ends_a_stalled_stream_promptly() {
    let fake = FakeProvider::start(vec![Turn::Reply(Reply {
        text: Some("partial answer".into()),
        ending: Ending::Stall { after_events: 2 },
        ..Reply::default()
    })]);
    let client = create_client(&settings(&fake, None)).unwrap();
    let cancel = CancellationToken::new();
    let mut stream = client.stream(request(), cancel.clone());
    let first = stream.next().await.unwrap().unwrap();
    assert_eq!(first, ModelEvent::TextDelta("part".into()));
    cancel.cancel();
    let end = tokio::time::timeout(Duration::from_secs(5), async {
        let mut last = None;
        while let Some(item) = stream.next().await {
            last = Some(item);
        }
        last
    })
    .await
    .expect("stream ended after cancel");
    assert_eq!(end, Some(Err(LlmError::Cancelled)));
}
