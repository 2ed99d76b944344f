//! End-to-end tests of the fake provider over raw HTTP/1.1.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use support::{CHAT, RawConn, chat_body, request};
use tokio::time::timeout;
use tunacode_testkit::{
    Ending, FakeOptions, FakeProvider, OpenAiChat, Reply, ScriptedUsage, TestkitError, Turn,
};

fn text_reply(text: &str, ending: Ending) -> Turn {
    Turn::Reply(Reply {
        text: Some(text.to_string()),
        ending,
        ..Reply::default()
    })
}

#[tokio::test]
async fn text_reply_streams_chunks_and_done() {
    let fake = FakeProvider::start(vec![Turn::text("Hello, wörld! 🐟 done")]);
    assert!(fake.base_url().starts_with("http://127.0.0.1:"));
    assert!(fake.base_url().ends_with("/v1"));
    let resp = request(fake.addr(), "POST", CHAT, &chat_body("gpt-test")).await;
    assert_eq!(resp.status, 200);
    assert_eq!(resp.header("content-type"), Some("text/event-stream"));
    assert!(resp.complete);
    // One SSE frame per HTTP chunk.
    for chunk in &resp.chunks {
        assert!(
            chunk.starts_with("data: ") && chunk.ends_with("\n\n"),
            "{chunk:?}"
        );
        assert_eq!(chunk.matches("\n\n").count(), 1);
    }
    let data = resp.sse_data();
    assert_eq!(data.last().map(String::as_str), Some("[DONE]"));
    assert_eq!(resp.chunks.len(), data.len());
    let chunks = resp.sse_json();
    assert_eq!(
        chunks[0]["choices"][0]["delta"],
        json!({"role": "assistant", "content": ""})
    );
    let mut text = String::new();
    for c in &chunks {
        assert_eq!(c["id"], "chatcmpl-fake-1");
        assert_eq!(c["object"], "chat.completion.chunk");
        assert_eq!(c["model"], "gpt-test");
        if let Some(piece) = c["choices"][0]["delta"]["content"].as_str() {
            assert!(piece.chars().count() <= 4);
            text.push_str(piece);
        }
    }
    assert_eq!(text, "Hello, wörld! 🐟 done");
    let finish = &chunks[chunks.len() - 1]["choices"][0];
    assert_eq!(finish["finish_reason"], "stop");
    assert_eq!(finish["delta"], json!({}));
    assert_eq!(fake.turns_served(), 1);
}

