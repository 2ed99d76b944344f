//! The Chat Completions body as bytes: every field but `messages` written by serde
//! ([`ChatHead`]), then the `messages` array element by element, a kept message's bytes copied as
//! they are. `messages` is the body's last field, so the next call of the same history continues
//! this body instead of writing the history again (`continued_body.rs`).

use bytes::Bytes;

use super::request::{ChatBody, ChatHead, ChatMessage, ChatMessages, WIRE, with_breakpoint};
use crate::continued_body::{Elements, WriteBody, lead_of};
use crate::http::BodyWriter;
use tunacode_protocol::Message;

impl ChatBody<'_> {
    /// The body's bytes, as the client sends them (continuing the history's last body when it can).
    pub fn to_bytes(&self) -> Bytes {
        self.write(&BodyWriter::default())
    }
}

impl WriteBody for ChatBody<'_> {
    fn try_write(&self, sizes: &BodyWriter) -> Result<Bytes, serde_json::Error> {
        let r = self.request;
        let lead = self.lead()?;
        let cache = r.cache.as_deref();
        let system = !r.system.is_empty();
        let marked = ChatMessages(*self).claude_breakpoints();
        // A marked message is written for this call only: the kept body must end before it.
        let limit = marked.iter().copied().min().unwrap_or(r.messages.len());
        let history = (&r.messages[..], limit);
        let (mut elements, start) = Elements::start(cache, WIRE, (&lead, system), history, sizes);
        self.write_messages(&mut elements, start, &marked)?;
        if let Some(nudge) = r
            .nudge
            .as_ref()
            .filter(|_| r.messages.last().is_some_and(Message::is_request))
        {
            elements.value(&ChatMessage::text("user", nudge))?;
        }
        Ok(elements.finish(b"]}", (cache, WIRE, (lead.len(), system)), sizes))
    }
}

