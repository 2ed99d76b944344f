//! Where a prompt is in the conversation. Each prompt's part carries a `timestamp` (the field
//! pydantic-ai's user prompt part has, so the original TunaCode reads it), which its node keeps as
//! its marker: the prompt is found by it even after earlier messages were cleaned or a prompt was
//! joined to a trailing request. Compaction replaces older messages, and their markers with them.

use serde_json::Value;
use tunacode_protocol::{Message, Part};

/// The part field the marker is kept in.
const MARKER_KEY: &str = "timestamp";

/// A new marker: the time now, to the microsecond (RFC 3339, UTC).
pub(crate) fn new_marker() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}

/// The user prompt part for `text`, marked.
pub(crate) fn marked_prompt(text: String, marker: &str) -> Part {
    let mut part = Part::user_prompt(text);
    if let Part::UserPrompt(prompt) = &mut part {
        prompt
            .extra
            .insert(MARKER_KEY.into(), Value::String(marker.to_string()));
    }
    part
}

/// Where the prompt marked `marker` is: its message and part.
pub(crate) fn locate(messages: &[Message], marker: &str) -> Option<(usize, usize)> {
    messages.iter().enumerate().rev().find_map(|(mi, message)| {
        if !message.is_request() {
            return None;
        }
        message
            .parts
            .iter()
            .position(|part| match part {
                Part::UserPrompt(prompt) => {
                    prompt
                        .extra
                        .get(MARKER_KEY)
                        .and_then(tunacode_protocol::ExtraValue::as_str)
                        == Some(marker)
                }
                _ => false,
            })
            .map(|pi| (mi, pi))
    })
}

/// Cuts `messages` just before the part at `at`; what was cut, in order (a message the cut
/// split is counted as dropped: its earlier parts stay).
pub(crate) fn cut_before(messages: &mut Vec<Message>, (mi, pi): (usize, usize)) -> usize {
    let dropped = messages.len().saturating_sub(mi);
    messages.truncate(mi + 1);
    if let Some(last) = messages.last_mut() {
        last.parts.truncate(pi);
        if last.parts.is_empty() {
            messages.pop();
        }
    }
    crate::history::run_cleanup_loop(messages);
    dropped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marked_prompt_is_found_and_cut_before_even_when_joined() {
        let mut messages = vec![
            Message::request(vec![marked_prompt("one".into(), "m1")]),
            Message::response(vec![Part::text("did one")]),
            Message::request(vec![
                Part::user_prompt("context"),
                marked_prompt("two".into(), "m2"),
            ]),
            Message::response(vec![Part::text("did two")]),
        ];
        assert_eq!(locate(&messages, "m2"), Some((2, 1)));
        assert_eq!(locate(&messages, "m9"), None);
        let mut joined = messages.clone();
        assert_eq!(cut_before(&mut joined, (2, 1)), 2);
        assert_eq!(joined.len(), 3);
        assert_eq!(joined[2].parts.len(), 1, "the part before the prompt stays");
        assert_eq!(cut_before(&mut messages, (0, 0)), 4);
        assert!(messages.is_empty());
    }

    #[test]
    fn the_marker_is_the_original_s_timestamp_field() {
        let part = marked_prompt("hi".into(), "2026-11-26T00:00:00.000000001Z");
        let json = serde_json::to_value(&part).unwrap();
        assert_eq!(json["timestamp"], "2026-11-26T00:00:00.000000001Z");
        assert_eq!(json["content"], "hi");
    }
}