#[tokio::test]
async fn tool_call_arguments_and_usage() {
    let args = r#"{"path":"src/main.rs","limit":200}"#;
    let Turn::Reply(mut reply) =
        Turn::tool_calls(&[("call_a", "read_file", args), ("call_b", "ls", "{}")])
    else {
        unreachable!()
    };
    reply.reasoning = Some("Let me look.".into());
    reply.usage = Some(ScriptedUsage {
        prompt_tokens: 100,
        completion_tokens: 20,
        cached_tokens: 64,
    });
    let fake = FakeProvider::start(vec![Turn::Reply(reply)]);
    let resp = request(fake.addr(), "POST", CHAT, &chat_body("m")).await;
    assert!(resp.complete);
    let chunks = resp.sse_json();

    let reasoning: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["reasoning_content"].as_str())
        .collect();
    assert_eq!(reasoning, "Let me look.");

    let mut calls: Vec<(String, String, String)> = Vec::new();
    for c in &chunks {
        let Some(tcs) = c["choices"][0]["delta"]["tool_calls"].as_array() else {
            continue;
        };
        for tc in tcs {
            let index = tc["index"].as_u64().expect("index") as usize;
            if let Some(id) = tc["id"].as_str() {
                assert_eq!(index, calls.len());
                assert_eq!(tc["type"], "function");
                assert_eq!(tc["function"]["arguments"], "");
                let name = tc["function"]["name"].as_str().expect("name").to_string();
                calls.push((id.to_string(), name, String::new()));
            } else {
                let piece = tc["function"]["arguments"].as_str().expect("args");
                assert!(!piece.is_empty() && piece.chars().count() <= 5);
                calls[index].2.push_str(piece);
            }
        }
    }
    assert_eq!(
        calls,
        [
            ("call_a".into(), "read_file".into(), args.into()),
            ("call_b".into(), "ls".into(), "{}".into())
        ]
    );

    let n = chunks.len();
    assert_eq!(chunks[n - 2]["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(chunks[n - 1]["choices"], json!([]));
    assert_eq!(
        chunks[n - 1]["usage"],
        json!({"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120,
               "prompt_tokens_details": {"cached_tokens": 64}})
    );
    assert_eq!(resp.sse_data().last().map(String::as_str), Some("[DONE]"));
}

#[tokio::test]
async fn http_error_then_exhaustion() {
    let body = r#"{"error":{"message":"slow down","type":"rate_limit_error"}}"#;
    let fake = FakeProvider::start(vec![Turn::http_error(429, &[("retry-after", "2")], body)]);
    let resp = request(fake.addr(), "POST", CHAT, &chat_body("m")).await;
    assert_eq!(resp.status, 429);
    assert_eq!(resp.header("retry-after"), Some("2"));
    assert_eq!(resp.header("content-type"), Some("application/json"));
    assert_eq!(resp.body, body);

    let resp = request(fake.addr(), "POST", CHAT, &chat_body("m")).await;
    assert_eq!(resp.status, 500);
    assert_eq!(resp.header("content-type"), Some("application/json"));
    let err: serde_json::Value = serde_json::from_str(&resp.body).expect("JSON error");
    assert_eq!(
        err["error"]["message"],
        "fake provider script exhausted after 1 turns"
    );
    assert_eq!(fake.turns_served(), 1);
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn unknown_path_is_404_and_wrong_method_405() {
    let fake = FakeProvider::start(vec![Turn::text("x")]);
    let resp = request(fake.addr(), "POST", "/v1/messages", "{}").await;
    assert_eq!(resp.status, 404);
    let resp = request(fake.addr(), "GET", CHAT, "").await;
    assert_eq!(resp.status, 405);
    // Neither consumed the turn.
    assert_eq!(fake.turns_served(), 0);
    let resp = request(fake.addr(), "POST", CHAT, &chat_body("m")).await;
    assert_eq!(resp.status, 200);
    assert_eq!(fake.requests().len(), 3);
}

#[tokio::test]
async fn cut_ends_with_an_incomplete_body() {
    let fake = FakeProvider::start(vec![text_reply(
        "a fairly long reply to cut",
        Ending::Cut { after_events: 3 },
    )]);
    let resp = request(fake.addr(), "POST", CHAT, &chat_body("m")).await;
    assert_eq!(resp.status, 200);
    assert!(!resp.complete, "no terminating zero-length chunk");
    assert_eq!(resp.chunks.len(), 3);
    assert!(!resp.body.contains("[DONE]"));
}

#[tokio::test]
async fn stall_sends_first_frames_then_nothing() {
    let fake = FakeProvider::start(vec![text_reply(
        "stalling reply text",
        Ending::Stall { after_events: 2 },
    )]);
    let mut conn = RawConn::connect(fake.addr()).await;
    conn.send("POST", CHAT, &chat_body("m"), true).await;
    let (status, _) = conn.read_head().await;
    assert_eq!(status, 200);
    for _ in 0..2 {
        let chunk = conn
            .read_chunk()
            .await
            .expect("frame")
            .expect("not the end");
        assert!(chunk.starts_with("data: {"));
    }
    let next = timeout(Duration::from_millis(300), conn.read_chunk()).await;
    assert!(next.is_err(), "expected a stall, got {next:?}");

    // Shutting the server down closes the stalled stream.
    drop(fake);
    let after = timeout(Duration::from_secs(5), conn.read_chunk()).await;
    assert!(matches!(after, Ok(Err(_))), "{after:?}");
}

#[tokio::test]
async fn records_requests_and_connection_reuse() {
    let fake = FakeProvider::start(vec![Turn::text("one"), Turn::text("two"), Turn::text("3")]);
    let mut conn = RawConn::connect(fake.addr()).await;
    conn.send("POST", CHAT, &chat_body("first"), false).await;
    let first = conn.read_response().await;
    assert!(first.complete);
    conn.send(
        "POST",
        "/v1/chat/completions?x=1",
        &chat_body("second"),
        false,
    )
    .await;
    let second = conn.read_response().await;
    assert!(second.complete);
    assert_eq!(second.sse_json()[0]["id"], "chatcmpl-fake-2");
    let third = request(fake.addr(), "POST", CHAT, "not json").await;
    assert_eq!(third.status, 200);
    assert_eq!(third.sse_json()[0]["model"], "fake-model");

    let requests = fake.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[0].method, "POST");
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(requests[0].body["model"], "first");
    assert_eq!(requests[0].header("Authorization"), Some("Bearer sk-test"));
    assert!(requests[0].headers.iter().any(|(k, _)| k == "content-type"));
    assert_eq!(requests[1].path, "/v1/chat/completions?x=1");
    assert_eq!(requests[0].connection_id, requests[1].connection_id);
    assert_ne!(requests[1].connection_id, requests[2].connection_id);
    assert_eq!(requests[2].body, serde_json::Value::Null);
    assert_eq!(requests[2].raw_body, "not json");
    assert!(requests[0].received_at <= requests[1].received_at);
}

#[tokio::test]
async fn cycling_restarts_the_script() {
    let fake = FakeProvider::start_with(
        Arc::new(OpenAiChat),
        vec![Turn::text("A"), Turn::http_error(503, &[], "{}")],
        FakeOptions {
            cycle: true,
            port: 0,
            summary: None,
            served_models: Vec::new(),
            ..FakeOptions::default()
        },
    );
    let statuses = [200, 503, 200, 503, 200];
    for (i, want) in statuses.into_iter().enumerate() {
        let resp = request(fake.addr(), "POST", CHAT, &chat_body("m")).await;
        assert_eq!(resp.status, want, "request {i}");
    }
    assert_eq!(fake.turns_served(), 5);
}

#[tokio::test]
async fn an_unchecked_fake_answers_what_a_checked_one_refuses_and_keeps_nothing() {
    // A tool result answering no call: the Chat rules refuse it.
    let orphan = json!({"model": "bench-model", "stream": true, "messages": [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "nowhere", "content": "x"}]})
    .to_string();
    let checked = FakeProvider::start(vec![Turn::text("answered")]);
    let refused = request(checked.addr(), "POST", CHAT, &orphan).await;
    assert_eq!(refused.status, 400);
    let unchecked = FakeProvider::start_with(
        Arc::new(OpenAiChat),
        vec![Turn::text("answered")],
        FakeOptions {
            unchecked: true,
            ..FakeOptions::default()
        },
    );
    let resp = request(unchecked.addr(), "POST", CHAT, &orphan).await;
    assert_eq!(resp.status, 200);
    let chunks = resp.sse_json();
    assert_eq!(chunks[0]["model"], "bench-model", "the head is still read");
    assert!(unchecked.requests().is_empty());
    assert_eq!(unchecked.turns_served(), 1);
}

