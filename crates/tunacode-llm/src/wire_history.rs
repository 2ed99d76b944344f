//! The history part of a request body, serialized once per run for the wires that build it item by
//! item (Responses input items, Anthropic content blocks, Gemini parts): each in-conversation
//! message's items are taken from the engine's [`MessageCache`](crate::MessageCache) when kept, and
//! serialized and kept otherwise. A late call of a long task then copies the old messages' bytes
//! instead of building them again, as the Chat client does with its messages. Wires that join
//! consecutive messages of one side into one turn (Anthropic, Gemini) group the kept items here.

use serde::{Serialize, Serializer};
use serde_json::value::{RawValue, to_raw_value};
use serde_json::{Map, Value};
use tunacode_protocol::Message;

use crate::client::ModelRequest;
use crate::message_cache::Serialized;

/// One in-conversation message's wire items, with its side.
pub(crate) struct MessageItems {
    /// Its index in the history.
    pub index: usize,
    /// Whether the message is a request (the user's side).
    pub request: bool,
    /// Its items as the wire sends them.
    pub items: Serialized,
}

/// The items of each in-conversation message of `request`'s history from index `start` on, without
/// the call's note: kept ones from the cache, the others made by `items_of` (given the message's
/// index) and kept. `wire` names the wire format the items are for.
pub(crate) fn message_items_from(
    request: &ModelRequest,
    wire: &'static str,
    start: usize,
    mut items_of: impl FnMut(usize, &Message) -> Vec<Value>,
) -> Result<Vec<MessageItems>, serde_json::Error> {
    let mut out = Vec::with_capacity(request.messages.len().saturating_sub(start));
    let mut kept = kept_entries(request, wire, start);
    for (index, message) in request.messages.iter().enumerate().skip(start) {
        // A kept message is in the conversation: one that left it (compacted) was said to have
        // changed, and the cache forgot it.
        let items = match kept.next().flatten() {
            Some(items) => items,
            None if !message.in_conversation() => continue,
            None => {
                let made = items_of(index, message)
                    .iter()
                    .map(to_raw_value)
                    .collect::<Result<Serialized, _>>()?;
                if let Some(cache) = &request.cache {
                    cache.put(wire, index, made.clone());
                }
                made
            }
        };
        out.push(MessageItems {
            index,
            request: message.is_request(),
            items,
        });
    }
    Ok(out)
}

/// What the request's cache keeps for `wire` from message `start` on, one entry per message (`None`:
/// not kept), to walk beside the history's messages.
pub(crate) fn kept_entries(
    request: &ModelRequest,
    wire: &'static str,
    start: usize,
) -> std::vec::IntoIter<Option<Serialized>> {
    request
        .cache
        .as_ref()
        .map(|c| c.kept_from(wire, start))
        .unwrap_or_default()
        .into_iter()
}

/// Whether the call's note joins this history: it does when the history ends with a request
/// ([`ModelRequest::history`]).
pub(crate) fn nudge_of(request: &ModelRequest) -> Option<&str> {
    request
        .nudge
        .as_deref()
        .filter(|_| request.messages.last().is_some_and(Message::is_request))
}

/// One item of a body: kept bytes, or bytes made for this call only (a cache mark, the call's note).
pub(crate) enum Item<'a> {
    /// Bytes from the cache, borrowed.
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

    use std::sync::Arc;

    use super::*;
    use crate::message_cache::MessageCache;

    #[test]
    fn items_are_made_once_and_then_copied_from_the_cache() {
        let request = ModelRequest {
            messages: vec![
                Message::user("one"),
                Message::response(vec![Part::text("")]),
                Message::user("two"),
            ]
            .into(),
            cache: Some(Arc::new(MessageCache::new())),
            ..ModelRequest::default()
        };
        let mut made = Vec::new();
        let mut items_of = |index: usize, m: &Message| {
            made.push(index);
            if m.is_request() {
                vec![json!({"text": index})]
            } else {
                Vec::new()
            }
        };
        let first = message_items_from(&request, "w", 0, &mut items_of).unwrap();
        let again = message_items_from(&request, "w", 0, &mut items_of).unwrap();
        assert_eq!(made, [0, 1, 2], "the second call made nothing");
        let grouped = turns(&again);
        // The empty response does not split the user's turn.
        assert_eq!(grouped.len(), 1);
        let texts: Vec<&str> = grouped[0].items.iter().map(Item::text).collect();
        assert_eq!(texts, [r#"{"text":0}"#, r#"{"text":2}"#]);
        assert_eq!(first.len(), 3);
        let marked = grouped[0].items[1].with_entry("mark", json!(1)).unwrap();
        assert_eq!(marked.text(), r#"{"text":2,"mark":1}"#);
    }
}
