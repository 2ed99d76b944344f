//! [`ApprovalDialog`]: may a write or command run? Shows the diff or the command line and why the
//! runtime asks; Yes, Always (what the runtime's session scope covers, e.g. `cargo test …` commands),
//! or No with an optional note to the model.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use tunacode_core::runtime::ApprovalQuestion;
use tunacode_core::{Answer, ApprovalAnswer};
use tunacode_protocol::ToolKind;

use super::frame::{
    LineEdit, Scroll, draw_popup, edit_line, field_line, option_lines, popup_width,
};
use super::hunk_review::{HunkReview, ReviewOutcome};
use super::question_dialog::{DialogOutcome, QuestionDialog};
use crate::render::render_diff;
use crate::theme::Theme;

/// An approval question on screen.
#[derive(Debug)]
pub struct ApprovalDialog {
    id: String,
    pub(super) question: ApprovalQuestion,
    /// 0 yes, 1 always, 2 no.
    selected: usize,
    /// The note being typed after choosing No.
    note: Option<String>,
    /// Stepping through the edit's hunks.
    review: Option<HunkReview>,
    scroll: Scroll,
}

/// What the user can answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Choice {
    Once,
    Session,
    Review,
    Deny,
}

impl ApprovalDialog {
    /// A dialog for question `id`.
    pub fn new(id: String, question: ApprovalQuestion) -> Self {
        ApprovalDialog {
            id,
            question,
            selected: 0,
            note: None,
            review: None,
            scroll: Scroll::default(),
        }
    }

    /// The choices offered: "Always" only where the question allows it for the session.
    fn choices(&self) -> Vec<Choice> {
        let mut choices = vec![Choice::Once];
        if !self.question.once_only {
            choices.push(Choice::Session);
        }
        // An edit whose tool can write part of it: its hunks one by one.
        if self.question.hunks > 0 {
            choices.push(Choice::Review);
        }
        choices.push(Choice::Deny);
        choices
    }

    pub(super) fn options(&self) -> Vec<String> {
        self.choices()
            .iter()
            .map(|c| match c {
                Choice::Once if self.question.once_only => "Yes, this once".to_string(),
                Choice::Once => "Yes".to_string(),
                Choice::Session => format!("Always: {} this session", self.question.scope),
                Choice::Review => match self.question.hunks {
                    1 => "Review the hunk (accept, reject or edit it)".to_string(),
                    n => format!("Review hunk by hunk ({n} hunks)"),
                },
                Choice::Deny => "No".to_string(),
            })
            .collect()
    }

    fn keys(&self) -> Vec<&'static str> {
        self.choices()
            .iter()
            .map(|c| match c {
                Choice::Once => "y",
                Choice::Session => "a",
                Choice::Review => "r",
                Choice::Deny => "n",
            })
            .collect()
    }

    fn on_note_key(&mut self, key: KeyEvent) -> DialogOutcome {
        let Some(text) = &mut self.note else {
            return DialogOutcome::Open;
        };
        match edit_line(text, key) {
            LineEdit::Submit => {
                let note = Some(text.trim().to_string()).filter(|n| !n.is_empty());
                DialogOutcome::Answered(Answer::Approval(ApprovalAnswer::Deny { note }))
            }
            LineEdit::Cancel => {
                self.note = None;
                DialogOutcome::Open
            }
            LineEdit::Editing => DialogOutcome::Open,
        }
    }

    fn choose(&mut self, choice: Choice) -> DialogOutcome {
        match choice {
            Choice::Once => DialogOutcome::Answered(Answer::Approval(ApprovalAnswer::AllowOnce)),
            Choice::Session => {
                DialogOutcome::Answered(Answer::Approval(ApprovalAnswer::AllowSession))
            }
            Choice::Review => {
                self.review = self.question.preview.as_deref().and_then(HunkReview::new);
                DialogOutcome::Open
            }
            Choice::Deny => {
                self.selected = self.choices().len() - 1;
                self.note = Some(String::new());
                DialogOutcome::Open
            }
        }
    }

    fn on_review_key(&mut self, key: KeyEvent) -> DialogOutcome {
        let Some(review) = &mut self.review else {
            return DialogOutcome::Open;
        };
        match review.handle_key(key) {
            ReviewOutcome::Open => DialogOutcome::Open,
            ReviewOutcome::Back => {
                self.review = None;
                DialogOutcome::Open
            }
            ReviewOutcome::Done(selection) => {
                DialogOutcome::Answered(Answer::Approval(ApprovalAnswer::AllowHunks(selection)))
            }
            ReviewOutcome::Edit(text) => DialogOutcome::Edit(text),
        }
    }

    fn choose_key(&mut self, choice: Choice) -> DialogOutcome {
        if self.choices().contains(&choice) {
            self.choose(choice)
        } else {
            DialogOutcome::Open
        }
    }

    fn preview_lines(&self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        match &self.question.preview {
            Some(p) if p.starts_with("---") || p.contains("\n@@") => {
                render_diff(p, theme, width.saturating_sub(4))
            }
            // An MCP call's preview is the server, the tool and the arguments, not a command line.
            Some(p)
                if self
                    .question
                    .tool_name
                    .starts_with(tunacode_protocol::MCP_TOOL_PREFIX) =>
            {
                p.lines()
                    .map(|l| Line::styled(format!("  {l}"), theme.accent))
                    .collect()
            }
            Some(p) => p
                .lines()
                .map(|l| Line::styled(format!("  $ {l}"), theme.accent))
                .collect(),
            None => vec![Line::styled(
                format!("  {}", self.question.args),
                theme.muted,
            )],
        }
    }
}

