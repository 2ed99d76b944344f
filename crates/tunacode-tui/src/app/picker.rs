//! A fuzzy-filtered list picker: `/model` (the model registry), `/resume` (this project's sessions, with
//! a preview), `/theme`, and `/rewind` (this session's prompts, then what goes back).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use crate::theme::Theme;

/// What a picker picks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickerKind {
    /// A model (`provider:model`).
    Model,
    /// A saved session.
    Resume,
    /// A theme.
    Theme,
    /// A prompt of this session to rewind to.
    Rewind,
    /// What a rewind puts back.
    RewindMode,
}

/// What a key did to a picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PickerOutcome {
    /// Still open.
    Open,
    /// Closed without a choice.
    Closed,
    /// This item's id was picked.
    Picked(String),
}

/// One choice.
#[derive(Debug, Clone, PartialEq)]
pub struct PickerItem {
    /// What is returned when picked.
    pub id: String,
    /// The main text.
    pub label: String,
    /// Secondary text.
    pub detail: String,
    /// Shown beside the list for the selected item (a session's first messages).
    pub preview: Option<String>,
}

/// The picker's state.
#[derive(Debug, Clone)]
pub struct Picker {
    /// What it picks.
    pub kind: PickerKind,
    /// The title.
    pub title: String,
    /// Every item, in order.
    pub items: Vec<PickerItem>,
    /// The filter typed so far.
    pub filter: String,
    shown: Vec<usize>,
    /// The selected row among the shown items.
    pub selected: usize,
}

impl Picker {
    /// A picker over `items`.
    pub fn new(kind: PickerKind, title: &str, items: Vec<PickerItem>) -> Self {
        let shown = (0..items.len()).collect();
        Picker {
            kind,
            title: title.to_string(),
            items,
            filter: String::new(),
            shown,
            selected: 0,
        }
    }

    /// Adds `items` after the others (those whose id is listed already are left out), keeping the
    /// filter and the selection.
    pub fn extend(&mut self, items: Vec<PickerItem>) {
        let selected = self.current().map(|i| i.id.clone());
        for item in items {
            if !self.items.iter().any(|i| i.id == item.id) {
                self.items.push(item);
            }
        }
        self.refilter();
        if let Some(id) = selected {
            self.select_id(&id);
        }
    }

    /// Selects the shown item whose id is `id`, if there is one.
    pub fn select_id(&mut self, id: &str) {
        if let Some(row) = self.shown.iter().position(|&i| self.items[i].id == id) {
            self.selected = row;
        }
    }

    /// Re-filters after the filter text changed (fuzzy, best first; empty shows all in order).
    pub fn refilter(&mut self) {
        self.selected = 0;
        if self.filter.is_empty() {
            self.shown = (0..self.items.len()).collect();
            return;
        }
        let pattern = Pattern::parse(&self.filter, CaseMatching::Ignore, Normalization::Smart);
        let mut matcher = Matcher::new(Config::DEFAULT);
        let mut buf = Vec::new();
        let mut scored: Vec<(u32, usize)> = self
            .items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| {
                let hay = format!("{} {}", item.label, item.detail);
                pattern
                    .score(Utf32Str::new(&hay, &mut buf), &mut matcher)
                    .map(|s| (s, i))
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        self.shown = scored.into_iter().map(|(_, i)| i).collect();
    }

    /// Types a character into the filter.
    pub fn type_char(&mut self, c: char) {
        self.filter.push(c);
        self.refilter();
    }

    /// Deletes the last filter character.
    pub fn backspace(&mut self) {
        self.filter.pop();
        self.refilter();
    }

    /// Moves the selection.
    pub fn move_by(&mut self, delta: isize) {
        if self.shown.is_empty() {
            return;
        }
        let n = self.shown.len() as isize;
        self.selected = ((self.selected as isize + delta).rem_euclid(n)) as usize;
    }

    /// The selected item.
    pub fn current(&self) -> Option<&PickerItem> {
        self.shown.get(self.selected).map(|&i| &self.items[i])
    }

    /// How many items pass the filter.
    pub fn visible_count(&self) -> usize {
        self.shown.len()
    }

    /// Handles a key: typing filters, arrows move, Enter picks (for models, a typed `provider:model`
    /// that matches nothing is picked as typed), Esc closes.
    pub fn handle_key(&mut self, key: KeyEvent) -> PickerOutcome {
        match key.code {
            KeyCode::Esc => return PickerOutcome::Closed,
            KeyCode::Up => self.move_by(-1),
            KeyCode::Down | KeyCode::Tab => self.move_by(1),
            KeyCode::PageUp => self.move_by(-10),
            KeyCode::PageDown => self.move_by(10),
            KeyCode::Backspace => self.backspace(),
            KeyCode::Enter => {
                let typed = (self.kind == PickerKind::Model && self.filter.contains(':'))
                    .then(|| self.filter.clone());
                return match self.current().map(|i| i.id.clone()).or(typed) {
                    Some(id) => PickerOutcome::Picked(id),
                    None => PickerOutcome::Closed,
                };
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => self.type_char(c),
            _ => {}
        }
        PickerOutcome::Open
    }

    /// Draws the picker centred in `area`.
    pub fn render(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let popup = centered(area, 90, 80);
        frame.render_widget(Clear, popup);
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border)
            .title(Span::styled(format!(" {} ", self.title), theme.accent));
        let inner = block.inner(popup);
        frame.render_widget(block, popup);
        let with_preview =
            matches!(self.kind, PickerKind::Resume | PickerKind::Rewind) && inner.width >= 70;
        let columns = if with_preview {
            Layout::default()
                .direction(Direction::Horizontal)
                .constraints([Constraint::Percentage(50), Constraint::Percentage(50)])
                .split(inner)
        } else {
            Layout::default()
                .constraints([Constraint::Min(1)])
                .split(inner)
        };
        let list_area = columns[0];
        frame.render_widget(Paragraph::new(self.list_lines(list_area, theme)), list_area);
        if with_preview {
            self.render_preview(frame, columns[1], theme);
        }
    }

    /// The filter line, a blank, and the rows of the list that fit in `list_area`, scrolled to keep
    /// the selection in view.
    fn list_lines(&self, list_area: Rect, theme: &Theme) -> Vec<Line<'static>> {
        let rows = list_area.height.saturating_sub(2) as usize;
        let top = self.selected.saturating_sub(rows.saturating_sub(1));
        let mut lines = vec![
            Line::from(vec![
                Span::styled("filter: ", theme.muted),
                Span::styled(self.filter.clone(), theme.text),
                Span::styled("▏", theme.accent),
            ]),
            Line::default(),
        ];
        for (row, &i) in self.shown.iter().enumerate().skip(top).take(rows) {
            let item = &self.items[i];
            let style = if row == self.selected {
                theme.selected
            } else {
                theme.text
            };
            let room = (list_area.width as usize).saturating_sub(item.label.chars().count() + 3);
            let detail: String = item.detail.chars().take(room).collect();
            lines.push(Line::from(vec![
                Span::styled(format!(" {} ", item.label), style),
                Span::styled(
                    detail,
                    if row == self.selected {
                        style
                    } else {
                        theme.muted
                    },
                ),
            ]));
        }
        if self.shown.is_empty() {
            lines.push(Line::styled(" no match", theme.muted));
        }
        lines
    }

