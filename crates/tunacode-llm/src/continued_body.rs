//! A request body whose history is its last field, written so that the next call of the same
//! history continues it instead of writing the history again. The body is the lead (every other
//! field, then the history array's name and any element that comes before the history, such as
//! Chat's system message), the history's elements, and the end. The body of a history's last call is
//! kept in its [`MessageCache`] with where each kept message's bytes end: the next body is that body
//! cut after its last message that did not change since (the engine says so: `invalidate_from`),
//! with only the new elements and the end written. The cut body is the same buffer when no call
//! still holds it (a copy otherwise), and when the lead changed, its kept elements are copied after
//! the new lead. A turn of a long task so writes what is new, not its whole history; a message whose
//! bytes are in the last body is written again only when it changed, or when a turn wire steps back
//! a few turns (`turn_body.rs`).
//!
//! Written by hand because serde writes a value whole: it cannot continue a previous one.

use bytes::{BufMut, Bytes, BytesMut};
use serde::Serialize;

use tunacode_protocol::{Content, Message, Part};

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
    /// Where the lead ends, and whether it ends with an element.
    lead: (usize, bool),
    /// Where the body may be cut after a kept message (see [`KeptBody::cuts`]).
    cuts: Vec<(usize, usize)>,
    /// Every element so far is a kept message's (the kept end may still move).
    continuing: bool,
}

impl Elements {
    /// Starts the body of `history` after `lead` (with `any`: the lead ends with an element of the
    /// array), or continues the history's last body on `wire` (cut after no more than `limit`
    /// messages). Returns the elements and the index of the first history message still to write.
    pub(crate) fn start(
        cache: Option<&MessageCache>,
        wire: &'static str,
        (lead, any): (&[u8], bool),
        (history, limit): (&[Message], usize),
        sizes: &BodyWriter,
    ) -> (Elements, usize) {
        let kept = cache.and_then(|c| c.take_body(wire));
        if let Some((out, cuts)) = kept.and_then(|body| continued(body, (lead, any), limit, sizes))
        {
            let (covered, end) = cuts.last().copied().unwrap_or((0, lead.len()));
            let elements = Elements {
                out,
                any: any || end > lead.len(),
                lead: (lead.len(), any),
                cuts,
                continuing: true,
            };
            return (elements, covered);
        }
        // Room for the whole history at once: grown by doubling, a long history's body was copied
        // several times and left ~a third of its room unused (the first call of a process has no
        // last body to size it from).
        let room = sizes.capacity().max(lead.len() + size_hint(history));
        let mut out = BytesMut::with_capacity(room);
        out.extend_from_slice(lead);
        let elements = Elements {
            out,
            any,
            lead: (lead.len(), any),
            // A cut per message at most: room for all at once, not twice as much after doubling.
            cuts: Vec::with_capacity(history.len().min(limit)),
            continuing: true,
        };
        (elements, 0)
    }

