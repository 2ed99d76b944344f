//! Tests of word wrapping and truncation.

use pretty_assertions::assert_eq;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::lines_to_text;
use super::wrap::{line_width, truncate_line, wrap_spans};

fn texts(lines: &[Line<'_>]) -> Vec<String> {
    lines.iter().map(|l| l.to_string()).collect()
}

#[test]
fn words_wrap_and_keep_their_styles() {
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let red = Style::default().fg(Color::Red);
    let spans = vec![
        Span::raw("the quick "),
        Span::styled("brown fox", bold),
        Span::styled(" jumps over", red),
    ];
    let lines = wrap_spans(spans, 10, "", "");
    assert_eq!(texts(&lines), ["the quick", "brown fox", "jumps over"]);
    assert_eq!(lines[1].spans, vec![Span::styled("brown fox", bold)]);
    assert_eq!(lines[2].spans, vec![Span::styled("jumps over", red)]);
}

#[test]
fn a_word_made_of_several_spans_is_not_split() {
    let code = Style::default().fg(Color::Yellow);
    let spans = vec![
        Span::raw("call "),
        Span::styled("run()", code),
        Span::raw(", then stop"),
    ];
    let lines = wrap_spans(spans, 11, "", "");
    assert_eq!(texts(&lines), ["call run(),", "then stop"]);
    assert_eq!(lines[0].spans[1], Span::styled("run()", code));
}

#[test]
fn indents_count_against_the_width() {
    let lines = wrap_spans(
        vec![Span::raw("one two three four")],
        10,
        Span::raw("• "),
        "  ",
    );
    assert_eq!(lines_to_text(&lines), "• one two\n  three\n  four");
    assert!(lines.iter().all(|l| line_width(l) <= 10));
    let quote = Style::default().add_modifier(Modifier::ITALIC);
    let lines = wrap_spans(
        vec![Span::raw("a b")],
        3,
        vec![Span::styled("│ ", quote)],
        Span::styled("│ ", quote),
    );
    assert_eq!(texts(&lines), ["│ a", "│ b"]);
    assert_eq!(lines[1].spans[0].style, quote);
}

#[test]
fn wide_characters_take_two_columns() {
    let lines = wrap_spans(vec![Span::raw("漢字かな交じり文 です")], 6, "", "");
    assert_eq!(texts(&lines), ["漢字か", "な交じ", "り文", "です"]);
    assert!(lines.iter().all(|l| line_width(l) <= 6));
    // A wide character never straddles the edge: a line of 5 holds two of them.
    let lines = wrap_spans(vec![Span::raw("日本語日本語")], 5, "", "");
    assert_eq!(texts(&lines), ["日本", "語日", "本語"]);
}

#[test]
fn long_words_break_hard_on_their_own_line() {
    let url = "https://example.com/a/very/long/path";
    let lines = wrap_spans(vec![Span::raw(format!("see {url} now"))], 12, "", "");
    assert_eq!(
        texts(&lines),
        ["see", "https://exam", "ple.com/a/ve", "ry/long/path", "now"]
    );
}

#[test]
fn newlines_are_hard_breaks_and_leading_spaces_stay() {
    let lines = wrap_spans(vec![Span::raw("a\n  indented  \n\nb\n")], 20, "", "");
    assert_eq!(texts(&lines), ["a", "  indented", "", "b", ""]);
    assert_eq!(texts(&wrap_spans(Vec::new(), 20, "> ", "")), ["> "]);
}

#[test]
fn control_characters_are_dropped_and_tiny_widths_do_not_hang() {
    let lines = wrap_spans(vec![Span::raw("a\u{1b}[2Jb\tc")], 20, "", "");
    assert_eq!(texts(&lines), ["a[2Jb    c"]);
    let lines = wrap_spans(vec![Span::raw("abc 漢字")], 0, "", "");
    assert_eq!(texts(&lines), ["a", "b", "c", "漢", "字"]);
    let lines = wrap_spans(vec![Span::raw("abc")], 2, "wide indent ", "");
    assert_eq!(texts(&lines), ["wide indent a", "bc"]);
}

#[test]
fn truncation_ends_with_an_ellipsis() {
    let red = Style::default().fg(Color::Red);
    let line = Line::from(vec![Span::raw("abc"), Span::styled("defgh", red)]);
    let cut = truncate_line(line.clone(), 6);
    assert_eq!(cut.to_string(), "abcde…");
    assert_eq!(cut.spans.last(), Some(&Span::styled("…", red)));
    assert_eq!(truncate_line(line.clone(), 8), line);
    assert_eq!(truncate_line(Line::from("漢字漢字"), 4).to_string(), "漢…");
    assert_eq!(truncate_line(line, 0).to_string(), "");
}
