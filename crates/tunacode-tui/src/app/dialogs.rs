//! Dialogs for the engine's questions: approval of a write or command (showing the diff or the command;
//! Yes, Always for this tool, No with an optional note to the model), the choice at the iteration limit,
//! and review of a presented plan (approve, or reject with feedback). Each answers through the oneshot
//! channel that came with the question.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use tokio::sync::oneshot;
use tunacode_core::{
    ApprovalDecision, ApprovalRequest, LimitDecision, PlanDecision, ProgressReport,
};
use tunacode_tools::ToolKind;

use crate::app::picker::centered;
use crate::render::{render_diff, render_markdown};
use crate::theme::Theme;

/// What a key did to a dialog.
#[derive(Debug, PartialEq, Eq)]
pub enum DialogOutcome {
    /// Still open.
    Open,
    /// Answered and closed.
    Closed,
    /// Approved "always" for this tool (the caller records it).
    AlwaysAllow(String),
}

/// A question on screen.
#[derive(Debug)]
pub enum Dialog {
    /// May a write or command run?
    Approval {
        /// The call.
        request: ApprovalRequest,
        /// The answer channel.
        reply: Option<oneshot::Sender<ApprovalDecision>>,
        /// 0 yes, 1 always, 2 no.
        selected: usize,
        /// The note being typed after choosing No.
        note: Option<String>,
        /// Preview scroll.
        scroll: u16,
    },
    /// The iteration limit was reached.
    Limit {
        /// The progress.
        report: ProgressReport,
        /// The answer channel.
        reply: Option<oneshot::Sender<LimitDecision>>,
        /// 0 continue, 1 summarize, 2 another approach, 3 stop.
        selected: usize,
    },
    /// A plan to review.
    Plan {
        /// The plan.
        plan: String,
        /// The answer channel.
        reply: Option<oneshot::Sender<PlanDecision>>,
        /// 0 approve, 1 reject.
        selected: usize,
        /// Feedback being typed after choosing reject.
        feedback: Option<String>,
        /// Plan scroll.
        scroll: u16,
    },
}

const APPROVAL_OPTIONS: [&str; 3] = ["Yes", "Always for this tool", "No"];
const LIMIT_OPTIONS: [&str; 4] = [
    "Continue (+5 iterations)",
    "Summarize and stop",
    "Try another approach",
    "Stop",
];
const PLAN_OPTIONS: [&str; 2] = ["Approve", "Reject with feedback"];

impl Dialog {
    /// Answers the question as refused/stopped (Esc while typing nothing, or the UI closing).
    pub fn cancel(&mut self) {
        match self {
            Dialog::Approval { reply, .. } => send(
                reply,
                ApprovalDecision::Deny {
                    reason: "the user declined".into(),
                },
            ),
            Dialog::Limit { reply, .. } => send(reply, LimitDecision::Stop),
            Dialog::Plan { reply, .. } => send(
                reply,
                PlanDecision::Reject {
                    feedback: "the user dismissed the plan".into(),
                },
            ),
        }
    }

