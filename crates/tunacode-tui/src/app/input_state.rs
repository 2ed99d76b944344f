//! The input box and what helps typing into it: the editor, the completion popup, the input history,
//! the files `@` completes, the armed Ctrl+C, and the hint in the box's title.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui_textarea::{CursorMove, TextArea};

use crate::complete::{
    CommandInfo, CompletionContext, CompletionPopup, InputHistory, SharedFileIndex,
    complete_commands, completion_context,
};
use crate::theme::Theme;

/// How long a first Ctrl+C waits for the second.
const QUIT_WINDOW: Duration = Duration::from_secs(2);

/// Most lines the input grows to.
const MAX_INPUT_LINES: u16 = 8;

/// What the input box is drawn with besides its own state.
pub struct InputLook<'a> {
    /// Colors.
    pub theme: &'a Theme,
    /// Messages queued behind the running request (shown when there is no hint).
    pub queued: usize,
    /// Whether a request is in flight (the border is muted).
    pub busy: bool,
}

/// What the input box decides: the text being typed and the help around it.
pub struct InputState {
    /// The message editor.
    pub editor: TextArea<'static>,
    /// Completion popup and where it applies.
    pub popup: Option<(CompletionPopup, CompletionContext)>,
    /// Input history of this project.
    pub history: InputHistory,
    /// Files for `@` completion.
    pub files: SharedFileIndex,
    /// When Ctrl+C was pressed on an empty input (a second press quits).
    pub quit_armed: Option<Instant>,
    /// A short hint shown in the input's title.
    pub hint: Option<String>,
    /// Images pasted from the clipboard, sent with the next message.
    pub images: Vec<PathBuf>,
    /// Big pastes, in the editor as placeholders.
    pub pasted: crate::app::pasted::PastedTexts,
}

impl InputState {
    /// The text typed, its lines joined with `\n`.
    pub fn text(&self) -> String {
        self.editor.lines().join("\n")
    }

    /// Empties the editor (a fresh one in `theme`).
    pub fn clear(&mut self, theme: &Theme) {
        self.editor = new_editor(theme);
    }

    /// The text typed, big pastes in their placeholders' places.
    pub fn full_text(&self) -> String {
        self.pasted.expand(&self.text())
    }

    /// The text to send (big pastes put back in), leaving the editor empty.
    pub fn take_text(&mut self, theme: &Theme) -> String {
        let text = self.full_text();
        self.clear(theme);
        self.pasted.clear();
        text
    }

    /// Replaces the text, the cursor at its end.
    pub fn set_text(&mut self, text: &str, theme: &Theme) {
        self.clear(theme);
        self.editor.insert_str(text);
    }

    /// Replaces the text, the cursor at byte `cursor`.
    pub fn set_text_with_cursor(&mut self, text: &str, cursor: usize, theme: &Theme) {
        self.clear(theme);
        self.editor.insert_str(&text[..cursor.min(text.len())]);
        let ratatui_textarea::DataCursor(row, col) = self.editor.cursor();
        self.editor.insert_str(&text[cursor.min(text.len())..]);
        self.editor
            .move_cursor(CursorMove::Jump(row as u16, col as u16));
    }

    /// Up at the first line: the previous history entry replaces the text (kept as the draft).
    pub fn history_up(&mut self, theme: &Theme) {
        let draft = self.text();
        if let Some(entry) = self.history.up(&draft).map(str::to_string) {
            self.set_text(&entry, theme);
        }
    }

    /// Down at the last line: the next history entry (or the draft) replaces the text.
    pub fn history_down(&mut self, theme: &Theme) {
        if let Some(entry) = self.history.down() {
            self.set_text(&entry, theme);
        }
    }

    /// Ctrl+C on an empty input: the second press within `QUIT_WINDOW` quits (returns true); the
    /// first arms it and says so in the hint.
    pub fn press_quit(&mut self) -> bool {
        match self.quit_armed {
            Some(at) if at.elapsed() < QUIT_WINDOW => true,
            _ => {
                self.quit_armed = Some(Instant::now());
                self.hint = Some("press Ctrl+C again to quit".into());
                false
            }
        }
    }

