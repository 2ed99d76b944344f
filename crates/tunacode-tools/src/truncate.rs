//! Output caps: per-line character limits and a bounded head + tail capture for streams.

use std::collections::VecDeque;

/// The longest prefix of `s` with at most `max` characters, and whether anything was cut.
pub(crate) fn truncate_chars(s: &str, max: usize) -> (&str, bool) {
    match s.char_indices().nth(max) {
        Some((idx, _)) => (&s[..idx], true),
        None => (s, false),
    }
}

/// Keeps the first `head_cap` and the last `tail_cap` bytes of a stream of any length, counting the rest.
#[derive(Debug)]
pub(crate) struct HeadTail {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    head_cap: usize,
    tail_cap: usize,
    total: u64,
}

impl HeadTail {
    /// An empty capture.
    pub(crate) fn new(head_cap: usize, tail_cap: usize) -> Self {
        HeadTail {
            head: Vec::new(),
            tail: VecDeque::new(),
            head_cap,
            tail_cap,
            total: 0,
        }
    }

    /// Appends a chunk, dropping the middle of the stream once both buffers are full.
    pub(crate) fn push(&mut self, mut chunk: &[u8]) {
        self.total += chunk.len() as u64;
        if self.head.len() < self.head_cap {
            let take = chunk.len().min(self.head_cap - self.head.len());
            self.head.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
        }
        if chunk.is_empty() || self.tail_cap == 0 {
            return;
        }
        if chunk.len() >= self.tail_cap {
            self.tail.clear();
            self.tail.extend(&chunk[chunk.len() - self.tail_cap..]);
            return;
        }
        self.tail.extend(chunk);
        let excess = self.tail.len().saturating_sub(self.tail_cap);
        self.tail.drain(..excess);
    }

    /// Bytes seen in total.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// Bytes dropped from the middle.
    pub(crate) fn omitted(&self) -> u64 {
        self.total - (self.head.len() + self.tail.len()) as u64
    }

    /// The kept text (lossily decoded), with an "... N bytes omitted ..." line where the middle was dropped.
    pub(crate) fn render(&self) -> String {
        let mut out = String::from_utf8_lossy(&self.head).into_owned();
        let omitted = self.omitted();
        if omitted > 0 {
            if !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&format!("... {omitted} bytes omitted ...\n"));
        }
        let (a, b) = self.tail.as_slices();
        let mut tail = Vec::with_capacity(a.len() + b.len());
        tail.extend_from_slice(a);
        tail.extend_from_slice(b);
        out.push_str(&String::from_utf8_lossy(&tail));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncates_on_char_boundaries() {
        assert_eq!(truncate_chars("héllo", 2), ("hé", true));
        assert_eq!(truncate_chars("hé", 2), ("hé", false));
        assert_eq!(truncate_chars("", 0), ("", false));
    }

    #[test]
    fn keeps_everything_when_small() {
        let mut c = HeadTail::new(4, 4);
        c.push(b"abc");
        c.push(b"defg");
        assert_eq!(c.render(), "abcdefg");
        assert_eq!(c.omitted(), 0);
        assert_eq!(c.total(), 7);
    }

    #[test]
    fn keeps_head_and_tail_of_long_streams() {
        let mut c = HeadTail::new(3, 3);
        for chunk in [&b"12"[..], b"345", b"6789", b"0", b"abcdefgh", b"xy"] {
            c.push(chunk);
        }
        // 1234567890abcdefghxy: head 123, tail hxy, 14 omitted.
        assert_eq!(c.omitted(), 14);
        assert_eq!(c.render(), "123\n... 14 bytes omitted ...\nhxy");
    }
}
