//! [`LoopWatch`]: tells when a model repeats itself within one request (issue "proof of done", point
//! 3). Three signs, each against `settings.loop_detection`:
//!
//! - the same tool call (tool, arguments with key order ignored, and the same result) comes back
//!   `repeated_calls` times among the latest `window` calls, with no new change to the workspace in
//!   between: running the tests again after a real edit is no loop, whatever the tests print;
//! - the same error from one tool comes back `repeated_errors` times in the window, whatever the
//!   arguments (the arguments' own words are taken out of the error first, so "no such file: a.rs" and
//!   "no such file: b.rs" are one error);
//! - the same response text comes back `repeated_text` times, or one line fills a response
//!   (`repeated_text` × 4 times over), texts of 40 characters or more, the latest `window` of them.
//!
//! Refusals (the user's, a rule's, plan mode's, a hook's) are not errors of the model's.
//!
//! Pure bookkeeping: the request's steps feed it and decide what a sign leads to.

use std::collections::VecDeque;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::Value;
use tunacode_store::LoopDetectionConfig;

/// The shortest text (whitespace joined) that counts as repeated.
const MIN_TEXT: usize = 40;

/// What the model repeats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoopSign {
    /// The same call with the same result.
    RepeatedCall {
        /// The tool.
        tool: String,
        /// How often it came back in the window.
        times: u32,
    },
    /// The same error from one tool, with varied arguments.
    RepeatedError {
        /// The tool.
        tool: String,
        /// The error's first line.
        error: String,
        /// How often it came back in the window.
        times: u32,
    },
    /// The same text, again and again.
    RepeatedText {
        /// The start of the repeated text.
        text: String,
        /// How often it came back.
        times: u32,
    },
}

impl LoopSign {
    /// What the model is told, and the user shown: what repeats.
    pub fn describe(&self) -> String {
        match self {
            LoopSign::RepeatedCall { tool, times } => format!(
                "the same `{tool}` call with the same arguments got the same result {times} times"
            ),
            LoopSign::RepeatedError { tool, error, times } => {
                format!("`{tool}` failed with the same error {times} times: {error}")
            }
            LoopSign::RepeatedText { text, times } => {
                format!("the same text came back {times} times: \"{text}\"")
            }
        }
    }
}

/// One tool call as the watch compares it.
#[derive(Debug, Clone)]
pub struct SeenCall<'a> {
    /// The tool.
    pub tool: &'a str,
    /// Its arguments.
    pub args: &'a Value,
    /// Whether it changes the workspace (a write or a command).
    pub changes: bool,
    /// Whether it failed.
    pub failed: bool,
    /// Its result, or its error.
    pub result: &'a str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CallKey {
    call: u64,
    epoch: u64,
}

/// The request's recent calls and texts.
#[derive(Debug)]
pub struct LoopWatch {
    config: LoopDetectionConfig,
    calls: VecDeque<CallKey>,
    errors: VecDeque<(u64, u64)>,
    texts: VecDeque<u64>,
    /// Bumped by each change to the workspace not seen in the window: a repeat after it is new work.
    epoch: u64,
}

impl LoopWatch {
    /// A watch with `config`'s thresholds.
    pub fn new(config: LoopDetectionConfig) -> Self {
        LoopWatch {
            config,
            calls: VecDeque::new(),
            errors: VecDeque::new(),
            texts: VecDeque::new(),
            epoch: 0,
        }
    }

    /// Forgets what was seen (the user chose to go on after a loop).
    pub fn clear(&mut self) {
        *self = LoopWatch::new(self.config);
    }

    /// Notes one finished call; the sign, when it makes a loop.
    pub fn call(&mut self, call: &SeenCall) -> Option<LoopSign> {
        if !self.config.enabled {
            return None;
        }
        let digest = hash(&(call.tool, canonical(call.args), call.failed, call.result));
        let seen_before = self.calls.iter().any(|k| k.call == digest);
        if call.changes && !call.failed && !seen_before {
            self.epoch += 1;
        }
        let key = CallKey {
            call: digest,
            epoch: self.epoch,
        };
        let window = self.window();
        push_bounded(&mut self.calls, key, window);
        let error = (call.failed && !refusal(call.result))
            .then(|| self.note_error(call))
            .flatten();
        let times = count(self.calls.iter().filter(|k| **k == key));
        if times >= self.config.repeated_calls {
            return Some(LoopSign::RepeatedCall {
                tool: call.tool.to_string(),
                times,
            });
        }
        error
    }

