//! [`HunkReview`]: stepping through an edit's hunks inside its approval dialog. `y` accepts a hunk,
//! `n` rejects it (each moves to the next), `e` rewrites it in `$EDITOR`, ←/→ move; once every hunk
//! is decided Enter writes the accepted ones (asking first for a note when one was rejected). Esc
//! goes back to the dialog's choices.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::Line;
use tunacode_protocol::{DiffHunk, EditedHunk, HunkSelection, diff_hunks, edited_hunk_text};

use super::frame::{LineEdit, edit_line, field_line};
use crate::render::render_diff;
use crate::theme::Theme;

/// What the user decided of one hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Verdict {
    Undecided,
    Accept,
    Reject,
    /// Rewritten in the editor: the new side the user wants.
    Edited(String),
}

/// What a key did to the review.
#[derive(Debug, PartialEq)]
pub(super) enum ReviewOutcome {
    /// Still reviewing.
    Open,
    /// Back to the dialog's choices.
    Back,
    /// Done: write these hunks.
    Done(HunkSelection),
    /// Rewrite this text (the hunk, as a diff) in the user's editor.
    Edit(String),
}

/// The review of an edit's hunks.
#[derive(Debug)]
pub(super) struct HunkReview {
    hunks: Vec<DiffHunk>,
    verdicts: Vec<Verdict>,
    at: usize,
    /// The note being typed after the last hunk, when one was rejected.
    note: Option<String>,
    /// What went wrong last (an edit that changed the hunk's old lines).
    problem: Option<String>,
}

impl HunkReview {
    /// The review of `preview`'s hunks; `None` when it has none.
    pub(super) fn new(preview: &str) -> Option<Self> {
        let hunks = diff_hunks(preview);
        (!hunks.is_empty()).then(|| HunkReview {
            verdicts: vec![Verdict::Undecided; hunks.len()],
            hunks,
            at: 0,
            note: None,
            problem: None,
        })
    }

    /// Handles a key.
    pub(super) fn handle_key(&mut self, key: KeyEvent) -> ReviewOutcome {
        if let Some(text) = &mut self.note {
            return match edit_line(text, key) {
                LineEdit::Submit => ReviewOutcome::Done(self.selection()),
                LineEdit::Cancel => {
                    self.note = None;
                    ReviewOutcome::Open
                }
                LineEdit::Editing => ReviewOutcome::Open,
            };
        }
        match key.code {
            KeyCode::Char('y' | 'Y') => self.decide(Verdict::Accept),
            KeyCode::Char('n' | 'N') => self.decide(Verdict::Reject),
            KeyCode::Char('e' | 'E') => {
                return ReviewOutcome::Edit(self.hunks[self.at].as_diff());
            }
            KeyCode::Left | KeyCode::Char('h' | 'k') | KeyCode::Up => {
                self.at = self.at.saturating_sub(1);
            }
            KeyCode::Right | KeyCode::Char('l' | 'j') | KeyCode::Down => {
                self.at = (self.at + 1).min(self.hunks.len() - 1);
            }
            KeyCode::Enter if self.all_decided() => return self.finish(),
            KeyCode::Esc => return ReviewOutcome::Back,
            _ => {}
        }
        ReviewOutcome::Open
    }

    /// The user's rewrite of the current hunk came back from the editor (`None`: left unchanged).
    pub(super) fn take_edit(&mut self, edited: Option<String>) {
        let Some(edited) = edited else {
            return;
        };
        match edited_hunk_text(&self.hunks[self.at], &edited) {
            Ok(text) => {
                self.problem = None;
                self.decide(Verdict::Edited(text));
            }
            Err(why) => self.problem = Some(format!("The edit was not taken: {why}.")),
        }
    }

    fn decide(&mut self, verdict: Verdict) {
        self.verdicts[self.at] = verdict;
        if let Some(next) = (self.at + 1..self.hunks.len())
            .chain(0..self.at)
            .find(|&i| self.verdicts[i] == Verdict::Undecided)
        {
            self.at = next;
        }
    }

    fn all_decided(&self) -> bool {
        !self.verdicts.contains(&Verdict::Undecided)
    }

    /// Done: the note is asked for first when a hunk was rejected (the model learns why).
    fn finish(&mut self) -> ReviewOutcome {
        if self.verdicts.contains(&Verdict::Reject) {
            self.note = Some(String::new());
            return ReviewOutcome::Open;
        }
        ReviewOutcome::Done(self.selection())
    }

    fn selection(&self) -> HunkSelection {
        let mut selection = HunkSelection {
            note: self
                .note
                .as_deref()
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(str::to_string),
            ..HunkSelection::default()
        };
        for (index, verdict) in self.verdicts.iter().enumerate() {
            match verdict {
                Verdict::Accept => selection.accepted.push(index),
                Verdict::Edited(text) => selection.edited.push(EditedHunk {
                    index,
                    text: text.clone(),
                }),
                Verdict::Reject | Verdict::Undecided => {}
            }
        }
        selection
    }

    /// The review's lines: where it is, what was decided, and the current hunk.
    pub(super) fn lines(&self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let hunk = &self.hunks[self.at];
        let mark = match &self.verdicts[self.at] {
            Verdict::Undecided => "undecided",
            Verdict::Accept => "accepted",
            Verdict::Reject => "rejected",
            Verdict::Edited(_) => "rewritten",
        };
        let mut lines = vec![
            Line::styled(
                format!(
                    "Hunk {} of {} · {} · {mark}",
                    self.at + 1,
                    self.hunks.len(),
                    hunk.file
                ),
                theme.heading,
            ),
            Line::styled(self.tally(), theme.muted),
        ];
        if let Some(problem) = &self.problem {
            lines.push(Line::styled(problem.clone(), theme.error));
        }
        lines.push(Line::default());
        lines.extend(render_diff(&hunk.as_diff(), theme, width.saturating_sub(4)));
        lines
    }

    /// The keys, and the note field once asked.
    pub(super) fn footer(&self, theme: &Theme) -> Vec<Line<'static>> {
        if let Some(text) = &self.note {
            return vec![field_line(
                "Why were hunks rejected? (Enter writes the rest, Esc back): ",
                text,
                theme,
            )];
        }
        let done = if self.all_decided() {
            "Enter write the accepted hunks · "
        } else {
            ""
        };
        vec![Line::styled(
            format!(" {done}y accept · n reject · e edit in $EDITOR · ←/→ move · Esc back"),
            theme.muted,
        )]
    }

    fn tally(&self) -> String {
        let count = |f: fn(&Verdict) -> bool| self.verdicts.iter().filter(|v| f(v)).count();
        format!(
            "accepted {} · rejected {} · rewritten {} · undecided {}",
            count(|v| *v == Verdict::Accept),
            count(|v| *v == Verdict::Reject),
            count(|v| matches!(v, Verdict::Edited(_))),
            count(|v| *v == Verdict::Undecided),
        )
    }
}
