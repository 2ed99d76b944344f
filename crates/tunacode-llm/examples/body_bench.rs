//! What one late turn of a long task costs in building its Chat Completions request (run by
//! `bench/run.sh`): the body as a JSON tree then bytes (the other clients' way) against straight to
//! bytes from the shared history (the Chat client's way).

#![allow(clippy::print_stdout, clippy::unwrap_used)]

use std::time::Instant;

use serde_json::json;
use tunacode_llm::ModelRequest;
use tunacode_llm::openai_chat::request::{ChatBody, ChatDialect, build_body};
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
    let request = ModelRequest {
        model: "m".into(),
        messages: messages.into(),
        ..ModelRequest::default()
    };
    let start = Instant::now();
    for _ in 0..runs {
        let tree = build_body(&request, ChatDialect::default());
        std::hint::black_box(serde_json::to_vec(&tree).unwrap());
    }
    let tree = start.elapsed() / runs;
    let start = Instant::now();
    let mut size = 0;
    for _ in 0..runs {
        let shared = request.clone();
        let bytes = ChatBody::new(&shared, ChatDialect::default()).to_bytes();
        size = bytes.len();
        std::hint::black_box(bytes);
    }
    let direct = start.elapsed() / runs;
    println!(
        "request of a 2,001-message history ({} KB): through a JSON tree {tree:.2?}, straight to bytes {direct:.2?}",
        size / 1024
    );
}
