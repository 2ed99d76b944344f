//! A running tool's output as it is produced: the engine hands the call a [`ToolOutputSink`] and the
//! command's pumps forward what they read through a [`LiveOutput`] (whole UTF-8 characters only,
//! bounded per stream so a chatty command cannot flood the front ends; the call's final result keeps
//! its own head and tail).

use std::sync::Arc;

use tunacode_protocol::OutputStream;

/// How much of one stream is forwarded live; past it the rest shows only in the final result.
pub(crate) const LIVE_LIMIT: usize = 256 * 1024;

/// What a sink calls with each piece of output.
type Forward = dyn Fn(OutputStream, &str) + Send + Sync;

/// Receives a running tool's output (the engine turns it into `AgentEvent::ToolOutput`).
#[derive(Clone)]
pub struct ToolOutputSink(Arc<Forward>);

impl ToolOutputSink {
    /// A sink calling `f` with each piece of output.
    pub fn new(f: impl Fn(OutputStream, &str) + Send + Sync + 'static) -> Self {
        ToolOutputSink(Arc::new(f))
    }

    /// Hands over one piece of output.
    pub fn send(&self, stream: OutputStream, text: &str) {
        (self.0)(stream, text);
    }
}

impl std::fmt::Debug for ToolOutputSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ToolOutputSink")
    }
}

/// One stream's forwarding: bytes in, whole characters out, up to [`LIVE_LIMIT`].
pub(crate) struct LiveOutput {
    sink: ToolOutputSink,
    stream: OutputStream,
    carry: Vec<u8>,
    sent: usize,
}

impl LiveOutput {
    /// Forwarding of `stream` to `sink`.
    pub(crate) fn new(sink: ToolOutputSink, stream: OutputStream) -> Self {
        LiveOutput {
            sink,
            stream,
            carry: Vec::new(),
            sent: 0,
        }
    }

    /// Forwards what `bytes` completes (a character cut at the end waits for the next read).
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        if self.sent >= LIVE_LIMIT {
            return;
        }
        self.carry.extend_from_slice(bytes);
        let whole = match std::str::from_utf8(&self.carry) {
            Ok(_) => self.carry.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            // Not UTF-8 at all: shown as it would be in the result.
            Err(_) => self.carry.len(),
        };
        if whole == 0 {
            return;
        }
        let take = whole.min(LIVE_LIMIT - self.sent);
        let text = String::from_utf8_lossy(&self.carry[..take]).into_owned();
        self.carry.drain(..whole);
        self.sent += take;
        self.sink.send(self.stream, &text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    fn collecting() -> (ToolOutputSink, Arc<Mutex<Vec<String>>>) {
        let got = Arc::new(Mutex::new(Vec::new()));
        let into = got.clone();
        let sink = ToolOutputSink::new(move |_, text| into.lock().unwrap().push(text.to_string()));
        (sink, got)
    }

    #[test]
    fn whole_characters_only_and_bounded() {
        let (sink, got) = collecting();
        let mut live = LiveOutput::new(sink, OutputStream::Stdout);
        let e_acute = "é".as_bytes();
        live.push(&[b'a', e_acute[0]]);
        live.push(&[e_acute[1], b'\n']);
        assert_eq!(
            *got.lock().unwrap(),
            vec!["a".to_string(), "é\n".to_string()]
        );
        live.push(&vec![b'x'; LIVE_LIMIT]);
        live.push(b"more");
        let total: usize = got.lock().unwrap().iter().map(String::len).sum();
        assert_eq!(total, LIVE_LIMIT, "nothing past the limit");
    }
}
