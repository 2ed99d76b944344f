//! The room a fresh body asks for its history, against the bodies of every wire.

use std::sync::Arc;

use serde_json::json;
use tunacode_protocol::{Message, Part};

use super::size_hint;
use crate::client::ModelRequest;

/// A history of texts with quotes and line breaks, calls, answers, retries and a thought.
fn history() -> Vec<Message> {
    let mut messages = vec![Message::user("fix \"the\" bug\nin src/")];
    for i in 0..200 {
        let id = format!("call_{i}");
        messages.push(Message::response(vec![
            Part::thinking("looking\tfurther", Some("sig".into())),
            Part::text(format!("Step {i}: \"reading\" the next\nmodule.")),
            Part::tool_call(
                &id,
                "read_file",
                json!({"file_path": format!("src/m{i}.rs")}),
            ),
        ]));
        let answer = match i % 3 {
            0 => Part::retry_prompt(&id, "read_file", "no such file"),
            _ => Part::tool_return(
                &id,
                "read_file",
                "     1\tfn f() -> u32 { \"1\" }\n".repeat(3),
            ),
        };
        messages.push(Message::request(vec![answer]));
    }
    messages
}

#[test]
fn the_room_asked_for_a_history_holds_its_body_on_every_wire_without_doubling_it() {
    let request = ModelRequest {
        model: "m".into(),
        system: "be brief".into(),
        messages: Arc::new(history()),
        ..ModelRequest::default()
    };
    let hint = size_hint(&request.messages);
    let bodies = [
        crate::openai_chat::ChatBody::new(&request, Default::default()).to_bytes(),
        crate::openai_responses::ResponsesBody(&request).to_bytes(),
        crate::anthropic::AnthropicBody(&request).to_bytes(),
        crate::gemini::GeminiBody(&request).to_bytes(),
    ];
    for body in bodies {
        let len = body.len();
        assert!(hint >= len, "{hint} bytes asked for a body of {len}");
        assert!(hint <= 2 * len, "{hint} bytes asked for a body of {len}");
    }
}
