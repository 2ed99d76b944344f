//! The completion marker: a line starting with `TUNACODE DONE:` (or the older `TUNACODE_TASK_COMPLETE`)
//! ends the request. [`MarkerFilter`] removes it from streamed text without ever showing part of it;
//! [`strip_completion_marker`] does the same for a whole text.

/// The marker the model is told to use.
pub const COMPLETION_MARKER: &str = "TUNACODE DONE:";
const MARKERS: [&str; 2] = [COMPLETION_MARKER, "TUNACODE_TASK_COMPLETE"];

/// Streams text through, holding back only the start of a line that may still become a marker.
#[derive(Debug, Default)]
pub struct MarkerFilter {
    /// Start of the current line, while it may still be a marker.
    pending: String,
    /// The current line is known not to start with a marker.
    line_decided: bool,
    /// Drop one space right after a removed marker.
    skip_space: bool,
    found: bool,
}

impl MarkerFilter {
    /// A filter at the start of a text.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether a marker was seen.
    pub fn found(&self) -> bool {
        self.found
    }

    /// Feeds a delta; returns what can be shown now.
    pub fn push(&mut self, delta: &str) -> String {
        let mut out = String::new();
        for c in delta.chars() {
            if self.skip_space {
                self.skip_space = false;
                if c == ' ' {
                    continue;
                }
            }
            if self.line_decided {
                out.push(c);
                if c == '\n' {
                    self.line_decided = false;
                }
                continue;
            }
            self.pending.push(c);
            if c == '\n' {
                out.push_str(&self.pending);
                self.pending.clear();
                continue;
            }
            let body = self.pending.trim_start_matches([' ', '\t']);
            if MARKERS.iter().any(|m| body.starts_with(m)) {
                self.found = true;
                self.pending.clear();
                self.line_decided = true;
                self.skip_space = true;
            } else if !MARKERS.iter().any(|m| m.starts_with(body)) {
                out.push_str(&self.pending);
                self.pending.clear();
                self.line_decided = true;
            }
        }
        out
    }

    /// Ends the text; returns whatever was held back.
    pub fn finish(&mut self) -> String {
        std::mem::take(&mut self.pending)
    }
}

/// Removes completion markers from a whole text. Returns whether one was found, and the text.
pub fn strip_completion_marker(text: &str) -> (bool, String) {
    let mut filter = MarkerFilter::new();
    let mut out = filter.push(text);
    out.push_str(&filter.finish());
    (filter.found(), out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_the_marker_at_the_start_and_at_a_line_start() {
        assert_eq!(
            strip_completion_marker("TUNACODE DONE: All set."),
            (true, "All set.".into())
        );
        assert_eq!(
            strip_completion_marker("Wrote it.\n  TUNACODE DONE: summary"),
            (true, "Wrote it.\nsummary".into())
        );
        assert_eq!(
            strip_completion_marker("TUNACODE_TASK_COMPLETE\nok"),
            (true, "\nok".into())
        );
        assert_eq!(
            strip_completion_marker("say TUNACODE DONE: later"),
            (false, "say TUNACODE DONE: later".into())
        );
        assert_eq!(
            strip_completion_marker("TUNA fish"),
            (false, "TUNA fish".into())
        );
        assert_eq!(
            strip_completion_marker("TUNACODE"),
            (false, "TUNACODE".into())
        );
    }

    #[test]
    fn streaming_never_shows_part_of_the_marker() {
        let text = "Done!\nTUNACODE DONE: Created hello.txt";
        for size in 1..6 {
            let mut f = MarkerFilter::new();
            let mut shown = String::new();
            let chars: Vec<char> = text.chars().collect();
            for chunk in chars.chunks(size) {
                let out = f.push(&chunk.iter().collect::<String>());
                assert!(!out.contains("TUNA"), "chunk size {size} leaked: {out:?}");
                shown.push_str(&out);
            }
            shown.push_str(&f.finish());
            assert!(f.found());
            assert_eq!(shown, "Done!\nCreated hello.txt");
        }
    }

    #[test]
    fn ordinary_text_streams_without_delay() {
        let mut f = MarkerFilter::new();
        assert_eq!(f.push("Hello"), "Hello");
        assert_eq!(f.push(" world\nT"), " world\n");
        assert_eq!(f.push("he end"), "The end");
    }
}
