//! [`KeyPrompt`]: a small dialog asking for a provider's key (e.g. after `/model` picks a provider with
//! no key). The key is drawn only as a mask.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::{Margin, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Clear};

use super::draw::{FIELD, panel, put_field, put_lines, styled_lines};
use super::input::LineInput;
use super::wrap::truncate;
use crate::theme::Theme;

/// What the app should do after a key press in a [`KeyPrompt`].
#[derive(Clone, PartialEq, Eq)]
pub enum KeyPromptAction {
    /// Nothing (redraw).
    None,
    /// The user entered this key (trimmed, not empty): save it under [`KeyPrompt::key_env`].
    Submit(String),
    /// The user gave up (Esc or Ctrl+C).
    Cancel,
}

impl std::fmt::Debug for KeyPromptAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyPromptAction::None => f.write_str("None"),
            KeyPromptAction::Submit(k) => write!(f, "Submit(<{} chars>)", k.chars().count()),
            KeyPromptAction::Cancel => f.write_str("Cancel"),
        }
    }
}

/// A masked one-line prompt for a provider's API key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPrompt {
    provider: String,
    key_env: String,
    input: LineInput,
    error: Option<String>,
}

impl KeyPrompt {
    /// A prompt for `provider`'s key, to be saved as `key_env` (e.g. `ANTHROPIC_API_KEY`).
    pub fn new(provider: impl Into<String>, key_env: impl Into<String>) -> Self {
        KeyPrompt {
            provider: provider.into(),
            key_env: key_env.into(),
            input: LineInput::default(),
            error: None,
        }
    }

    /// The provider the key is for.
    pub fn provider(&self) -> &str {
        &self.provider
    }

    /// The variable the key is saved under.
    pub fn key_env(&self) -> &str {
        &self.key_env
    }

    /// Handles one key press: Enter submits a non-empty key, Esc or Ctrl+C cancels.
    pub fn handle_key(&mut self, key: KeyEvent) -> KeyPromptAction {
        if key.kind == KeyEventKind::Release {
            return KeyPromptAction::None;
        }
        match key.code {
            KeyCode::Esc => KeyPromptAction::Cancel,
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                KeyPromptAction::Cancel
            }
            KeyCode::Enter => {
                let key = self.input.text().trim().to_string();
                if key.is_empty() {
                    self.input.clear();
                    self.error = Some("Paste the key, or press Esc to cancel".into());
                    KeyPromptAction::None
                } else {
                    KeyPromptAction::Submit(key)
                }
            }
            _ => {
                if self.input.handle_key(key) {
                    self.error = None;
                }
                KeyPromptAction::None
            }
        }
    }

    /// Handles pasted text (bracketed paste); line breaks are dropped.
    pub fn handle_paste(&mut self, text: &str) {
        self.input.insert_str(text);
        self.error = None;
    }

    /// Draws the dialog centered in `area`.
    pub fn render(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let rect = panel(area, 64, 9);
        frame.render_widget(Clear, rect);
        let block = Block::bordered()
            .border_style(theme.border)
            .title(Line::styled(
                format!(" API key for {} ", self.provider),
                theme.accent,
            ));
        let inner = block.inner(rect).inner(Margin::new(1, 0));
        frame.render_widget(block, rect);
        if inner.width < 4 || inner.height == 0 {
            return;
        }
        let width = inner.width;
        let text = format!(
            "Paste the key; it is saved as {} and never shown.",
            self.key_env
        );
        let mut lines = styled_lines(&text, width, theme.text);
        let reserved = 3; // field, count or problem, hints
        lines.truncate(usize::from(inner.height.saturating_sub(reserved).max(1)));
        let mut y = put_lines(frame, inner, inner.y, lines);
        if inner.bottom().saturating_sub(y) > reserved {
            y += 1;
        }
        y = put_field(frame, inner, y, FIELD, &self.input, true, theme);
        let note = match (&self.error, self.input.len()) {
            (Some(e), _) => Line::styled(truncate(e, width), theme.error),
            (None, 0) => Line::styled("Nothing pasted yet", theme.muted),
            (None, 1) => Line::styled("1 character", theme.muted),
            (None, n) => Line::styled(format!("{n} characters"), theme.muted),
        };
        put_lines(frame, inner, y, vec![note]);
        let hints = truncate("Enter save · Esc cancel", width);
        put_lines(
            frame,
            inner,
            inner.bottom() - 1,
            vec![Line::styled(hints, theme.muted)],
        );
    }
}
