//! A request body whose history is its last field, written so that the next call of the same
//! history continues it instead of writing the history again. The body is the lead (every other
//! field, then the history array's name and any element that comes before the history, such as
//! Chat's system message), the history's elements, and the end. The body of a history's last call is
//! kept in its [`MessageCache`] with where its kept messages end: when the next call's lead is the
//! same bytes, none of those messages changed since (the engine says so: `invalidate_from`), and no
//! call still holds the buffer, the next body is that buffer cut there, with only the new elements
//! and the end written. A turn of a long task so writes what is new, not its whole history.
//!
//! Written by hand because serde writes a value whole: it cannot continue a previous one.

use bytes::{BufMut, Bytes, BytesMut};
use serde::Serialize;

use crate::http::BodyWriter;
use crate::message_cache::{KeptBody, MessageCache};

/// A request body written as bytes, continuing the history's last body when it can.
pub(crate) trait WriteBody {
    /// The body's bytes, in a buffer sized by `sizes`.
    fn try_write(&self, sizes: &BodyWriter) -> Result<Bytes, serde_json::Error>;

    /// [`WriteBody::try_write`]. Serialising to memory fails only for maps with non-string keys,
    /// which no body has; such a body would be sent empty and the provider would say so.
    fn write(&self, sizes: &BodyWriter) -> Bytes {
        self.try_write(sizes).unwrap_or_default()
    }
}

/// The history array being written: the buffer, and whether it holds an element yet.
pub(crate) struct Elements {
    out: BytesMut,
    any: bool,
    /// Where the kept messages end, how many history messages that covers, and whether an element
    /// comes before it.
    kept: (usize, usize, bool),
    /// Every element so far is a kept message's (the kept end may still move).
    continuing: bool,
}

impl Elements {
    /// Starts the body after `lead` (with `any`: the lead ends with an element of the array), or
    /// continues the history's last body on `wire`. Returns the elements and the index of the first
    /// history message still to write.
    pub(crate) fn start(
        cache: Option<&MessageCache>,
        wire: &'static str,
        (lead, any): (&[u8], bool),
        history_len: usize,
        sizes: &BodyWriter,
    ) -> (Elements, usize) {
        if let Some((out, any, covered)) = cache.and_then(|c| continued(c, wire, lead, history_len))
        {
            let kept = (out.len(), covered, any);
            return (
                Elements {
                    out,
                    any,
                    kept,
                    continuing: true,
                },
                covered,
            );
        }
        let mut out = BytesMut::with_capacity(sizes.capacity());
        out.extend_from_slice(lead);
        let kept = (out.len(), 0, any);
        (
            Elements {
                out,
                any,
                kept,
                continuing: true,
            },
            0,
        )
    }

    /// Starts an element (a comma after another).
    fn next(&mut self) {
        if self.any {
            self.out.put_u8(b',');
        }
        self.any = true;
    }

    /// Writes an element made for this call (not kept): the kept end stays where it is.
    pub(crate) fn value(&mut self, value: &impl Serialize) -> Result<(), serde_json::Error> {
        self.continuing = false;
        self.next();
        serde_json::to_writer((&mut self.out).writer(), value)
    }

    /// Writes one element by `write`: kept when `kept` names the last history message it holds (the
    /// kept end moves past it while every element so far is kept), made for this call otherwise.
    pub(crate) fn element(&mut self, kept: Option<usize>, write: impl FnOnce(&mut BytesMut)) {
        self.next();
        write(&mut self.out);
        match kept {
            Some(index) => self.covered(index),
            None => self.continuing = false,
        }
    }

    /// Writes the elements (JSON texts) of the history message at `index` as kept, or as they will
    /// be kept: the same bytes on every call until the engine says the message changed.
    pub(crate) fn kept<'a>(&mut self, index: usize, texts: impl IntoIterator<Item = &'a str>) {
        for text in texts {
            self.next();
            self.out.extend_from_slice(text.as_bytes());
        }
        self.covered(index);
    }

    /// The history message at `index` has nothing in the body (it is out of the conversation).
    pub(crate) fn covered(&mut self, index: usize) {
        if self.continuing {
            self.kept = (self.out.len(), index + 1, self.any);
        }
    }

    /// Ends the body with `end` and keeps it in `cache` for the next call.
    pub(crate) fn finish(
        mut self,
        end: &[u8],
        (cache, wire, lead): (Option<&MessageCache>, &'static str, usize),
        sizes: &BodyWriter,
    ) -> Bytes {
        self.out.extend_from_slice(end);
        let bytes = self.out.freeze();
        sizes.wrote(bytes.len());
        let (kept_end, covered, any) = self.kept;
        // A body that covers no message saves the next call nothing but an allocation.
        if let Some(cache) = cache.filter(|_| covered > 0) {
            cache.keep_body(KeptBody {
                wire,
                bytes: bytes.clone(),
                lead,
                kept_end,
                covered,
                any,
            });
        }
        bytes
    }
}

/// The history's last body on `wire`, cut after its kept messages, when it begins with `lead`,
/// covers no more than `limit` messages and no one else holds it; with whether it holds an element
/// and how many messages it covers.
fn continued(
    cache: &MessageCache,
    wire: &'static str,
    lead: &[u8],
    limit: usize,
) -> Option<(BytesMut, bool, usize)> {
    let body = cache.take_body(wire)?;
    if body.lead != lead.len() || !body.bytes.starts_with(lead) || body.covered > limit {
        return None;
    }
    let mut out = body.bytes.try_into_mut().ok()?;
    out.truncate(body.kept_end);
    Some((out, body.any, body.covered))
}

/// `head`, a serialized JSON object, opened for one more field: the history array named `name`.
pub(crate) fn lead_of(mut head: Vec<u8>, name: &str) -> Vec<u8> {
    head.pop();
    if head.last() != Some(&b'{') {
        head.push(b',');
    }
    head.push(b'"');
    head.extend_from_slice(name.as_bytes());
    head.extend_from_slice(b"\":[");
    head
}
