//! Syntax highlighting of code with syntect (pure Rust regexes), mapped to ratatui colors.
//!
//! The syntax and theme sets take tens of milliseconds to load, so they are loaded once per process,
//! on first use ([`Highlighter::global`]).

use std::sync::OnceLock;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use syntect::highlighting::{FontStyle, HighlightIterator, HighlightState, ThemeSet};
use syntect::parsing::{ParseState, ScopeStack, SyntaxReference, SyntaxSet};

use super::wrap::sanitize;
use crate::theme::Theme;

/// The syntect syntaxes and themes, loaded once.
pub struct Highlighter {
    syntaxes: SyntaxSet,
    themes: ThemeSet,
}

impl std::fmt::Debug for Highlighter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Highlighter").finish_non_exhaustive()
    }
}

/// Common code-fence names that syntect's default set spells differently or lacks (mapped to the
/// closest syntax it has).
const ALIASES: &[(&str, &str)] = &[
    ("rust", "rs"),
    ("python", "py"),
    ("python3", "py"),
    ("javascript", "js"),
    ("jsx", "js"),
    ("mjs", "js"),
    ("cjs", "js"),
    ("ts", "js"),
    ("tsx", "js"),
    ("typescript", "js"),
    ("bash", "sh"),
    ("zsh", "sh"),
    ("shell", "sh"),
    ("console", "sh"),
    ("shellscript", "sh"),
    ("jsonc", "json"),
    ("json5", "json"),
    ("yml", "yaml"),
    ("patch", "diff"),
    ("toml", "properties"),
    ("ini", "properties"),
    ("env", "properties"),
    ("dotenv", "properties"),
    ("golang", "go"),
    ("c++", "cpp"),
    ("csharp", "cs"),
    ("c#", "cs"),
    ("objc", "m"),
    ("ruby", "rb"),
    ("perl", "pl"),
    ("markdown", "md"),
];

impl Highlighter {
    /// The process-wide highlighter, loaded on first call.
    pub fn global() -> &'static Highlighter {
        static GLOBAL: OnceLock<Highlighter> = OnceLock::new();
        GLOBAL.get_or_init(|| Highlighter {
            syntaxes: SyntaxSet::load_defaults_newlines(),
            themes: ThemeSet::load_defaults(),
        })
    }

    /// The syntax for a code-fence language token (`rs`, `rust`, `py`, `ts`, `sh`, ...), a file
    /// extension, or a file name (`src/main.rs`); `None` when unknown.
    pub fn find_syntax(&self, lang: &str) -> Option<&SyntaxReference> {
        let token = lang
            .trim()
            .split([',', ' ', '{'])
            .next()
            .unwrap_or_default()
            .to_lowercase();
        if token.is_empty() {
            return None;
        }
        let token = ALIASES
            .iter()
            .find(|(alias, _)| *alias == token)
            .map_or(token.as_str(), |(_, real)| real);
        if matches!(token, "text" | "txt" | "plain" | "plaintext") {
            return None;
        }
        self.syntaxes.find_syntax_by_token(token).or_else(|| {
            let ext = token.rsplit_once('.').map(|(_, ext)| ext)?;
            if ext == token {
                return None;
            }
            self.find_syntax(ext)
        })
    }

    /// A line-by-line highlighter for `lang` in `theme` (plain lines in `theme.text` when the theme
    /// has no syntax colors or the language is unknown). Keeps the parser state between lines, so a
    /// growing code block can be highlighted incrementally.
    pub fn lines<'a>(&'a self, lang: Option<&str>, theme: &Theme) -> LineHighlighter<'a> {
        let state = theme
            .syntax_theme
            .and_then(|name| self.themes.themes.get(name))
            .zip(lang.and_then(|l| self.find_syntax(l)))
            .map(|(syn_theme, syntax)| {
                let highlighter = syntect::highlighting::Highlighter::new(syn_theme);
                let highlight = HighlightState::new(&highlighter, ScopeStack::new());
                State {
                    theme: syn_theme,
                    highlighter,
                    parse: ParseState::new(syntax),
                    highlight,
                }
            });
        LineHighlighter {
            state,
            syntaxes: &self.syntaxes,
            plain: theme.text,
        }
    }

    /// `code` highlighted as `lang`, one [`Line`] per line of code (a final newline adds no line).
    /// Tabs become four spaces and control characters are dropped. Never fails: anything syntect
    /// cannot handle comes out plain.
    pub fn highlight(&self, code: &str, lang: Option<&str>, theme: &Theme) -> Vec<Line<'static>> {
        let mut lines = self.lines(lang, theme);
        code.lines()
            .map(|line| lines.highlight_line(line))
            .collect()
    }
}

/// The language to highlight a block in, when `theme` colors code and the block names one.
pub(crate) fn highlightable<'a>(lang: Option<&'a str>, theme: &Theme) -> Option<&'a str> {
    lang.filter(|l| !l.trim().is_empty() && theme.syntax_theme.is_some())
}

/// `code` highlighted as `lang` in `theme` (see [`Highlighter::highlight`]), without loading the
/// syntax sets when no colors can result (no language, or a theme without syntax colors).
pub fn highlight_code(code: &str, lang: Option<&str>, theme: &Theme) -> Vec<Line<'static>> {
    match highlightable(lang, theme) {
        Some(lang) => Highlighter::global().highlight(code, Some(lang), theme),
        None => code
            .lines()
            .map(|line| Line::from(Span::styled(sanitize(line, false), theme.text)))
            .collect(),
    }
}