    /// Handles a key.
    pub fn handle_key(&mut self, key: KeyEvent) -> DialogOutcome {
        match self {
            Dialog::Approval {
                request,
                reply,
                selected,
                note,
                scroll,
            } => {
                if let Some(text) = note {
                    return match edit_line(text, key) {
                        LineEdit::Submit => {
                            let reason = if text.trim().is_empty() {
                                "the user declined".to_string()
                            } else {
                                text.trim().to_string()
                            };
                            send(reply, ApprovalDecision::Deny { reason });
                            DialogOutcome::Closed
                        }
                        LineEdit::Cancel => {
                            *note = None;
                            DialogOutcome::Open
                        }
                        LineEdit::Editing => DialogOutcome::Open,
                    };
                }
                let choice = match key.code {
                    KeyCode::Char('y') | KeyCode::Char('Y') => Some(0),
                    KeyCode::Char('a') | KeyCode::Char('A') => Some(1),
                    KeyCode::Char('n') | KeyCode::Char('N') => Some(2),
                    KeyCode::Enter => Some(*selected),
                    KeyCode::Left | KeyCode::Up | KeyCode::BackTab => {
                        *selected = (*selected + 2) % 3;
                        None
                    }
                    KeyCode::Right | KeyCode::Down | KeyCode::Tab => {
                        *selected = (*selected + 1) % 3;
                        None
                    }
                    KeyCode::PageDown => {
                        *scroll = scroll.saturating_add(10);
                        None
                    }
                    KeyCode::PageUp => {
                        *scroll = scroll.saturating_sub(10);
                        None
                    }
                    KeyCode::Esc => {
                        send(
                            reply,
                            ApprovalDecision::Deny {
                                reason: "the user declined".into(),
                            },
                        );
                        return DialogOutcome::Closed;
                    }
                    _ => None,
                };
                match choice {
                    Some(0) => {
                        send(reply, ApprovalDecision::Approve);
                        DialogOutcome::Closed
                    }
                    Some(1) => {
                        send(reply, ApprovalDecision::Approve);
                        DialogOutcome::AlwaysAllow(request.tool_name.clone())
                    }
                    Some(_) => {
                        *selected = 2;
                        *note = Some(String::new());
                        DialogOutcome::Open
                    }
                    None => DialogOutcome::Open,
                }
            }
            Dialog::Limit {
                reply, selected, ..
            } => {
                let choice = match key.code {
                    KeyCode::Char(c @ '1'..='4') => Some(c as usize - '1' as usize),
                    KeyCode::Enter => Some(*selected),
                    KeyCode::Up => {
                        *selected = (*selected + 3) % 4;
                        None
                    }
                    KeyCode::Down | KeyCode::Tab => {
                        *selected = (*selected + 1) % 4;
                        None
                    }
                    KeyCode::Esc => Some(3),
                    _ => None,
                };
                let Some(choice) = choice else {
                    return DialogOutcome::Open;
                };
                let decision = match choice {
                    0 => LimitDecision::Continue,
                    1 => LimitDecision::Summarize,
                    2 => LimitDecision::TryAnotherApproach,
                    _ => LimitDecision::Stop,
                };
                send(reply, decision);
                DialogOutcome::Closed
            }
            Dialog::Plan {
                reply,
                selected,
                feedback,
                scroll,
                ..
            } => {
                if let Some(text) = feedback {
                    return match edit_line(text, key) {
                        LineEdit::Submit => {
                            let feedback = if text.trim().is_empty() {
                                "the user rejected the plan".to_string()
                            } else {
                                text.trim().to_string()
                            };
                            send(reply, PlanDecision::Reject { feedback });
                            DialogOutcome::Closed
                        }
                        LineEdit::Cancel => {
                            *feedback = None;
                            DialogOutcome::Open
                        }
                        LineEdit::Editing => DialogOutcome::Open,
                    };
                }
                match key.code {
                    KeyCode::Char('a') | KeyCode::Char('y') => {
                        send(reply, PlanDecision::Approve);
                        DialogOutcome::Closed
                    }
                    KeyCode::Char('r') | KeyCode::Char('n') => {
                        *selected = 1;
                        *feedback = Some(String::new());
                        DialogOutcome::Open
                    }
                    KeyCode::Enter if *selected == 0 => {
                        send(reply, PlanDecision::Approve);
                        DialogOutcome::Closed
                    }
                    KeyCode::Enter => {
                        *feedback = Some(String::new());
                        DialogOutcome::Open
                    }
                    KeyCode::Left | KeyCode::Right | KeyCode::Tab => {
                        *selected = 1 - *selected;
                        DialogOutcome::Open
                    }
                    KeyCode::Down | KeyCode::PageDown => {
                        *scroll =
                            scroll.saturating_add(if key.code == KeyCode::Down { 1 } else { 10 });
                        DialogOutcome::Open
                    }
                    KeyCode::Up | KeyCode::PageUp => {
                        *scroll =
                            scroll.saturating_sub(if key.code == KeyCode::Up { 1 } else { 10 });
                        DialogOutcome::Open
                    }
                    _ => DialogOutcome::Open,
                }
            }
        }
    }

