//! What one late turn of a long task costs in building its Chat Completions request (run by
//! `bench/run.sh`): its body written whole (a process's first call, or one after every message was
//! said to have changed) against continued from the last call's body (every other turn: only the
//! new messages are written).

#![allow(clippy::print_stdout, clippy::unwrap_used)]

use std::time::Instant;

use serde_json::json;
use std::sync::Arc;

use tunacode_llm::openai_chat::request::{ChatBody, ChatDialect};
use tunacode_llm::{MessageCache, ModelRequest};
use tunacode_protocol::{Message, Part};

fn main() {
    let mut messages = vec![Message::user("check the repo")];
    for i in 0..1000 {
        let id = format!("call_{i}");
        messages.push(Message::response(vec![
            Part::text(format!("Step {i}: checking.")),
            Part::tool_call(&id, "read_file", json!({"file_path": "src/m1.rs"})),
        ]));
        messages.push(Message::request(vec![Part::tool_return(
            &id,
            "read_file",
            "     1\tfn f1() -> u32 { 1 }\n".repeat(3),
        )]));
    }
    let runs = 20;
    let cache = Arc::new(MessageCache::new());
    let request = |messages: &[Message]| ModelRequest {
        model: "m".into(),
        messages: Arc::new(messages.to_vec()),
        cache: Some(cache.clone()),
        ..ModelRequest::default()
    };
    // The body of the run's first call, kept.
    let _ = ChatBody::new(&request(&messages), ChatDialect::default()).to_bytes();
    let (mut whole, mut continued, mut size) = (Default::default(), Default::default(), 0);
    for i in 0..runs {
        // The body of the call before: the next one continues it.
        let _ = ChatBody::new(&request(&messages), ChatDialect::default()).to_bytes();
        let id = format!("late_{i}");
        messages.push(Message::response(vec![Part::tool_call(
            &id,
            "ls",
            json!({}),
        )]));
        messages.push(Message::request(vec![Part::tool_return(&id, "ls", "a b")]));
        let next = request(&messages);
        let start = Instant::now();
        let bytes = ChatBody::new(&next, ChatDialect::default()).to_bytes();
        continued += start.elapsed();
        drop(bytes);
        // Written whole: every message is said to have changed, so nothing of the last body is kept.
        cache.invalidate_from(0);
        let start = Instant::now();
        let bytes = ChatBody::new(&next, ChatDialect::default()).to_bytes();
        whole += start.elapsed();
        size = bytes.len();
    }
    let (whole, continued): (std::time::Duration, std::time::Duration) = (whole, continued);
    println!(
        "a late turn's request over a 2,000-message history ({} KB): written whole {:.2?}, continued from the last body {:.2?}",
        size / 1024,
        whole / runs,
        continued / runs
    );
}
