//! Replaying a journal onto its checkpoint when not every line can be trusted, losing nothing
//! silently: every line that is not replayed is returned, to be kept aside beside the session.
//!
//! Each journal line names the index it applies to (`at`), so a line after an unreadable one can be
//! replayed exactly when it does not depend on what the unreadable line held:
//!
//! - an unreadable line whose position can still be read (`{"at":N,"…` survives) is emulated: a lost
//!   message at `N` leaves a hole at `N` (the history is cut there); a lost tool result at `N` only
//!   lacks its part (the call then gets the usual answer of a call without a result). A later line
//!   that fills the hole (a message at `N`) or rewrites from before it replays; one that needs the
//!   lost message (a result added to it, anything after it) is kept aside;
//! - an unreadable line whose position cannot be read could have changed any message, so every later
//!   line is kept aside;
//! - a readable line that does not fit the history (past its end, a result for a message that is not a
//!   request) is kept aside too.

use tunacode_protocol::Message;

use crate::journal::{Header, JournalBase, JournalEntry, JournalRecord};

/// Why a journal was not replayed in full.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JournalProblem {
    /// Its first line does not name the save it follows: missing, unreadable or edited.
    NoBase,
    /// It follows another save of the session than the file on disk (a crash between a save and the
    /// journal's removal leaves one; its lines are most likely in the file already).
    OtherBase(JournalBase),
    /// Some lines could not be read, or did not fit the history rebuilt so far.
    BadLines,
}

impl std::fmt::Display for JournalProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JournalProblem::NoBase => {
                f.write_str("its first line does not name the save it follows (missing or edited)")
            }
            JournalProblem::OtherBase(base) => write!(
                f,
                "it follows another save of the session ({} messages, saved {}), not the file on disk",
                base.messages, base.modified
            ),
            JournalProblem::BadLines => {
                f.write_str("some lines are unreadable or do not fit the history before them")
            }
        }
    }
}

/// What replaying a journal did.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Replay {
    /// Lines replayed onto the history.
    pub applied: usize,
    /// The first line when it names this checkpoint (written first in a file of kept lines).
    pub header: Option<Vec<u8>>,
    /// The lines not replayed, as they were (without their newline), in order.
    pub kept: Vec<Vec<u8>>,
    /// Why some lines were not replayed (`None`: all were).
    pub problem: Option<JournalProblem>,
}

/// Replays the journal `text` onto `messages`, the checkpoint `base` holds. Never fails: what cannot
/// be replayed is in [`Replay::kept`].
pub fn replay_journal(text: &[u8], base: &JournalBase, messages: &mut Vec<Message>) -> Replay {
    let mut lines = text
        .split(|b| *b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace));
    let Some(first) = lines.next() else {
        return Replay::default();
    };
    let problem = match serde_json::from_slice::<Header>(first) {
        Ok(h) if h.base == *base => None,
        Ok(h) => Some(JournalProblem::OtherBase(h.base)),
        Err(_) => Some(JournalProblem::NoBase),
    };
    if let Some(problem) = problem {
        let mut kept: Vec<Vec<u8>> = lines.map(<[u8]>::to_vec).collect();
        if problem == JournalProblem::NoBase {
            kept.insert(0, first.to_vec());
        }
        if kept.is_empty() {
            // The first line of an older save alone: nothing to replay or keep.
            return Replay::default();
        }
        return Replay {
            applied: 0,
            header: None,
            kept,
            problem: Some(problem),
        };
    }
    let mut state = State {
        messages,
        hole: false,
        blind: false,
    };
    let mut replay = Replay {
        header: Some(first.to_vec()),
        ..Replay::default()
    };
    for line in lines {
        let applied = match serde_json::from_slice::<JournalEntry>(line) {
            Ok(entry) => state.apply(entry),
            Err(_) => {
                state.lose(damaged_position(line));
                false
            }
        };
        if applied {
            replay.applied += 1;
        } else {
            replay.kept.push(line.to_vec());
        }
    }
    if !replay.kept.is_empty() {
        replay.problem = Some(JournalProblem::BadLines);
    }
    replay
}

/// The history being rebuilt, and what lost lines left unknown.
struct State<'a> {
    messages: &'a mut Vec<Message>,
    /// The message at `messages.len()` was lost: only a line that replaces it may follow.
    hole: bool,
    /// A line of unknown position was lost: nothing after it can be trusted.
    blind: bool,
}

impl State<'_> {
    /// Applies one readable line if it fits; whether it did.
    fn apply(&mut self, entry: JournalEntry) -> bool {
        let len = self.messages.len();
        let at = entry.at;
        if self.blind || at > len {
            return false;
        }
        match entry.record {
            JournalRecord::Message(message) => {
                self.messages.truncate(at);
                self.messages.push(message);
            }
            JournalRecord::ToolResult(part) => {
                if self.hole && at == len {
                    // The result belongs to the message that was lost.
                    return false;
                }
                match self.messages.get(at) {
                    Some(m) if !m.is_request() => return false,
                    _ => {}
                }
                self.messages.truncate(at + 1);
                match self.messages.get_mut(at) {
                    Some(m) => m.parts.push(part),
                    None => self.messages.push(Message::request(vec![part])),
                }
            }
        }
        self.hole = false;
        true
    }

    /// An unreadable line: what it would have done to the history's shape is done, so the lines
    /// after it that do not depend on its content still replay. A lost line is never allowed to
    /// remove messages the history already has (its position may be damaged too): one that would
    /// makes every later line untrusted instead.
    fn lose(&mut self, position: Option<(usize, bool)>) {
        let len = self.messages.len();
        match position {
            _ if self.blind => {}
            None => self.blind = true,
            // It would not have applied: nothing changes.
            Some((at, _)) if at > len => {}
            Some((at, true)) => {
                if self.hole && at == len {
                    // A result for the message that was lost.
                    return;
                }
                match self.messages.get(at) {
                    Some(m) if !m.is_request() => {}
                    Some(_) if at + 1 < len => self.blind = true,
                    Some(_) => {
                        // Adding to the request at the end drops a lost message after it.
                        self.hole = false;
                    }
                    None => {
                        // The request it would have started, without the lost result; history
                        // preparation drops it if nothing else fills it.
                        self.messages.push(Message::request(Vec::new()));
                        self.hole = false;
                    }
                }
            }
            Some((at, false)) if at < len => self.blind = true,
            Some(_) => self.hole = true,
        }
    }
}

/// The position an unreadable line applied to, and whether it was a tool result, when its start
/// survived (lines are written as `{"at":N,"message":…}` or `{"at":N,"tool_result":…}`).
fn damaged_position(line: &[u8]) -> Option<(usize, bool)> {
    let rest = line.strip_prefix(br#"{"at":"#)?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 12 {
        return None;
    }
    let at = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
    let key = rest[digits..].strip_prefix(br#",""#)?;
    if key.starts_with(br#"tool_result""#) {
        Some((at, true))
    } else if key.starts_with(br#"message""#) {
        Some((at, false))
    } else {
        None
    }
}

#[cfg(test)]
#[path = "journal_replay_tests.rs"]
mod tests;