    /// Draws the dialog over `area`.
    pub fn render(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let width = (area.width.saturating_sub(4))
            .min(110)
            .max(20.min(area.width));
        let popup = Rect {
            width,
            ..centered(area, 92, 86)
        };
        let (title, mut lines, scroll) = match self {
            Dialog::Approval {
                request,
                selected,
                note,
                scroll,
                ..
            } => {
                let verb = if request.kind == ToolKind::Execute {
                    "run"
                } else {
                    "change files with"
                };
                let mut lines = vec![
                    Line::styled(
                        format!("The agent wants to {verb} {}:", request.tool_name),
                        theme.text,
                    ),
                    Line::default(),
                ];
                match &request.preview {
                    Some(p) if p.starts_with("---") || p.contains("\n@@") => {
                        lines.extend(render_diff(p, theme, popup.width.saturating_sub(4)))
                    }
                    Some(p) => lines.extend(
                        p.lines()
                            .map(|l| Line::styled(format!("  $ {l}"), theme.accent)),
                    ),
                    None => lines.push(Line::styled(format!("  {}", request.args), theme.muted)),
                }
                lines.push(Line::default());
                lines.push(options_line(
                    &APPROVAL_OPTIONS,
                    *selected,
                    theme,
                    &["y", "a", "n"],
                ));
                if let Some(text) = note {
                    lines.push(Line::default());
                    lines.push(Line::from(vec![
                        Span::styled("Note to the agent (Enter sends, Esc back): ", theme.muted),
                        Span::styled(text.clone(), theme.text),
                        Span::styled("▏", theme.accent),
                    ]));
                }
                (format!(" Allow {}? ", request.tool_name), lines, *scroll)
            }
            Dialog::Limit {
                report, selected, ..
            } => {
                let mut lines: Vec<Line<'static>> = report
                    .summary
                    .lines()
                    .map(|l| Line::styled(l.to_string(), theme.text))
                    .collect();
                lines.push(Line::default());
                for (i, option) in LIMIT_OPTIONS.iter().enumerate() {
                    let style = if i == *selected {
                        theme.selected
                    } else {
                        theme.text
                    };
                    lines.push(Line::styled(format!(" {}. {option} ", i + 1), style));
                }
                (" Iteration limit reached ".to_string(), lines, 0)
            }
            Dialog::Plan {
                plan,
                selected,
                feedback,
                scroll,
                ..
            } => {
                let mut lines = render_markdown(plan, popup.width.saturating_sub(4), theme);
                lines.push(Line::default());
                lines.push(options_line(&PLAN_OPTIONS, *selected, theme, &["a", "r"]));
                if let Some(text) = feedback {
                    lines.push(Line::from(vec![
                        Span::styled("Feedback (Enter sends, Esc back): ", theme.muted),
                        Span::styled(text.clone(), theme.text),
                        Span::styled("▏", theme.accent),
                    ]));
                }
                (" Plan for approval ".to_string(), lines, *scroll)
            }
        };
        // As tall as the content (counting wrapped rows), at most most of the screen.
        let inner_width = popup.width.saturating_sub(2).max(1) as usize;
        let rows: usize = lines
            .iter()
            .map(|l| l.width().div_ceil(inner_width).max(1))
            .sum();
        let height =
            (rows as u16 + 2).clamp(5.min(area.height), area.height.saturating_sub(2).max(3));
        let popup = Rect {
            x: area.x + (area.width.saturating_sub(popup.width)) / 2,
            y: area.y + (area.height.saturating_sub(height)) / 2,
            width: popup.width,
            height,
        };
        frame.render_widget(Clear, popup);
        let inner_height = popup.height.saturating_sub(2) as usize;
        // Keep the choices visible: scroll the body, never the option rows.
        if rows > inner_height && scroll == 0 {
            let keep_tail = 4.min(lines.len());
            let tail: Vec<Line> = lines.split_off(lines.len() - keep_tail);
            lines.truncate(inner_height.saturating_sub(keep_tail + 1));
            lines.push(Line::styled("  … (PgDn scrolls)", theme.muted));
            lines.extend(tail);
        }
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.accent)
            .title(Span::styled(title, theme.accent));
        frame.render_widget(
            Paragraph::new(lines)
                .block(block)
                .wrap(Wrap { trim: false })
                .scroll((scroll, 0)),
            popup,
        );
    }
}

fn options_line(options: &[&str], selected: usize, theme: &Theme, keys: &[&str]) -> Line<'static> {
    let mut spans = Vec::new();
    for (i, option) in options.iter().enumerate() {
        let style = if i == selected {
            theme.selected
        } else {
            theme.text
        };
        spans.push(Span::styled(format!(" [{}] {option} ", keys[i]), style));
        spans.push(Span::raw("  "));
    }
    Line::from(spans)
}

fn send<T>(reply: &mut Option<oneshot::Sender<T>>, value: T) {
    if let Some(tx) = reply.take() {
        let _ = tx.send(value);
    }
}

enum LineEdit {
    Editing,
    Submit,
    Cancel,
}

/// A one-line text field.
fn edit_line(text: &mut String, key: KeyEvent) -> LineEdit {
    match key.code {
        KeyCode::Enter => LineEdit::Submit,
        KeyCode::Esc => LineEdit::Cancel,
        KeyCode::Backspace => {
            text.pop();
            LineEdit::Editing
        }
        KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
            text.push(c);
            LineEdit::Editing
        }
        _ => LineEdit::Editing,
    }
}

#[cfg(test)]
#[path = "dialogs_tests.rs"]
mod tests;