impl QuestionDialog for ApprovalDialog {
    fn question_id(&self) -> &str {
        &self.id
    }

    fn handle_key(&mut self, key: KeyEvent) -> DialogOutcome {
        if self.review.is_some() {
            return self.on_review_key(key);
        }
        if self.note.is_some() {
            return self.on_note_key(key);
        }
        match key.code {
            KeyCode::Char('y' | 'Y') => self.choose_key(Choice::Once),
            KeyCode::Char('a' | 'A') => self.choose_key(Choice::Session),
            KeyCode::Char('n' | 'N') => self.choose_key(Choice::Deny),
            KeyCode::Char('r' | 'R') => self.choose_key(Choice::Review),
            KeyCode::Enter => {
                let choices = self.choices();
                let choice = choices[self.selected.min(choices.len() - 1)];
                self.choose(choice)
            }
            KeyCode::Left | KeyCode::Up | KeyCode::BackTab => {
                let n = self.choices().len();
                self.selected = (self.selected + n - 1) % n;
                DialogOutcome::Open
            }
            KeyCode::Right | KeyCode::Down | KeyCode::Tab => {
                self.selected = (self.selected + 1) % self.choices().len();
                DialogOutcome::Open
            }
            KeyCode::PageDown => {
                self.scroll.down(10);
                DialogOutcome::Open
            }
            KeyCode::PageUp => {
                self.scroll.up(10);
                DialogOutcome::Open
            }
            // Esc stops the request, as everywhere else: the call is declined and nothing goes on.
            KeyCode::Esc => DialogOutcome::Stop,
            _ => DialogOutcome::Open,
        }
    }

    fn render(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let q = &self.question;
        let verb = if q.kind == ToolKind::Execute {
            "run"
        } else {
            "change files with"
        };
        let who = match &q.subagent {
            Some(label) => format!("The sub-agent {label}"),
            None => "The agent".to_string(),
        };
        let mut lines = vec![
            Line::styled(
                format!("{who} wants to {verb} {}:", q.tool_name),
                theme.text,
            ),
            Line::styled(format!("(asking because {})", q.reason), theme.muted),
            Line::default(),
        ];
        let width = popup_width(area);
        if let Some(review) = &self.review {
            lines.extend(review.lines(width, theme));
            let title = format!(" Review {}'s edit ", q.tool_name);
            let footer = review.footer(theme);
            draw_popup(frame, area, &title, lines, footer, &self.scroll, theme);
            return;
        }
        lines.extend(self.preview_lines(width, theme));
        lines.push(Line::default());
        let mut choices = option_lines(
            &self.options(),
            self.selected,
            theme,
            &self.keys(),
            width.saturating_sub(2),
        );
        if let Some(text) = &self.note {
            choices.push(field_line(
                "Note to the agent (Enter sends, Esc back): ",
                text,
                theme,
            ));
        }
        let title = format!(" Allow {}? ", q.tool_name);
        draw_popup(frame, area, &title, lines, choices, &self.scroll, theme);
    }

    fn dismissed(&self) -> Answer {
        Answer::Approval(ApprovalAnswer::Deny { note: None })
    }

    fn take_edit(&mut self, edited: Option<String>) {
        if let Some(review) = &mut self.review {
            review.take_edit(edited);
        }
    }
}
