//! Themes: a dark and a light palette, and a plain one when `NO_COLOR` is set (modifiers only). Every
//! widget takes its styles from a [`Theme`]; nothing hard-codes a color.

use ratatui::style::{Color, Modifier, Style};

/// The styles of one theme.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    /// `dark`, `light` or `plain`.
    pub name: &'static str,
    /// Ordinary text.
    pub text: Style,
    /// Secondary text (hints, durations, timestamps).
    pub muted: Style,
    /// Highlights: the prompt marker, selected items, the spinner.
    pub accent: Style,
    /// The user's messages.
    pub user: Style,
    /// Reasoning text.
    pub thinking: Style,
    /// Errors and failed tools.
    pub error: Style,
    /// Warnings and notices.
    pub warning: Style,
    /// Success marks.
    pub success: Style,
    /// Markdown headings.
    pub heading: Style,
    /// Inline code.
    pub inline_code: Style,
    /// Links.
    pub link: Style,
    /// Block quotes.
    pub quote: Style,
    /// Added lines of a diff.
    pub diff_add: Style,
    /// Removed lines of a diff.
    pub diff_remove: Style,
    /// `@@` hunk headers of a diff.
    pub diff_hunk: Style,
    /// `---`/`+++` file headers of a diff.
    pub diff_header: Style,
    /// Borders of dialogs and panels.
    pub border: Style,
    /// The selected row of a list.
    pub selected: Style,
    /// The status line.
    pub status: Style,
    /// The syntect theme for code blocks (`None`: no syntax colors).
    pub syntax_theme: Option<&'static str>,
}

impl Theme {
    /// The dark theme (the default).
    pub fn dark() -> Self {
        Theme {
            name: "dark",
            text: Style::default().fg(Color::Gray),
            muted: Style::default().fg(Color::DarkGray),
            accent: Style::default().fg(Color::Cyan),
            user: Style::default()
                .fg(Color::White)
                .add_modifier(Modifier::BOLD),
            thinking: Style::default()
                .fg(Color::DarkGray)
                .add_modifier(Modifier::ITALIC),
            error: Style::default().fg(Color::Red),
            warning: Style::default().fg(Color::Yellow),
            success: Style::default().fg(Color::Green),
            heading: Style::default()
                .fg(Color::Cyan)
                .add_modifier(Modifier::BOLD),
            inline_code: Style::default().fg(Color::LightYellow),
            link: Style::default()
                .fg(Color::LightBlue)
                .add_modifier(Modifier::UNDERLINED),
            quote: Style::default()
                .fg(Color::DarkGray)
                .add_modifier(Modifier::ITALIC),
            diff_add: Style::default().fg(Color::Green),
            diff_remove: Style::default().fg(Color::Red),
            diff_hunk: Style::default().fg(Color::Cyan),
            diff_header: Style::default()
                .fg(Color::White)
                .add_modifier(Modifier::BOLD),
            border: Style::default().fg(Color::DarkGray),
            selected: Style::default().fg(Color::Black).bg(Color::Cyan),
            status: Style::default().fg(Color::Gray).bg(Color::Rgb(30, 30, 46)),
            syntax_theme: Some("base16-ocean.dark"),
        }
    }

    /// The light theme.
    pub fn light() -> Self {
        Theme {
            name: "light",
            text: Style::default().fg(Color::Black),
            muted: Style::default().fg(Color::Gray),
            accent: Style::default().fg(Color::Blue),
            user: Style::default()
                .fg(Color::Black)
                .add_modifier(Modifier::BOLD),
            thinking: Style::default()
                .fg(Color::Gray)
                .add_modifier(Modifier::ITALIC),
            error: Style::default().fg(Color::Red),
            warning: Style::default().fg(Color::Rgb(160, 100, 0)),
            success: Style::default().fg(Color::Rgb(0, 120, 0)),
            heading: Style::default()
                .fg(Color::Blue)
                .add_modifier(Modifier::BOLD),
            inline_code: Style::default().fg(Color::Magenta),
            link: Style::default()
                .fg(Color::Blue)
                .add_modifier(Modifier::UNDERLINED),
            quote: Style::default()
                .fg(Color::Gray)
                .add_modifier(Modifier::ITALIC),
            diff_add: Style::default().fg(Color::Rgb(0, 120, 0)),
            diff_remove: Style::default().fg(Color::Red),
            diff_hunk: Style::default().fg(Color::Blue),
            diff_header: Style::default()
                .fg(Color::Black)
                .add_modifier(Modifier::BOLD),
            border: Style::default().fg(Color::Gray),
            selected: Style::default().fg(Color::White).bg(Color::Blue),
            status: Style::default()
                .fg(Color::Black)
                .bg(Color::Rgb(225, 225, 235)),
            syntax_theme: Some("InspiredGitHub"),
        }
    }

    /// No colors at all (`NO_COLOR`): structure shows through bold, italic, underline and reverse.
    pub fn plain() -> Self {
        let none = Style::default();
        Theme {
            name: "plain",
            text: none,
            muted: none.add_modifier(Modifier::DIM),
            accent: none.add_modifier(Modifier::BOLD),
            user: none.add_modifier(Modifier::BOLD),
            thinking: none.add_modifier(Modifier::ITALIC),
            error: none.add_modifier(Modifier::BOLD),
            warning: none.add_modifier(Modifier::BOLD),
            success: none,
            heading: none.add_modifier(Modifier::BOLD),
            inline_code: none,
            link: none.add_modifier(Modifier::UNDERLINED),
            quote: none.add_modifier(Modifier::ITALIC),
            diff_add: none,
            diff_remove: none,
            diff_hunk: none.add_modifier(Modifier::DIM),
            diff_header: none.add_modifier(Modifier::BOLD),
            border: none,
            selected: none.add_modifier(Modifier::REVERSED),
            status: none.add_modifier(Modifier::REVERSED),
            syntax_theme: None,
        }
    }

    /// A theme by name (`dark`, `light`, `plain`); `NO_COLOR` (non-empty) forces `plain`.
    pub fn named(name: &str) -> Self {
        if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) {
            return Self::plain();
        }
        match name {
            "light" => Self::light(),
            "plain" | "none" => Self::plain(),
            _ => Self::dark(),
        }
    }

    /// The names `/theme` offers.
    pub const NAMES: [&'static str; 3] = ["dark", "light", "plain"];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_theme_has_no_colors_and_names_resolve() {
        let plain = Theme::plain();
        for style in [
            plain.text,
            plain.error,
            plain.diff_add,
            plain.diff_remove,
            plain.selected,
            plain.status,
        ] {
            assert_eq!((style.fg, style.bg), (None, None));
        }
        assert_eq!(plain.syntax_theme, None);
        assert_ne!(Theme::dark().diff_add, Theme::dark().diff_remove);
        assert_eq!(Theme::light().name, "light");
    }
}