impl ChatBody<'_> {
    /// What comes before the history: the head's fields, `"messages":[` and the system message.
    fn lead(&self) -> Result<Vec<u8>, serde_json::Error> {
        let mut lead = lead_of(serde_json::to_vec(&ChatHead(*self))?, "messages");
        let r = self.request;
        if !r.system.is_empty() {
            if self.dialect.openrouter && r.model.starts_with("anthropic/") {
                // Claude through OpenRouter caches only at explicit breakpoints: one on the system
                // prompt caches the tools and the system prompt, which never change in a session.
                let system = serde_json::json!({"role": "system", "content": [{"type": "text",
                    "text": r.system, "cache_control": {"type": "ephemeral"}}]});
                serde_json::to_writer(&mut lead, &system)?;
            } else {
                serde_json::to_writer(&mut lead, &ChatMessage::text("system", &r.system))?;
            }
        }
        Ok(lead)
    }

    /// Writes the history's messages from `start` on (those in `marked` with a cache breakpoint).
    fn write_messages(
        &self,
        elements: &mut Elements,
        start: usize,
        marked: &[usize],
    ) -> Result<(), serde_json::Error> {
        let r = self.request;
        let messages = ChatMessages(*self);
        for (index, message) in r.messages.iter().enumerate().skip(start) {
            if !message.in_conversation() {
                elements.covered(index);
                continue;
            }
            let made = messages.wire_messages(message);
            if marked.contains(&index) {
                // Sent with its breakpoint, and never kept: it is sent unmarked once older.
                for m in with_breakpoint(made)? {
                    elements.value(&m)?;
                }
            } else {
                elements.kept_values(index, made)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;
    use tunacode_protocol::Part;

    use super::*;
    use crate::MessageCache;
    use crate::client::ModelRequest;
    use crate::openai_chat::ChatDialect;

    fn turn(i: usize) -> Vec<Message> {
        let id = format!("call_{i}");
        vec![
            Message::response(vec![Part::tool_call(&id, "read_file", json!({"n": i}))]),
            Message::request(vec![Part::tool_return(
                &id,
                "read_file",
                format!("line {i}"),
            )]),
        ]
    }

    fn request(
        model: &str,
        system: &str,
        history: &[Message],
        cache: Option<&Arc<MessageCache>>,
    ) -> ModelRequest {
        ModelRequest {
            model: model.into(),
            system: system.into(),
            messages: Arc::new(history.to_vec()),
            cache: cache.cloned(),
            ..ModelRequest::default()
        }
    }

    fn fresh(request: &ModelRequest, dialect: ChatDialect) -> Bytes {
        let alone = ModelRequest {
            cache: None,
            ..request.clone()
        };
        ChatBody::new(&alone, dialect).to_bytes()
    }

    #[test]
    fn the_next_call_continues_the_last_body_in_its_own_buffer() {
        let cache = Arc::new(MessageCache::new());
        let mut history = vec![Message::user("go")];
        history.extend(turn(0));
        let first = request("m", "sys", &history, Some(&cache));
        let body = ChatBody::new(&first, ChatDialect::default()).to_bytes();
        let buffer = body.as_ptr();
        drop(body);
        history.extend(turn(1));
        let second = request("m", "sys", &history, Some(&cache));
        let body = ChatBody::new(&second, ChatDialect::default()).to_bytes();
        assert_eq!(body.as_ptr(), buffer, "the last body's buffer, continued");
        assert_eq!(body, fresh(&second, ChatDialect::default()));
        // A body still held elsewhere (a call in flight) is not written over: a new buffer is.
        history.extend(turn(2));
        let third = request("m", "sys", &history, Some(&cache));
        let body = ChatBody::new(&third, ChatDialect::default()).to_bytes();
        assert_ne!(body.as_ptr(), buffer);
        assert_eq!(body, fresh(&third, ChatDialect::default()));
        // `body` is held: the next call copies what it continues.
        history.extend(turn(3));
        let fourth = request("m", "sys", &history, Some(&cache));
        let next = ChatBody::new(&fourth, ChatDialect::default()).to_bytes();
        assert_ne!(next.as_ptr(), body.as_ptr());
        assert_eq!(next, fresh(&fourth, ChatDialect::default()));
    }

    #[test]
    fn a_new_lead_or_a_changed_message_starts_the_body_afresh() {
        let cache = Arc::new(MessageCache::new());
        let mut history = vec![Message::user("go")];
        history.extend(turn(0));
        let dialect = ChatDialect::default();
        let _ = ChatBody::new(&request("m", "sys", &history, Some(&cache)), dialect).to_bytes();
        history.extend(turn(1));
        for (model, system) in [
            ("m", "new system prompt"),
            ("other-model", "sys"),
            ("m", ""),
        ] {
            let next = request(model, system, &history, Some(&cache));
            let body = ChatBody::new(&next, dialect).to_bytes();
            assert_eq!(body, fresh(&next, dialect), "{model} / {system}");
        }
        // A message the body covers changed, and the engine said so.
        history[1] = Message::response(vec![Part::tool_call(
            "call_0",
            "read_file",
            json!({"n": 9}),
        )]);
        cache.invalidate_from(1);
        let next = request("m", "", &history, Some(&cache));
        let body = ChatBody::new(&next, dialect).to_bytes();
        assert_eq!(body, fresh(&next, dialect));
        assert!(String::from_utf8_lossy(&body).contains("{\\\"n\\\":9}"));
    }

    #[test]
    fn a_breakpoint_that_moves_back_into_the_kept_body_starts_it_afresh() {
        let cache = Arc::new(MessageCache::new());
        let dialect = ChatDialect {
            openrouter: true,
            images: false,
        };
        let mut history = vec![Message::user("go")];
        history.extend(turn(0));
        history.extend(turn(1));
        let first = request("anthropic/claude", "sys", &history, Some(&cache));
        let _ = ChatBody::new(&first, dialect).to_bytes();
        // The last turn goes (the engine says so from where it went): the marks move back onto the
        // prompt, which the last body holds unmarked.
        history.truncate(3);
        cache.invalidate_from(3);
        let next = request("anthropic/claude", "sys", &history, Some(&cache));
        let body = ChatBody::new(&next, dialect).to_bytes();
        assert_eq!(body, fresh(&next, dialect));
        let text = String::from_utf8_lossy(&body).into_owned();
        assert_eq!(text.matches("cache_control").count(), 3, "{text}");
    }

    #[test]
    fn claude_breakpoints_through_openrouter_are_the_same_bytes_call_after_call() {
        let cache = Arc::new(MessageCache::new());
        let dialect = ChatDialect {
            openrouter: true,
            images: false,
        };
        let mut history = vec![Message::user("go")];
        for i in 0..6 {
            history.extend(turn(i));
            let next = request("anthropic/claude", "sys", &history, Some(&cache));
            let body = ChatBody::new(&next, dialect).to_bytes();
            assert_eq!(body, fresh(&next, dialect), "call {i}");
            let text = String::from_utf8_lossy(&body).into_owned();
            assert_eq!(
                text.matches("cache_control").count(),
                3,
                "system and two requests"
            );
        }
    }
}
