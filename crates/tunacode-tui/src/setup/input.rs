//! A one-line text field for the setup screens, optionally masked (a key is never drawn).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use unicode_width::UnicodeWidthChar;

/// The character a masked field shows for each character typed.
pub(crate) const MASK: char = '•';

/// A one-line text field with a cursor (a char index).
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) struct LineInput {
    chars: Vec<char>,
    cursor: usize,
}

impl std::fmt::Debug for LineInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The field may hold a key: show its length only.
        write!(f, "LineInput({} chars)", self.chars.len())
    }
}

impl LineInput {
    /// A field holding `text`, cursor at the end.
    pub(crate) fn with_text(text: &str) -> Self {
        let chars: Vec<char> = text.chars().collect();
        LineInput {
            cursor: chars.len(),
            chars,
        }
    }

    /// The text.
    pub(crate) fn text(&self) -> String {
        self.chars.iter().collect()
    }

    /// How many characters it holds.
    pub(crate) fn len(&self) -> usize {
        self.chars.len()
    }

    /// Empties the field.
    pub(crate) fn clear(&mut self) {
        self.chars.clear();
        self.cursor = 0;
    }

    /// Inserts pasted text at the cursor; line breaks and other control characters are dropped.
    pub(crate) fn insert_str(&mut self, text: &str) {
        for c in text.chars().filter(|c| !c.is_control()) {
            self.chars.insert(self.cursor, c);
            self.cursor += 1;
        }
    }

    /// Applies an editing key; `true` when the text changed.
    pub(crate) fn handle_key(&mut self, key: KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        match key.code {
            KeyCode::Char(c) if !ctrl && !alt => {
                self.chars.insert(self.cursor, c);
                self.cursor += 1;
                true
            }
            KeyCode::Char('a') if ctrl => self.move_to(0),
            KeyCode::Char('e') if ctrl => self.move_to(self.chars.len()),
            KeyCode::Char('u') if ctrl => {
                self.chars.drain(..self.cursor);
                self.cursor = 0;
                true
            }
            KeyCode::Char('k') if ctrl => {
                self.chars.truncate(self.cursor);
                true
            }
            KeyCode::Char('w') if ctrl => {
                let mut start = self.cursor;
                while start > 0 && self.chars[start - 1].is_whitespace() {
                    start -= 1;
                }
                while start > 0 && !self.chars[start - 1].is_whitespace() {
                    start -= 1;
                }
                self.chars.drain(start..self.cursor);
                self.cursor = start;
                true
            }
            KeyCode::Backspace if self.cursor > 0 => {
                self.cursor -= 1;
                self.chars.remove(self.cursor);
                true
            }
            KeyCode::Delete if self.cursor < self.chars.len() => {
                self.chars.remove(self.cursor);
                true
            }
            KeyCode::Left => self.move_to(self.cursor.saturating_sub(1)),
            KeyCode::Right => self.move_to((self.cursor + 1).min(self.chars.len())),
            KeyCode::Home => self.move_to(0),
            KeyCode::End => self.move_to(self.chars.len()),
            _ => false,
        }
    }

    fn move_to(&mut self, cursor: usize) -> bool {
        self.cursor = cursor;
        false
    }

    /// What to draw in `width` columns (masked: one [`MASK`] per character) and the cursor's column.
    /// The view scrolls so the cursor stays visible.
    pub(crate) fn view(&self, width: u16, masked: bool) -> (String, u16) {
        let width = usize::from(width.max(1));
        let shown: Vec<char> = if masked {
            vec![MASK; self.chars.len()]
        } else {
            self.chars.clone()
        };
        let w = |c: &char| c.width().unwrap_or(0);
        // Leave one column for the cursor after the last character.
        let mut start = self.cursor;
        let mut used = 0;
        while start > 0 && used + w(&shown[start - 1]) < width {
            used += w(&shown[start - 1]);
            start -= 1;
        }
        let mut text = String::new();
        let mut total = 0;
        for c in &shown[start..] {
            if total + w(c) > width {
                break;
            }
            total += w(c);
            text.push(*c);
        }
        let cursor_col = shown[start..self.cursor].iter().map(w).sum::<usize>();
        (text, u16::try_from(cursor_col).unwrap_or(u16::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn edits_and_scrolls_to_keep_the_cursor_visible() {
        let mut input = LineInput::with_text("http://x");
        assert!(input.handle_key(key(KeyCode::Backspace)));
        input.handle_key(key(KeyCode::Home));
        input.handle_key(key(KeyCode::Char('>')));
        assert_eq!(input.text(), ">http://");
        input.handle_key(KeyEvent::new(KeyCode::Char('e'), KeyModifiers::CONTROL));
        input.insert_str("ab\ncd");
        assert_eq!(input.text(), ">http://abcd");
        assert_eq!(input.view(5, false), ("abcd".into(), 4));
        assert_eq!(input.view(5, true), ("••••".into(), 4));
        input.handle_key(KeyEvent::new(KeyCode::Char('w'), KeyModifiers::CONTROL));
        assert_eq!(input.len(), 0);
        assert_eq!(format!("{input:?}"), "LineInput(0 chars)");
    }
}