    /// Cuts the continued body back to its cut before the last (`to_lead`: to its lead), before
    /// anything new is written. Returns the index of the first history message now to write.
    pub(crate) fn back(&mut self, to_lead: bool) -> usize {
        self.cuts.pop();
        if to_lead {
            self.cuts.clear();
        }
        let (lead, lead_any) = self.lead;
        let (covered, end) = self.cuts.last().copied().unwrap_or((0, lead));
        self.out.truncate(end);
        self.any = lead_any || end > lead;
        covered
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

    /// Writes the elements of the history message at `index` as kept, serialized straight into
    /// the body.
    pub(crate) fn kept_values<T: Serialize>(
        &mut self,
        index: usize,
        values: impl IntoIterator<Item = T>,
    ) -> Result<(), serde_json::Error> {
        for value in values {
            self.next();
            serde_json::to_writer((&mut self.out).writer(), &value)?;
        }
        self.covered(index);
        Ok(())
    }

    /// The history message at `index` is written (or has nothing in the body: it is out of the
    /// conversation): while every element so far is kept, the body may be cut after it.
    pub(crate) fn covered(&mut self, index: usize) {
        if self.continuing {
            // A message without elements adds a cut where the last one is: a change to it then
            // cuts back to just before it.
            self.cuts.push((index + 1, self.out.len()));
        }
    }

    /// Ends the body with `end` and keeps it in `cache` for the next call.
    pub(crate) fn finish(
        mut self,
        end: &[u8],
        (cache, wire, (lead, lead_any)): (Option<&MessageCache>, &'static str, (usize, bool)),
        sizes: &BodyWriter,
    ) -> Bytes {
        self.out.extend_from_slice(end);
        let bytes = self.out.freeze();
        sizes.wrote(bytes.len());
        // A body that covers no message saves the next call nothing but an allocation.
        if let Some(cache) = cache.filter(|_| !self.cuts.is_empty()) {
            cache.keep_body(KeptBody {
                wire,
                bytes: bytes.clone(),
                lead,
                lead_any,
                cuts: self.cuts,
            });
        }
        bytes
    }
}

/// About the bytes `history` takes in a body, a little more rather than less: its texts, ids, names
/// and arguments, a quarter more for escapes and each wire's own words, and each part's and
/// message's keys. Room asked for and never written is never touched, so it costs no memory.
fn size_hint(history: &[Message]) -> usize {
    let part_bytes = |part: &Part| match part {
        Part::Text(p) => p.content.len(),
        Part::Thinking(p) => p.content.len() + p.signature.as_ref().map_or(0, String::len),
        Part::UserPrompt(p) => content_len(&p.content),
        Part::SystemPrompt(p) => p.content.len(),
        Part::ToolCall(p) => p.tool_call_id.len() + p.tool_name.len() + p.args.json().len(),
        Part::ToolReturn(p) => p.tool_call_id.len() + p.tool_name.len() + content_len(&p.content),
        Part::RetryPrompt(p) => content_len(&p.content) + 64,
        Part::Other(_) => 256,
    };
    let parts: usize = history
        .iter()
        .flat_map(|m| m.parts.iter())
        .map(|p| part_bytes(p) * 5 / 4 + 64)
        .sum();
    parts + history.len() * 32
}

/// A content's length as text (a list of items, say images, at a guess).
fn content_len(content: &Content) -> usize {
    content.as_str().map_or(1024, str::len)
}

/// The history's last body cut after its last kept message that is among the first `limit`, with
/// its cuts up to there: the same buffer when no one else holds it, a copy otherwise; and when the
/// lead changed (a new system prompt or tools), the kept elements after the new `lead`. `None`
/// when nothing of it can be kept.
fn continued(
    mut body: KeptBody,
    (lead, any): (&[u8], bool),
    limit: usize,
    sizes: &BodyWriter,
) -> Option<(BytesMut, Vec<(usize, usize)>)> {
    let usable = body.cuts.partition_point(|&(covered, _)| covered <= limit);
    body.cuts.truncate(usable);
    let &(_, end) = body.cuts.last()?;
    if body.lead == lead.len() && body.bytes.starts_with(lead) {
        let out = match body.bytes.try_into_mut() {
            Ok(mut out) => {
                out.truncate(end);
                out
            }
            // A retry still sends it: its kept bytes are copied, not written again.
            Err(bytes) => {
                let mut out = BytesMut::with_capacity(sizes.capacity().max(end));
                out.extend_from_slice(&bytes[..end]);
                out
            }
        };
        return Some((out, body.cuts));
    }
    Some(relead(&body, end, (lead, any), sizes))
}

/// The kept elements of `body` (up to `end`) after another `lead`, and where its cuts now fall.
fn relead(
    body: &KeptBody,
    end: usize,
    (lead, any): (&[u8], bool),
    sizes: &BodyWriter,
) -> (BytesMut, Vec<(usize, usize)>) {
    let old = &body.bytes[body.lead..end];
    // The first element follows a comma when the old lead ended with one of its own.
    let (elements, from) = match old.split_first() {
        Some((b',', rest)) if body.lead_any => (rest, body.lead + 1),
        _ => (old, body.lead),
    };
    let mut out = BytesMut::with_capacity(sizes.capacity().max(lead.len() + elements.len() + 1));
    out.extend_from_slice(lead);
    if any && !elements.is_empty() {
        out.put_u8(b',');
    }
    let base = out.len();
    out.extend_from_slice(elements);
    let cuts = body
        .cuts
        .iter()
        .map(|&(covered, at)| match at.checked_sub(from) {
            Some(n) if at > body.lead => (covered, base + n),
            _ => (covered, lead.len()),
        })
        .collect();
    (out, cuts)
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

#[cfg(test)]
#[path = "continued_body_tests.rs"]
mod tests;
