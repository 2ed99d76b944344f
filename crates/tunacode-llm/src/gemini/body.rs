//! The `generateContent` body as bytes: every field but `contents` written by serde
//! ([`GeminiHead`]), then the `contents` turns, a kept message's parts copied as they are.
//! `contents` is the body's last field, so the next call of the same history continues this body
//! after its kept turns, all but the last (`turn_body.rs`).

use bytes::Bytes;

use super::request::{GeminiBody, GeminiHead, WIRE, contents, parts_of};
use crate::continued_body::{WriteBody, lead_of};
use crate::http::BodyWriter;
use crate::turn_body::{Begun, TurnShape, begin, write_turns};

/// Gemini's turns: `{"role":"user"|"model","parts":[parts]}`.
const SHAPE: TurnShape = TurnShape {
    wire: WIRE,
    roles: ["user", "model"],
    items: "parts",
};

impl GeminiBody<'_> {
    /// The body's bytes, as the client sends them (continuing the history's last body when it can).
    pub fn to_bytes(&self) -> Bytes {
        self.write(&BodyWriter::default())
    }
}

impl WriteBody for GeminiBody<'_> {
    fn try_write(&self, sizes: &BodyWriter) -> Result<Bytes, serde_json::Error> {
        let r = self.0;
        let lead = lead_of(serde_json::to_vec(&GeminiHead(r))?, "contents");
        let parts = |index, m: &_| parts_of(r, index, m);
        // Nothing marks a Gemini turn: any new turns will do.
        let Begun {
            mut elements,
            items,
        } = begin(r, &SHAPE, &lead, sizes, parts, |_| true)?;
        let turns = contents(r, &items)?;
        // The last turn may still be joined by the next call's first message.
        let keep = turns.len().saturating_sub(1);
        write_turns(&mut elements, &turns, keep, &SHAPE);
        Ok(elements.finish(
            b"]}",
            (r.cache.as_deref(), WIRE, (lead.len(), false)),
            sizes,
        ))
    }
}
