//! The span a summary is asked for, written out as one plain-text transcript. A summary request then
//! carries no tool blocks and a single user turn, which every provider accepts without tools offered
//! (Anthropic refuses tool blocks in a request that defines no tools; some servers refuse unpaired or
//! non-alternating turns). Its system prompt differs from the session's anyway, so nothing cached is
//! lost by not repeating the conversation's own shape.

use tunacode_protocol::{Message, Part, content_to_text};

/// `messages` as a transcript: one labelled block per prompt, answer, tool call and tool result.
/// Every label carries `nonce` (fresh per summary), so text inside a file or a page that imitates
/// a label or the transcript's end cannot pass for the user's words.
pub(crate) fn transcript(messages: &[Message], nonce: &str) -> String {
    let mut blocks = Vec::new();
    for message in messages {
        for part in &message.parts {
            if let Some(block) = block(part, nonce) {
                blocks.push(block);
            }
        }
    }
    blocks.join("\n\n")
}

fn block(part: &Part, nonce: &str) -> Option<String> {
    Some(match part {
        Part::UserPrompt(p) => format!("[user {nonce}]\n{}", content_to_text(&p.content)),
        Part::Text(t) if !t.content.trim().is_empty() => {
            format!("[assistant {nonce}]\n{}", t.content)
        }
        Part::ToolCall(c) => format!(
            "[assistant {nonce} called {}]\n{}",
            c.tool_name,
            c.args.as_text()
        ),
        Part::ToolReturn(r) => format!(
            "[result {nonce} of {}]\n{}",
            r.tool_name,
            content_to_text(&r.content)
        ),
        Part::RetryPrompt(r) => format!("[tool error {nonce}]\n{}", content_to_text(&r.content)),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tunacode_protocol::{Message, Part};

    #[test]
    fn a_span_is_written_as_labelled_blocks_without_thinking() {
        let span = vec![
            Message::user("fix the parser"),
            Message::response(vec![
                Part::text("Reading it."),
                Part::tool_call("c1", "read_file", json!({"file_path": "src/parse.rs"})),
            ]),
            Message::request(vec![Part::tool_return("c1", "read_file", "fn parse() {}")]),
        ];
        assert_eq!(
            super::transcript(&span, "n0nce"),
            "[user n0nce]\nfix the parser\n\n[assistant n0nce]\nReading it.\n\n\
             [assistant n0nce called read_file]\n{\"file_path\":\"src/parse.rs\"}\n\n\
             [result n0nce of read_file]\nfn parse() {}"
        );
    }
}
