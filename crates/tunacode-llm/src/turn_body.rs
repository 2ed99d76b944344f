//! Bodies whose history is an array of turns (Anthropic `messages`, Gemini `contents`), continued
//! from the history's last body (`continued_body.rs`). Consecutive messages of one side join into
//! one turn, so a turn is kept only when a later turn closes it, and the next call continues after
//! it only when its own first new turn is of the other side: otherwise that turn would have joined
//! the kept one, and the body is written afresh. A wire whose call marks recent turns (Anthropic's
//! cache breakpoints) keeps only the turns before its marks, and says which new turns are enough for
//! the marks to fall among them ([`begin`]'s `sound`).

use bytes::{BufMut, BytesMut};
use serde_json::Value;
use tunacode_protocol::Message;

use crate::client::ModelRequest;
use crate::continued_body::Elements;
use crate::http::BodyWriter;
use crate::wire_history::{MessageItems, Turn, message_items_from, turns};

/// How a wire writes a turn: `{"role":ROLE,"ITEMS":[…]}`.
pub(crate) struct TurnShape {
    /// The wire the body and its messages' items are kept for.
    pub wire: &'static str,
    /// The role of a user turn, then of a model turn.
    pub roles: [&'static str; 2],
    /// The key of a turn's items (`content`, `parts`).
    pub items: &'static str,
}

/// A body begun: its elements, and the history's items from the first message they still need.
pub(crate) struct Begun {
    /// The body so far (the lead, or the last body cut after its kept turns).
    pub elements: Elements,
    /// The items of each in-conversation message from there on.
    pub items: Vec<MessageItems>,
}

/// Begins a body after `lead`, continuing the history's last body after its last kept turn whose
/// next turn does not join it and where `sound` accepts the new turns (the call's own marks fall
/// among them); from the lead when there is none. `items_of` makes a message's items (given its
/// index) from there on.
pub(crate) fn begin(
    request: &ModelRequest,
    shape: &TurnShape,
    lead: &[u8],
    sizes: &BodyWriter,
    mut items_of: impl FnMut(usize, &Message) -> Vec<Value>,
    sound: impl Fn(&[Turn<'_>]) -> bool,
) -> Result<Begun, serde_json::Error> {
    let cache = request.cache.as_deref();
    let len = request.messages.len();
    let history = (&request.messages[..], len);
    let (mut elements, mut start) =
        Elements::start(cache, shape.wire, (lead, false), history, sizes);
    let mut tried = 0;
    loop {
        let items = message_items_from(request, start, &mut items_of)?;
        if start == 0 {
            return Ok(Begun { elements, items });
        }
        // The kept body ends with the turn whose last message is `start - 1` (a turn ends at a
        // message with items, and that message has not changed since: the engine would have said).
        let side = request.messages[start - 1].is_request();
        let new = turns(&items);
        if new.first().is_some_and(|t| t.request != side) && sound(&new) {
            return Ok(Begun { elements, items });
        }
        // One turn back, the first new turn is of the other side; a few more bring the marks among
        // the new turns. Past that, from the lead (a history that never satisfies `sound`).
        tried += 1;
        start = elements.back(tried >= STEPS_BACK);
    }
}

/// How many kept turns a continuation gives back before it starts from the lead.
const STEPS_BACK: usize = 4;

/// Writes `turns`, the first `keep` of them as kept: no later call of this history changes them.
pub(crate) fn write_turns(
    elements: &mut Elements,
    turns: &[Turn<'_>],
    keep: usize,
    shape: &TurnShape,
) {
    for (n, turn) in turns.iter().enumerate() {
        let role = shape.roles[usize::from(!turn.request)];
        let kept = turn.last.filter(|_| n < keep);
        elements.element(kept, |out| write_turn(out, role, shape.items, turn));
    }
}

/// One turn's JSON, as serde would write it (the role is a plain word, the items JSON texts).
fn write_turn(out: &mut BytesMut, role: &str, key: &str, turn: &Turn<'_>) {
    out.extend_from_slice(b"{\"role\":\"");
    out.extend_from_slice(role.as_bytes());
    out.extend_from_slice(b"\",\"");
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\":[");
    for (n, item) in turn.items.iter().enumerate() {
        if n > 0 {
            out.put_u8(b',');
        }
        out.extend_from_slice(item.text().as_bytes());
    }
    out.extend_from_slice(b"]}");
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use bytes::Bytes;
    use serde_json::json;
    use tunacode_protocol::Part;

    use super::*;
    use crate::MessageCache;
    use crate::anthropic::AnthropicBody;
    use crate::continued_body::WriteBody;
    use crate::gemini::GeminiBody;

    fn body(wire: &str, request: &ModelRequest, sizes: &BodyWriter) -> Bytes {
        match wire {
            "anthropic" => AnthropicBody(request).write(sizes),
            _ => GeminiBody(request).write(sizes),
        }
    }

    /// How many of ten growing calls continue their predecessor's body in its own buffer (the
    /// writer makes every new buffer roomy enough for all ten), each the same bytes as a fresh one.
    fn continued_calls(wire: &str) -> usize {
        let cache = Arc::new(MessageCache::new());
        let sizes = BodyWriter::default();
        let mut history = vec![Message::user("go")];
        let mut last = None;
        let mut continued = 0;
        for i in 0..10 {
            let id = format!("call_{i}");
            history.push(Message::response(vec![Part::tool_call(
                &id,
                "ls",
                json!({}),
            )]));
            history.push(Message::request(vec![Part::tool_return(&id, "ls", "a b")]));
            let mut request = ModelRequest {
                system: "sys".into(),
                messages: Arc::new(history.clone()),
                nudge: Some(format!("note {i}")),
                ..ModelRequest::default()
            };
            let alone = body(wire, &request, &BodyWriter::default());
            request.cache = Some(cache.clone());
            sizes.wrote(1 << 16);
            let got = body(wire, &request, &sizes);
            assert_eq!(got, alone, "{wire} call {i}");
            continued += usize::from(last == Some(got.as_ptr()));
            last = Some(got.as_ptr());
        }
        continued
    }

    #[test]
    fn each_call_continues_the_last_body_after_the_turns_it_kept() {
        // Anthropic's first body keeps nothing: its breakpoints mark both user turns.
        assert_eq!(continued_calls("anthropic"), 8);
        assert_eq!(continued_calls("gemini"), 9);
    }
}
