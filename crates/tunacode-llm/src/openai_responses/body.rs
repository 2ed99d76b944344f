//! The Responses body as bytes: every field but `input` written by serde ([`ResponsesHead`]), then
//! the `input` items, a kept message's copied as they are. `input` is the body's last field, so the
//! next call of the same history continues this body instead of writing the history again
//! (`continued_body.rs`).

use bytes::Bytes;
use serde_json::json;

use super::request::{ResponsesBody, ResponsesHead, WIRE, items_of};
use crate::continued_body::{Elements, WriteBody, lead_of};
use crate::http::BodyWriter;
use crate::wire_history::nudge_of;

impl ResponsesBody<'_> {
    /// The body's bytes, as the client sends them (continuing the history's last body when it can).
    pub fn to_bytes(&self) -> Bytes {
        self.write(&BodyWriter::default())
    }
}

impl WriteBody for ResponsesBody<'_> {
    fn try_write(&self, sizes: &BodyWriter) -> Result<Bytes, serde_json::Error> {
        let r = self.0;
        let lead = lead_of(serde_json::to_vec(&ResponsesHead(r))?, "input");
        let cache = r.cache.as_deref();
        let (mut elements, start) = Elements::start(
            cache,
            WIRE,
            (&lead, false),
            (&r.messages, r.messages.len()),
            sizes,
        );
        for (index, message) in r.messages.iter().enumerate().skip(start) {
            if message.in_conversation() {
                elements.kept_values(index, items_of(message))?;
            } else {
                elements.covered(index);
            }
        }
        if let Some(nudge) = nudge_of(r) {
            elements.value(&json!({"role": "user", "content": nudge}))?;
        }
        Ok(elements.finish(b"]}", (cache, WIRE, (lead.len(), false)), sizes))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tunacode_protocol::{Message, Part};

    use super::*;
    use crate::MessageCache;
    use crate::client::ModelRequest;

    #[test]
    fn the_next_call_continues_the_last_body_and_sends_the_same_bytes() {
        let cache = Arc::new(MessageCache::new());
        let mut history = vec![Message::user("go")];
        let mut buffer = None;
        for i in 0..4 {
            let id = format!("call_{i}");
            history.push(Message::response(vec![Part::tool_call(
                &id,
                "ls",
                json!({}),
            )]));
            history.push(Message::request(vec![Part::tool_return(&id, "ls", "a b")]));
            let request = ModelRequest {
                model: "gpt-5".into(),
                system: "sys".into(),
                messages: Arc::new(history.clone()),
                nudge: Some(format!("note {i}")),
                cache: Some(cache.clone()),
                ..ModelRequest::default()
            };
            let body = ResponsesBody(&request).to_bytes();
            let alone = ModelRequest {
                cache: None,
                ..request.clone()
            };
            assert_eq!(body, ResponsesBody(&alone).to_bytes(), "call {i}");
            if let Some(first) = buffer {
                assert_eq!(
                    body.as_ptr(),
                    first,
                    "call {i} continues the first body's buffer"
                );
            }
            buffer.get_or_insert(body.as_ptr());
        }
    }
}
