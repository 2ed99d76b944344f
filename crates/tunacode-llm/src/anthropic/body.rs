//! The Messages body as bytes: every field but `messages` written by serde ([`AnthropicHead`]),
//! then the `messages` turns, a kept message's blocks copied as they are. `messages` is the body's
//! last field, so the next call of the same history continues this body after its kept turns, those
//! before the call's cache breakpoints (`turn_body.rs`).

use bytes::Bytes;

use super::request::{AnthropicBody, AnthropicHead, WIRE, blocks_of, wire_turns};
use crate::continued_body::{WriteBody, lead_of};
use crate::http::BodyWriter;
use crate::turn_body::{Begun, TurnShape, begin, write_turns};

/// Anthropic's turns: `{"role":"user"|"assistant","content":[blocks]}`.
const SHAPE: TurnShape = TurnShape {
    wire: WIRE,
    roles: ["user", "assistant"],
    items: "content",
};

impl AnthropicBody<'_> {
    /// The body's bytes, as the client sends them (continuing the history's last body when it can).
    pub fn to_bytes(&self) -> Bytes {
        self.write(&BodyWriter::default())
    }
}

impl WriteBody for AnthropicBody<'_> {
    fn try_write(&self, sizes: &BodyWriter) -> Result<Bytes, serde_json::Error> {
        let r = self.0;
        let lead = lead_of(serde_json::to_vec(&AnthropicHead(r))?, "messages");
        // The breakpoints go on the last two user turns: with two among the new turns, every kept
        // turn is one a fresh body would write unmarked too.
        let two_users =
            |new: &[crate::wire_history::Turn<'_>]| new.iter().filter(|t| t.request).count() >= 2;
        let Begun {
            mut elements,
            items,
        } = begin(r, &SHAPE, &lead, sizes, |_, m| blocks_of(m), two_users)?;
        let (turns, keep) = wire_turns(r, &items)?;
        write_turns(&mut elements, &turns, keep, &SHAPE);
        Ok(elements.finish(
            b"]}",
            (r.cache.as_deref(), WIRE, (lead.len(), false)),
            sizes,
        ))
    }
}
