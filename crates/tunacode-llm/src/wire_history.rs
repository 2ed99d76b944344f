//! The history part of a request body for the wires that build it item by item (Responses input
//! items, Anthropic content blocks, Gemini parts): each in-conversation message's items, from the
//! first message the kept body does not hold (`continued_body.rs`). Wires that join consecutive
//! messages of one side into one turn (Anthropic, Gemini) group the items here.

use serde::{Serialize, Serializer};
use serde_json::value::{RawValue, to_raw_value};
use serde_json::{Map, Value};
use tunacode_protocol::Message;

use crate::client::ModelRequest;

/// One in-conversation message's wire items, with its side.
pub(crate) struct MessageItems {
    /// Its index in the history.
    pub index: usize,
    /// Whether the message is a request (the user's side).
    pub request: bool,
    /// Its items as the wire sends them.
    pub items: Vec<Box<RawValue>>,
}

/// The items of each in-conversation message of `request`'s history from index `start` on, without
/// the call's note, made by `items_of` (given the message's index). The messages before `start` are
/// in the kept body already (`continued_body.rs`).
pub(crate) fn message_items_from(
    request: &ModelRequest,
    start: usize,
    mut items_of: impl FnMut(usize, &Message) -> Vec<Value>,
) -> Result<Vec<MessageItems>, serde_json::Error> {
    let mut out = Vec::with_capacity(request.messages.len().saturating_sub(start));
    for (index, message) in request.messages.iter().enumerate().skip(start) {
        if !message.in_conversation() {
            continue;
        }
        let items = items_of(index, message)
            .iter()
            .map(to_raw_value)
            .collect::<Result<_, _>>()?;
        out.push(MessageItems {
            index,
            request: message.is_request(),
            items,
        });
    }
    Ok(out)
}

/// Whether the call's note joins this history: it does when the history ends with a request
/// ([`ModelRequest::history`]).
pub(crate) fn nudge_of(request: &ModelRequest) -> Option<&str> {
    request
        .nudge
        .as_deref()
        .filter(|_| request.messages.last().is_some_and(Message::is_request))
}

/// One item of a body: a message's bytes, or bytes made for this call only (a cache mark, the
/// call's note).
pub(crate) enum Item<'a> {
    /// A message's bytes, borrowed.
    Kept(&'a RawValue),
    /// Bytes of this call.
    Made(Box<RawValue>),
}

impl Item<'_> {
    /// The item's JSON text.
    pub fn text(&self) -> &str {
        match self {
            Item::Kept(raw) => raw.get(),
            Item::Made(raw) => raw.get(),
        }
    }

    /// The item (a JSON object) with `key` set to `value`. Only the item itself is parsed, never
    /// the rest of the history.
    pub fn with_entry(&self, key: &str, value: Value) -> Result<Item<'static>, serde_json::Error> {
        let mut object: Map<String, Value> = serde_json::from_str(self.text())?;
        object.insert(key.to_string(), value);
        Ok(Item::Made(to_raw_value(&object)?))
    }
}

impl Serialize for Item<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Item::Kept(raw) => raw.serialize(serializer),
            Item::Made(raw) => raw.serialize(serializer),
        }
    }
}

/// A turn of a wire that joins consecutive messages of one side.
pub(crate) struct Turn<'a> {
    /// Whether the turn is the user's side.
    pub request: bool,
    /// The items of its messages, in order.
    pub items: Vec<Item<'a>>,
    /// The history index of its last message (`None`: a turn of the call's note alone).
    pub last: Option<usize>,
}

/// The messages' items grouped into turns: consecutive messages of one side join, and messages
/// without items are left out (so they never split a turn).
pub(crate) fn turns(messages: &[MessageItems]) -> Vec<Turn<'_>> {
    let mut out: Vec<Turn<'_>> = Vec::new();
    for message in messages.iter().filter(|m| !m.items.is_empty()) {
        let items = message.items.iter().map(|raw| Item::Kept(raw));
        match out.last_mut() {
            Some(last) if last.request == message.request => {
                last.items.extend(items);
                last.last = Some(message.index);
            }
            _ => out.push(Turn {
                request: message.request,
                items: items.collect(),
                last: Some(message.index),
            }),
        }
    }
    out
}

/// Joins the call's note to the newest turn when it is the user's, else adds a user turn for it (the
/// note joins the last request, [`ModelRequest::history`]).
pub(crate) fn join_note<'a>(turns: &mut Vec<Turn<'a>>, note: Item<'a>) {
    match turns.last_mut() {
        Some(last) if last.request => last.items.push(note),
        _ => turns.push(Turn {
            request: true,
            items: vec![note],
            last: None,
        }),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tunacode_protocol::Part;

    use super::*;

    #[test]
    fn items_join_into_turns_and_a_message_without_items_splits_none() {
        let mut compacted = Message::user("gone");
        compacted.mark_compacted();
        let request = ModelRequest {
            messages: vec![
                Message::user("one"),
                Message::response(vec![Part::text("")]),
                compacted,
                Message::user("two"),
            ]
            .into(),
            ..ModelRequest::default()
        };
        let made = std::cell::RefCell::new(Vec::new());
        let items_of = |index: usize, m: &Message| {
            made.borrow_mut().push(index);
            if m.is_request() {
                vec![json!({"text": index})]
            } else {
                Vec::new()
            }
        };
        let items = message_items_from(&request, 0, items_of).unwrap();
        assert_eq!(
            *made.borrow(),
            [0, 1, 3],
            "a message out of the conversation is not made"
        );
        assert_eq!(items.len(), 3);
        let from_two = message_items_from(&request, 2, items_of).unwrap();
        assert_eq!(from_two.iter().map(|m| m.index).collect::<Vec<_>>(), [3]);
        let grouped = turns(&items);
        // The empty response does not split the user's turn.
        assert_eq!(grouped.len(), 1);
        let texts: Vec<&str> = grouped[0].items.iter().map(Item::text).collect();
        assert_eq!(texts, [r#"{"text":0}"#, r#"{"text":3}"#]);
        let marked = grouped[0].items[1].with_entry("mark", json!(1)).unwrap();
        assert_eq!(marked.text(), r#"{"text":3,"mark":1}"#);
    }
}