/// The syntect state of a colored [`LineHighlighter`].
struct State<'a> {
    theme: &'a syntect::highlighting::Theme,
    highlighter: syntect::highlighting::Highlighter<'a>,
    parse: ParseState,
    highlight: HighlightState,
}

/// Highlights code one line at a time (see [`Highlighter::lines`]). Cloning it forks the state, so
/// an unfinished last line can be highlighted without losing the place.
pub struct LineHighlighter<'a> {
    state: Option<State<'a>>,
    syntaxes: &'a SyntaxSet,
    plain: Style,
}

impl Clone for LineHighlighter<'_> {
    fn clone(&self) -> Self {
        LineHighlighter {
            state: self.state.as_ref().map(|state| State {
                theme: state.theme,
                highlighter: syntect::highlighting::Highlighter::new(state.theme),
                parse: state.parse.clone(),
                highlight: state.highlight.clone(),
            }),
            syntaxes: self.syntaxes,
            plain: self.plain,
        }
    }
}

impl std::fmt::Debug for LineHighlighter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineHighlighter")
            .field("colored", &self.state.is_some())
            .finish()
    }
}

impl LineHighlighter<'_> {
    /// The next line of code (without its line ending) as a styled line. After a syntect error the
    /// rest of the code is plain.
    pub fn highlight_line(&mut self, line: &str) -> Line<'static> {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let Some(state) = self.state.as_mut() {
            let with_newline = format!("{line}\n");
            match state.parse.parse_line(&with_newline, self.syntaxes) {
                Ok(ops) => {
                    let regions = HighlightIterator::new(
                        &mut state.highlight,
                        &ops,
                        &with_newline,
                        &state.highlighter,
                    );
                    let spans: Vec<Span<'static>> = regions
                        .filter_map(|(style, text)| {
                            let text = sanitize(text, false);
                            (!text.is_empty())
                                .then(|| Span::styled(text, convert(style, self.plain)))
                        })
                        .collect();
                    return Line::from(spans);
                }
                Err(_) => self.state = None,
            }
        }
        Line::from(Span::styled(sanitize(line, false), self.plain))
    }
}

/// A syntect style as a ratatui style: the foreground color (RGB) and bold/italic, over `base`.
fn convert(style: syntect::highlighting::Style, base: Style) -> Style {
    let fg = style.foreground;
    let mut out = if fg.a == 0 {
        base
    } else {
        base.fg(Color::Rgb(fg.r, fg.g, fg.b))
    };
    if style.font_style.contains(FontStyle::BOLD) {
        out = out.add_modifier(Modifier::BOLD);
    }
    if style.font_style.contains(FontStyle::ITALIC) {
        out = out.add_modifier(Modifier::ITALIC);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    const RUST: &str = "fn main() {\n    let x: u32 = 42; // answer\n    println!(\"{x}\");\n}\n";

    fn fg_colors(lines: &[Line<'_>]) -> HashSet<Color> {
        lines
            .iter()
            .flat_map(|l| l.spans.iter())
            .filter_map(|s| s.style.fg)
            .collect()
    }

    #[test]
    fn rust_is_colored_in_dark_and_plain_in_plain() {
        let h = Highlighter::global();
        let dark = h.highlight(RUST, Some("rust"), &Theme::dark());
        assert_eq!(dark.len(), 4);
        assert!(fg_colors(&dark).len() > 1, "{dark:?}");
        assert!(fg_colors(&dark).iter().all(|c| matches!(c, Color::Rgb(..))));
        let plain = h.highlight(RUST, Some("rust"), &Theme::plain());
        assert!(fg_colors(&plain).is_empty());
        let text: Vec<String> = plain.iter().map(|l| l.to_string()).collect();
        assert_eq!(text, RUST.lines().collect::<Vec<_>>());
        assert!(
            plain
                .iter()
                .flat_map(|l| l.spans.iter())
                .all(|s| s.style == Theme::plain().text)
        );
    }

    #[test]
    fn languages_resolve_by_token_extension_and_file_name() {
        let h = Highlighter::global();
        for lang in [
            "rs", "rust", "py", "js", "ts", "tsx", "sh", "bash", "json", "yaml", "diff", "go",
        ] {
            assert!(h.find_syntax(lang).is_some(), "{lang}");
        }
        assert_eq!(
            h.find_syntax("src/main.rs").map(|s| s.name.as_str()),
            Some("Rust")
        );
        assert_eq!(
            h.find_syntax("Rust,ignore").map(|s| s.name.as_str()),
            Some("Rust")
        );
        assert!(h.find_syntax("no-such-language").is_none());
        assert!(h.find_syntax("").is_none());
        assert!(h.find_syntax("text").is_none());
        assert!(h.find_syntax("toml").is_some());
    }

    #[test]
    fn unknown_language_is_plain_text_and_odd_input_does_not_panic() {
        let h = Highlighter::global();
        let theme = Theme::dark();
        let lines = h.highlight("a\tb\u{1b}[31m\r\n", Some("klingon"), &theme);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].to_string(), "a    b[31m");
        assert_eq!(lines[0].spans[0].style, theme.text);
        for code in [
            "",
            "\n\n",
            "\"unterminated",
            "/* open",
            "r#\"",
            "\u{0}\u{ffff}",
            "fn é(){🦀}",
        ] {
            for lang in ["rs", "py", "sh", "json", "diff", "html"] {
                let _ = h.highlight(code, Some(lang), &theme);
            }
        }
        assert!(h.highlight("", Some("rs"), &theme).is_empty());
        let plain = highlight_code("x\r\ny", None, &theme);
        assert_eq!(
            plain.iter().map(|l| l.to_string()).collect::<Vec<_>>(),
            ["x", "y"]
        );
    }
}