    /// The selected item's preview (a session's first messages), if it has one.
    fn render_preview(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let Some(preview) = self.current().and_then(|i| i.preview.clone()) else {
            return;
        };
        let p = Paragraph::new(preview)
            .style(theme.muted)
            .wrap(Wrap { trim: false })
            .block(
                Block::default()
                    .borders(Borders::LEFT)
                    .border_style(theme.border),
            );
        frame.render_widget(p, area);
    }
}

/// A rectangle `pw`% wide and `ph`% tall in the middle of `area`.
pub fn centered(area: Rect, pw: u16, ph: u16) -> Rect {
    let w = (area.width as u32 * pw as u32 / 100) as u16;
    let h = (area.height as u32 * ph as u32 / 100) as u16;
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w.max(10).min(area.width),
        height: h.max(5).min(area.height),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items() -> Vec<PickerItem> {
        [
            "openai:gpt-5",
            "anthropic:claude-sonnet-4-5",
            "google:gemini-2.5-pro",
            "openai:gpt-4.1",
        ]
        .iter()
        .map(|m| PickerItem {
            id: m.to_string(),
            label: m.to_string(),
            detail: String::new(),
            preview: None,
        })
        .collect()
    }

    #[test]
    fn keys_filter_pick_and_close() {
        let key = |c| KeyEvent::new(c, KeyModifiers::NONE);
        let mut p = Picker::new(PickerKind::Model, "Model", items());
        for c in "gemini".chars() {
            assert_eq!(p.handle_key(key(KeyCode::Char(c))), PickerOutcome::Open);
        }
        assert_eq!(
            p.handle_key(key(KeyCode::Enter)),
            PickerOutcome::Picked("google:gemini-2.5-pro".into())
        );
        let mut p = Picker::new(PickerKind::Model, "Model", items());
        for c in "ollama:qwen3".chars() {
            p.handle_key(key(KeyCode::Char(c)));
        }
        assert_eq!(
            p.handle_key(key(KeyCode::Enter)),
            PickerOutcome::Picked("ollama:qwen3".into())
        );
        let mut p = Picker::new(PickerKind::Theme, "Theme", items());
        p.handle_key(key(KeyCode::Down));
        assert_eq!(
            p.handle_key(key(KeyCode::Enter)),
            PickerOutcome::Picked("anthropic:claude-sonnet-4-5".into())
        );
        assert_eq!(p.handle_key(key(KeyCode::Esc)), PickerOutcome::Closed);
    }

    #[test]
    fn filters_fuzzily_and_wraps_the_selection() {
        let mut p = Picker::new(PickerKind::Model, "Model", items());
        assert_eq!(p.visible_count(), 4);
        for c in "sonnet".chars() {
            p.type_char(c);
        }
        assert_eq!(p.current().unwrap().id, "anthropic:claude-sonnet-4-5");
        p.backspace();
        p.filter = "gpt".into();
        p.refilter();
        assert_eq!(p.visible_count(), 2);
        p.move_by(-1);
        assert_eq!(p.selected, 1);
        p.filter = "zzzz".into();
        p.refilter();
        assert!(p.current().is_none());
    }
}
