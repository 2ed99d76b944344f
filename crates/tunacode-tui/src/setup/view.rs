//! Drawing the setup screen: a centered panel with the step's question, an explanation, the field or
//! list, a problem line and the keys that work. A key is drawn only as a mask.

use ratatui::Frame;
use ratatui::layout::{Margin, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear};

use super::draw::{FIELD, panel, put_field, put_lines, styled_lines};
use super::screen::SetupScreen;
use super::steps::{CheckState, ModelItem, PROVIDERS, Step};
use super::wrap::{truncate, wrap};
use crate::theme::Theme;

/// Widest and tallest the panel gets.
const MAX_WIDTH: u16 = 76;
const MAX_HEIGHT: u16 = 22;
/// Rows of the model list.
const MODEL_ROWS: u16 = 10;

impl SetupScreen {
    /// Draws the screen into `area` (it clears what is under its panel).
    pub fn render(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let panel = panel(
            area,
            MAX_WIDTH,
            self.natural_height(area.width.min(MAX_WIDTH)),
        );
        frame.render_widget(Clear, panel);
        let (at, total) = self.progress();
        let block = Block::bordered()
            .border_style(theme.border)
            .title(Line::styled(
                format!(" TunaCode setup · step {at} of {total} "),
                theme.accent,
            ));
        let inner = block.inner(panel).inner(Margin::new(1, 0));
        frame.render_widget(block, panel);
        if inner.width < 4 || inner.height < 3 {
            return;
        }
        let width = inner.width;
        // The keys wrap to a second line on a narrow screen rather than lose "Ctrl+C quit".
        // Each key's words are held together (no-break spaces): lines break between keys only.
        let held: Vec<String> = self
            .hints()
            .split(" · ")
            .map(|key| key.replace(' ', "\u{a0}"))
            .collect();
        let mut hints: Vec<Line> = wrap(&held.join(" · "), width)
            .into_iter()
            .map(|l| Line::styled(l.replace('\u{a0}', " "), theme.muted))
            .collect();
        hints.truncate(2);
        let mut error = self
            .error
            .as_deref()
            .map(|e| styled_lines(e, width, theme.error))
            .unwrap_or_default();
        error.truncate(3);
        let intro = styled_lines(&self.intro(), width, theme.text);
        // Rows: title, intro, a blank, the body, the problem, the hints; the intro gives way first.
        let footer = (error.len() + hints.len()) as u16;
        let body_min = self.body_min_height();
        let room = inner.height.saturating_sub(1 + footer + body_min + 1);
        let intro: Vec<Line> = intro.into_iter().take(usize::from(room)).collect();
        let mut y = put_lines(
            frame,
            inner,
            inner.y,
            vec![Line::styled(self.title(), theme.heading)],
        );
        y = put_lines(frame, inner, y, intro);
        if inner.bottom().saturating_sub(y) > footer + body_min {
            y += 1;
        }
        let body_bottom = inner.bottom().saturating_sub(footer).max(y);
        self.render_body(frame, Rect::new(inner.x, y, width, body_bottom - y), theme);
        let hints_y = inner.bottom().saturating_sub(hints.len() as u16);
        put_lines(frame, inner, inner.bottom().saturating_sub(footer), error);
        put_lines(frame, inner, hints_y, hints);
    }

    fn title(&self) -> String {
        match self.step {
            Step::Provider => "Choose a provider".into(),
            Step::BaseUrl => "Server address".into(),
            Step::ProviderName => "Name this server".into(),
            Step::Key if self.is_compatible() => "API key (optional)".into(),
            Step::Key => format!("API key for {}", self.option().label),
            Step::Model if self.is_compatible() => "Model name".into(),
            Step::Model => "Choose a model".into(),
            Step::Check => match self.check {
                CheckState::Running => "Checking the connection".into(),
                CheckState::Passed => "Ready".into(),
                CheckState::Failed(_) => "The check failed".into(),
            },
        }
    }