    /// Notes one response's text; the sign, when it makes a loop.
    pub fn text(&mut self, text: &str) -> Option<LoopSign> {
        if !self.config.enabled {
            return None;
        }
        let normal = text.split_whitespace().collect::<Vec<_>>().join(" ");
        // A short preamble ("Let me run the tests again.") is how models talk, not a loop.
        if normal.len() < MIN_TEXT {
            return None;
        }
        if let Some(sign) = self.repeated_line(text) {
            return Some(sign);
        }
        let digest = hash(&normal);
        let window = self.window();
        push_bounded(&mut self.texts, digest, window);
        let times = count(self.texts.iter().filter(|d| **d == digest));
        (times >= self.config.repeated_text).then(|| LoopSign::RepeatedText {
            text: excerpt(&normal),
            times,
        })
    }

    fn note_error(&mut self, call: &SeenCall) -> Option<LoopSign> {
        let tool = hash(&call.tool);
        let error = hash(&error_shape(call.result, call.args));
        let window = self.window();
        push_bounded(&mut self.errors, (tool, error), window);
        let times = count(self.errors.iter().filter(|e| **e == (tool, error)));
        (times >= self.config.repeated_errors).then(|| LoopSign::RepeatedError {
            tool: call.tool.to_string(),
            error: excerpt(call.result.lines().next().unwrap_or_default()),
            times,
        })
    }

    /// One line of 20 characters or more that fills a response.
    fn repeated_line(&self, text: &str) -> Option<LoopSign> {
        let mut lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| l.len() >= MIN_TEXT)
            .collect();
        lines.sort_unstable();
        let limit = self.config.repeated_text.saturating_mul(4).max(2);
        lines
            .chunk_by(|a, b| a == b)
            .find(|run| count(run.iter()) >= limit)
            .map(|run| LoopSign::RepeatedText {
                text: excerpt(run[0]),
                times: count(run.iter()),
            })
    }

    fn window(&self) -> usize {
        usize::try_from(self.config.window.max(1)).unwrap_or(usize::MAX)
    }
}

/// A call the user, a rule, plan mode or a hook refused: no error of the model's to repeat (the
/// note would push it to route around the refusal).
fn refusal(result: &str) -> bool {
    [
        "The user did not allow this call",
        "Refused",
        "Blocked by a PreToolUse hook",
        crate::runtime::HEADLESS_DENIAL,
    ]
    .iter()
    .any(|prefix| result.starts_with(prefix))
}

fn push_bounded<T>(queue: &mut VecDeque<T>, item: T, cap: usize) {
    queue.push_back(item);
    while queue.len() > cap {
        queue.pop_front();
    }
}

fn count<T>(items: impl Iterator<Item = T>) -> u32 {
    u32::try_from(items.count()).unwrap_or(u32::MAX)
}

fn hash(value: &impl Hash) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// The arguments as text with every object's keys in order, so key order does not matter.
fn canonical(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let inner: Vec<String> = entries
                .into_iter()
                .map(|(k, v)| format!("{k:?}:{}", canonical(v)))
                .collect();
            format!("{{{}}}", inner.join(","))
        }
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(canonical).collect();
            format!("[{}]", inner.join(","))
        }
        other => other.to_string(),
    }
}

/// An error with the arguments' own words and every number taken out: what stays is its shape.
fn error_shape(error: &str, args: &Value) -> String {
    let mut shape = error.to_string();
    let mut words = Vec::new();
    string_values(args, &mut words);
    words.sort_by_key(|w| std::cmp::Reverse(w.len()));
    for word in words.into_iter().filter(|w| w.len() >= 2) {
        shape = shape.replace(word, "…");
    }
    shape
        .chars()
        .map(|c| if c.is_ascii_digit() { '0' } else { c })
        .collect()
}

fn string_values<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| string_values(v, out)),
        Value::Object(map) => map.values().for_each(|v| string_values(v, out)),
        _ => {}
    }
}

/// The start of a text, for a message.
fn excerpt(text: &str) -> String {
    let mut cut: String = text.chars().take(80).collect();
    if cut.len() < text.len() {
        cut.push('…');
    }
    cut
}

#[cfg(test)]
#[path = "loop_watch_tests.rs"]
mod tests;