    /// The rows the editor takes: one per line, at most `MAX_INPUT_LINES`.
    pub fn rows(&self) -> u16 {
        (self.editor.lines().len() as u16).clamp(1, MAX_INPUT_LINES)
    }

    /// Pasted text goes in as typed, its line ends made `\n`; a big one as a placeholder.
    pub fn paste(&mut self, text: &str) {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        self.editor.insert_str(self.pasted.insert(text));
    }

    /// The input box with its hint or queue count, and the completion popup above it.
    pub fn render(&self, frame: &mut Frame, main: Rect, input_area: Rect, look: InputLook<'_>) {
        let title = match (&self.hint, look.queued) {
            (Some(h), _) => format!(" {h} "),
            (None, n) if n > 0 => format!(" {n} queued "),
            _ => String::new(),
        };
        let block = Block::default()
            .borders(Borders::TOP | Borders::BOTTOM)
            .border_style(if look.busy {
                look.theme.border
            } else {
                look.theme.accent
            })
            .title(Span::styled(title, look.theme.warning));
        let inner = block.inner(input_area);
        frame.render_widget(block, input_area);
        let marker = Rect {
            width: 2.min(inner.width),
            ..inner
        };
        frame.render_widget(
            Paragraph::new(Span::styled("› ", look.theme.accent)),
            marker,
        );
        let editor = Rect {
            x: inner.x + 2,
            width: inner.width.saturating_sub(2),
            ..inner
        };
        frame.render_widget(&self.editor, editor);

        if let Some((popup, _)) = &self.popup {
            let h = popup.height().min(main.height);
            let w = popup.preferred_width().clamp(20, main.width);
            let r = Rect {
                x: main.x + 2.min(main.width),
                y: input_area.y.saturating_sub(h),
                width: w.min(main.width.saturating_sub(2)),
                height: h,
            };
            frame.render_widget(Clear, r);
            popup.render(r, frame.buffer_mut(), look.theme);
        }
    }

    /// Opens, updates or closes the completion popup from the text before the cursor; `commands`
    /// gives what `/` completes.
    pub fn update_completion(&mut self, commands: impl FnOnce() -> Vec<CommandInfo>) {
        let Some(ctx) = context_at_cursor(&self.editor) else {
            self.popup = None;
            return;
        };
        let popup = match &ctx {
            CompletionContext::Command { query, .. } => {
                CompletionPopup::from_commands(&complete_commands(&commands(), query))
            }
            CompletionContext::File { query, .. } => match self.files.get() {
                Some(index) => CompletionPopup::from_files(&index.fuzzy(query, 50)),
                None => CompletionPopup::new(Vec::new()),
            },
        };
        self.popup = (!popup.is_empty()).then_some((popup, ctx));
    }
}

/// What completes at the cursor, read from the cursor's line only (no work in proportion to the
/// whole input): a mention's `@…` before it, or a `/command` when the input is that one line.
fn context_at_cursor(input: &TextArea) -> Option<CompletionContext> {
    let ratatui_textarea::DataCursor(row, col) = input.cursor();
    let lines = input.lines();
    let line = lines.get(row)?;
    let at = line.char_indices().nth(col).map_or(line.len(), |(i, _)| i);
    match completion_context(line, at)? {
        CompletionContext::Command { .. } if lines.len() > 1 => None,
        CompletionContext::File { query, start } => {
            let offset: usize = lines[..row].iter().map(|l| l.len() + 1).sum();
            Some(CompletionContext::File {
                query,
                start: start + offset,
            })
        }
        command => Some(command),
    }
}

/// A fresh, empty message editor in `theme`.
pub fn new_editor(theme: &Theme) -> TextArea<'static> {
    let mut t = TextArea::default();
    t.set_placeholder_text("Ask TunaCode…  (@ file · / commands · ! shell · Shift+Enter new line)");
    t.set_placeholder_style(theme.muted);
    t.set_cursor_line_style(ratatui::style::Style::default());
    t.set_style(theme.text);
    t.set_wrap_mode(ratatui_textarea::WrapMode::WordOrGlyph);
    t
}