    fn intro(&self) -> String {
        let path = self.config_path.display();
        match self.step {
            Step::Provider => {
                "TunaCode needs a model to work with. Pick where it runs; you can switch \
                               models later with /model."
                    .into()
            }
            Step::BaseUrl => {
                "The base URL of your OpenAI-compatible server, usually ending in /v1 \
                              (Ollama :11434, llama.cpp :8080, LM Studio :1234, vLLM :8000)."
                    .into()
            }
            Step::ProviderName => {
                "The server is saved under this name; its models are chosen as <name>:<model>."
                    .into()
            }
            Step::Key if self.is_compatible() => format!(
                "If the server needs a key, paste it; otherwise press Enter. It is saved as {} in \
                 {path}.",
                self.key_env()
            ),
            Step::Key => format!(
                "Paste your key. It is never shown, and is saved as {} in {path} (readable only by \
                 you).",
                self.key_env()
            ),
            Step::Model if self.is_compatible() => {
                "The model's name on the server, e.g. qwen3:8b (`ollama list` shows them).".into()
            }
            Step::Model => format!(
                "Type to filter the list, or type any model name {} serves.",
                self.option().label
            ),
            Step::Check => "One short request shows whether the endpoint, the key and the model \
                            work."
                .into(),
        }
    }

    fn hints(&self) -> &'static str {
        match self.step {
            Step::Provider => "↑↓ move · Enter choose · Ctrl+C quit",
            Step::Key if self.is_compatible() => {
                "Enter next (empty: no key) · Esc back · Ctrl+C quit"
            }
            Step::BaseUrl | Step::ProviderName | Step::Key => "Enter next · Esc back · Ctrl+C quit",
            Step::Model if self.is_compatible() => "Enter check · Esc back · Ctrl+C quit",
            Step::Model => "↑↓ move · Enter choose · Esc back · Ctrl+C quit",
            Step::Check => match self.check {
                CheckState::Running => "Esc back · Ctrl+C quit",
                CheckState::Passed => "Enter save and start · Esc back · Ctrl+C quit",
                CheckState::Failed(_) => {
                    "Enter try again · s save unchecked (offline) · Esc back · Ctrl+C quit"
                }
            },
        }
    }

    fn body_min_height(&self) -> u16 {
        match self.step {
            Step::Provider => PROVIDERS.len() as u16,
            Step::Model if !self.is_compatible() => 4,
            Step::Check => 6,
            _ => 2,
        }
    }

    /// The panel height that shows everything at `width` (border included), at most [`MAX_HEIGHT`].
    /// The model list keeps one height so filtering does not resize the panel.
    fn natural_height(&self, width: u16) -> u16 {
        let inner = width.saturating_sub(4);
        let body = match self.step {
            Step::Provider => PROVIDERS.len(),
            Step::BaseUrl => 1,
            Step::Model if self.is_compatible() => 1,
            Step::ProviderName | Step::Key => 2,
            Step::Model => 1 + usize::from(MODEL_ROWS),
            Step::Check => self.check_lines(inner, &Theme::plain()).len(),
        };
        let intro = wrap(&self.intro(), inner).len();
        let error = self
            .error
            .as_deref()
            .map_or(0, |e| wrap(e, inner).len().min(3));
        // Border, title, intro, blank, body, blank, problem, hints, border.
        let rows = 1 + 1 + intro + 1 + body + 1 + error + 1 + 1;
        u16::try_from(rows).unwrap_or(MAX_HEIGHT).min(MAX_HEIGHT)
    }

    fn render_body(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let width = area.width;
        match self.step {
            Step::Provider => {
                let lines = PROVIDERS
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        let text = truncate(&format!("{}. {}", i + 1, p.label), width - 2);
                        if i == self.provider_index {
                            Line::from(vec![
                                Span::styled("› ", theme.accent),
                                Span::styled(text, theme.selected),
                            ])
                        } else {
                            Line::styled(format!("  {text}"), theme.text)
                        }
                    })
                    .collect();
                put_lines(frame, area, area.y, lines);
            }
            Step::BaseUrl => {
                put_field(frame, area, area.y, FIELD, &self.base_url, false, theme);
            }
            Step::ProviderName => {
                let y = put_field(
                    frame,
                    area,
                    area.y,
                    FIELD,
                    &self.provider_name,
                    false,
                    theme,
                );
                let note = format!("Models will be named {}:<model>", self.provider_id());
                put_lines(
                    frame,
                    area,
                    y,
                    vec![Line::styled(truncate(&note, width), theme.muted)],
                );
            }
            Step::Key => {
                let y = put_field(frame, area, area.y, FIELD, &self.key, true, theme);
                let note = match self.key.len() {
                    0 if self.is_compatible() => "No key".to_string(),
                    0 => "Nothing pasted yet".to_string(),
                    1 => "1 character".to_string(),
                    n => format!("{n} characters"),
                };
                put_lines(frame, area, y, vec![Line::styled(note, theme.muted)]);
            }
            Step::Model if self.is_compatible() => {
                put_field(frame, area, area.y, FIELD, &self.model, false, theme);
            }
            Step::Model => self.render_model_list(frame, area, theme),
            Step::Check => self.render_check(frame, area, theme),
        }
    }

    fn render_model_list(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let y = put_field(frame, area, area.y, "Filter: ", &self.model, false, theme);
        let items = self.model_items();
        let rows = usize::from(area.bottom().saturating_sub(y).min(MODEL_ROWS));
        if items.is_empty() {
            let note = "No models listed: type the model's name";
            put_lines(
                frame,
                area,
                y,
                vec![Line::styled(truncate(note, area.width), theme.muted)],
            );
            return;
        }
        let selected = self.model_index.min(items.len() - 1);
        let first = (selected + 1).saturating_sub(rows.max(1));
        let lines = items
            .iter()
            .enumerate()
            .skip(first)
            .take(rows)
            .map(|(i, item)| {
                let label = match item {
                    ModelItem::Known(id) => id.clone(),
                    ModelItem::Typed(name) => format!("Use “{name}” as the model name"),
                };
                let label = truncate(&label, area.width - 2);
                if i == selected {
                    Line::from(vec![
                        Span::styled("› ", theme.accent),
                        Span::styled(label, theme.selected),
                    ])
                } else {
                    Line::styled(format!("  {label}"), theme.text)
                }
            })
            .collect();
        put_lines(frame, area, y, lines);
    }

    fn render_check(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        put_lines(frame, area, area.y, self.check_lines(area.width, theme));
    }

    /// The check step: what is being checked, then how it went.
    fn check_lines(&self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let Some(choice) = &self.choice else {
            return Vec::new();
        };
        let key = match (&choice.key_env, &choice.api_key) {
            (Some(var), Some(k)) => format!("{var} ({} characters)", k.chars().count()),
            _ => "none".to_string(),
        };
        let row = |label: &str, value: String| {
            Line::from(vec![
                Span::styled(format!("{label:<10}"), theme.muted),
                Span::styled(truncate(&value, width.saturating_sub(10)), theme.text),
            ])
        };
        let mut lines = vec![
            row("Model", choice.model_id()),
            row("Endpoint", self.endpoint(choice)),
            row("Key", key),
            Line::default(),
        ];
        match &self.check {
            CheckState::Running => {
                lines.push(Line::styled("Checking… (one short request)", theme.accent));
            }
            CheckState::Passed => {
                lines.push(Line::styled(
                    format!("OK: {} answered", choice.model),
                    theme.success,
                ));
                let path = self.config_path.display();
                let text = format!("Enter saves this to {path} and starts TunaCode.");
                lines.extend(styled_lines(&text, width, theme.text));
            }
            CheckState::Failed(message) => {
                lines.extend(styled_lines(message, width, theme.error));
            }
        }
        lines
    }
}