#[tokio::test]
async fn delay_spaces_out_frames() {
    let fake = FakeProvider::start(vec![Turn::Reply(Reply {
        text: Some("abcdefgh".into()),
        delay_ms: 40,
        ..Reply::default()
    })]);
    let start = Instant::now();
    let resp = request(fake.addr(), "POST", CHAT, &chat_body("m")).await;
    assert!(resp.complete);
    // role, 2 text, finish, [DONE]: 4 gaps.
    assert_eq!(resp.chunks.len(), 5);
    assert!(start.elapsed() >= Duration::from_millis(160));
}

#[test]
fn works_from_sync_code_and_waits_for_requests() {
    let fake = FakeProvider::start(vec![Turn::text("sync")]);
    let err = fake
        .wait_for_requests(1, Duration::from_millis(50))
        .expect_err("nothing sent yet");
    assert!(matches!(
        err,
        TestkitError::Timeout {
            expected: 1,
            received: 0,
            ..
        }
    ));

    let addr = fake.addr();
    let client = std::thread::spawn(move || {
        let body = chat_body("m");
        let mut stream = std::net::TcpStream::connect(addr).expect("connect");
        write!(
            stream,
            "POST {CHAT} HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .expect("write");
        let mut out = String::new();
        stream.read_to_string(&mut out).expect("read");
        out
    });
    let requests = fake
        .wait_for_requests(1, Duration::from_secs(10))
        .expect("request arrives");
    assert_eq!(requests[0].body["stream"], true);
    let out = client.join().expect("client thread");
    assert!(out.starts_with("HTTP/1.1 200"));
    assert!(out.contains("data: [DONE]"));
}

#[test]
fn drop_stops_the_server() {
    let fake = FakeProvider::start(vec![]);
    let addr = fake.addr();
    assert!(std::net::TcpStream::connect(addr).is_ok());
    drop(fake);
    assert!(std::net::TcpStream::connect(addr).is_err());
}

#[test]
fn fixed_port_in_use_is_an_error() {
    let fake = FakeProvider::start(vec![]);
    let taken = FakeProvider::try_start_with(
        Arc::new(OpenAiChat),
        vec![],
        FakeOptions {
            cycle: false,
            port: fake.addr().port(),
            summary: None,
            served_models: Vec::new(),
            ..FakeOptions::default()
        },
    );
    assert!(matches!(taken, Err(TestkitError::Io(_))));
}
