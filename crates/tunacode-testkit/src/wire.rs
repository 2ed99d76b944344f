//! The [`WireFormat`] trait: how a scripted [`Reply`] becomes SSE frames for one provider API.

use crate::recorded::RecordedRequest;
use crate::script::Reply;

/// What a [`WireFormat`] knows about the reply it renders.
#[derive(Debug, Clone, Copy)]
pub struct RenderContext<'a> {
    /// 1-based number of the turn being served (keeps counting when the script cycles);
    /// used for response ids such as `chatcmpl-fake-N`.
    pub turn_number: usize,
    /// The request being answered.
    pub request: &'a RecordedRequest,
}

/// A rendered streamed reply.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseReply {
    /// Event frames in order; each is one complete SSE event (`event: ...\n` lines optional,
    /// `data: ...\n\n`), written as one HTTP body chunk.
    pub frames: Vec<String>,
    /// The end-of-stream marker frame (`data: [DONE]\n\n` for OpenAI Chat), if the format has one.
    /// `Ending::Cut`/`Ending::Stall` never send it.
    pub end_marker: Option<String>,
}

/// A provider wire format (OpenAI Chat Completions, later Anthropic Messages, Gemini, Responses).
pub trait WireFormat: Send + Sync {
    /// A short name, e.g. `openai-chat`.
    fn name(&self) -> &str;

    /// Whether `path` (without query string) is this format's streaming endpoint.
    fn handles(&self, path: &str) -> bool;

    /// The content type of streamed replies.
    fn content_type(&self) -> &str {
        "text/event-stream"
    }

    /// Renders a scripted reply as SSE frames.
    fn render(&self, reply: &Reply, ctx: &RenderContext<'_>) -> SseReply;

    /// What the real provider would refuse in this request body (answered with HTTP 400).
    fn check_request(&self, _body: &serde_json::Value) -> crate::rules::Verdict {
        Ok(())
    }

    /// The JSON body of an error the fake provider itself produces (script exhausted, bad method).
    fn error_body(&self, status: u16, message: &str) -> String {
        serde_json::json!({
            "error": {
                "message": message,
                "type": "fake_provider_error",
                "code": status,
            }
        })
        .to_string()
    }
}

/// Splits `text` into pieces of at most `n` chars (`n == 0` counts as 1), never inside a char.
pub fn split_chars(text: &str, n: usize) -> Vec<&str> {
    let n = n.max(1);
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut count = 0;
    for (i, _) in text.char_indices() {
        if count == n {
            pieces.push(&text[start..i]);
            start = i;
            count = 0;
        }
        count += 1;
    }
    if start < text.len() {
        pieces.push(&text[start..]);
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::split_chars;

    #[test]
    fn splits_on_char_boundaries() {
        assert_eq!(split_chars("abcdefghi", 4), ["abcd", "efgh", "i"]);
        assert_eq!(
            split_chars("héllo wörld ✓", 3),
            ["hél", "lo ", "wör", "ld ", "✓"]
        );
        assert_eq!(split_chars("🐟🐟🐟", 2), ["🐟🐟", "🐟"]);
        assert!(split_chars("", 4).is_empty());
        assert_eq!(split_chars("ab", 0), ["a", "b"]);
    }
}
