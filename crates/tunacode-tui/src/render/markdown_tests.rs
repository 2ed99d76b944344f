//! Tests of markdown rendering, whole and streaming.

use pretty_assertions::assert_eq;
use ratatui::style::{Color, Modifier};
use ratatui::text::{Line, Span};

use super::wrap::line_width;
use super::{StreamingMarkdown, lines_to_text, render_markdown};
use crate::theme::Theme;

const RICH: &str = r#"# TunaCode notes

Some *emphasis*, **strong text**, ~~struck~~ and `inline code`, with a [link](https://example.com/docs)
and an autolink <https://example.com>. This paragraph is long enough that it has to wrap at narrow widths.

## Lists

- first item
- second item with a long description that certainly needs wrapping when narrow
  - nested item
    - deeper item
- third item

3. third
4. fourth
5. fifth

- [x] done task
- [ ] open task

### Table

| Name | Kind | Description |
| :--- | :---: | ---: |
| `wrap.rs` | module | word wrapping |
| `diff.rs` | module | unified diffs with a gutter |

```rust
fn main() {
    let answer: u32 = 42;
    println!("{answer}");
}
```

> A quoted line
> that continues.

---

The end.
"#;

fn find_span<'a>(lines: &'a [Line<'static>], text: &str) -> &'a Span<'static> {
    lines
        .iter()
        .flat_map(|l| l.spans.iter())
        .find(|s| s.content.contains(text))
        .unwrap_or_else(|| panic!("no span contains {text:?}"))
}

fn assert_fits(lines: &[Line<'_>], width: u16) {
    for line in lines {
        assert!(
            line_width(line) <= usize::from(width),
            "too wide at {width}: {line}"
        );
    }
}

#[test]
fn rich_document_at_80_columns() {
    let lines = render_markdown(RICH, 80, &Theme::dark());
    assert_fits(&lines, 80);
    insta::assert_snapshot!(lines_to_text(&lines));
}

#[test]
fn rich_document_at_40_columns() {
    let lines = render_markdown(RICH, 40, &Theme::dark());
    assert_fits(&lines, 40);
    insta::assert_snapshot!(lines_to_text(&lines));
}

#[test]
fn rich_document_styles() {
    let theme = Theme::dark();
    let lines = render_markdown(RICH, 80, &theme);
    let h1 = find_span(&lines, "TunaCode notes");
    assert_eq!(
        h1.style,
        theme
            .heading
            .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    );
    assert_eq!(
        find_span(&lines, "Lists").style,
        theme.heading.add_modifier(Modifier::BOLD)
    );
    assert!(
        find_span(&lines, "emphasis")
            .style
            .add_modifier
            .contains(Modifier::ITALIC)
    );
    assert!(
        find_span(&lines, "strong text")
            .style
            .add_modifier
            .contains(Modifier::BOLD)
    );
    assert!(
        find_span(&lines, "struck")
            .style
            .add_modifier
            .contains(Modifier::CROSSED_OUT)
    );
    assert_eq!(find_span(&lines, "inline code").style, theme.inline_code);
    assert_eq!(
        find_span(&lines, "link").style,
        theme.text.patch(theme.link)
    );
    assert_eq!(
        find_span(&lines, "(https://example.com/docs)").style,
        theme.muted
    );
    assert_eq!(
        find_span(&lines, "quoted").style,
        theme.text.patch(theme.quote)
    );
    assert_eq!(find_span(&lines, "• ").style, theme.accent);
    assert_eq!(find_span(&lines, "[x] ").style, theme.success);
    assert!(
        find_span(&lines, "Description")
            .style
            .add_modifier
            .contains(Modifier::BOLD)
    );
    let code_line = lines
        .iter()
        .find(|l| l.to_string().contains("let answer"))
        .expect("code line");
    let colors: std::collections::HashSet<_> =
        code_line.spans.iter().filter_map(|s| s.style.fg).collect();
    assert!(
        colors.len() > 1 && colors.iter().all(|c| matches!(c, Color::Rgb(..))),
        "{code_line:?}"
    );
    // The autolink shows its address once.
    assert_eq!(
        lines_to_text(&lines).matches("https://example.com").count(),
        2
    );
}

#[test]
fn plain_theme_marks_inline_code_with_backticks() {
    let lines = render_markdown("run `cargo test` now", 80, &Theme::plain());
    assert_eq!(lines_to_text(&lines), "run `cargo test` now");
    let lines = render_markdown("run `cargo test` now", 80, &Theme::dark());
    assert_eq!(lines_to_text(&lines), "run cargo test now");
}

#[test]
fn blocks_are_separated_by_exactly_one_blank_line() {
    let text = "para one\n\n\n\npara two\n# Heading\n- a\n- b\n\n```\ncode\n```\n> quote\n\n> second quote";
    let lines = render_markdown(text, 40, &Theme::dark());
    insta::assert_snapshot!(lines_to_text(&lines), @r"
    para one

    para two

    Heading

    • a
    • b

      code

    │ quote

    │ second quote
    ");
}

#[test]
fn loose_lists_nested_quotes_and_empty_items() {
    let text = "1. first\n\n   more of first\n\n2. second\n   > quoted in item\n   >\n   > again\n3.\n\n* a\n  1. x\n  2. y\n* b";
    let lines = render_markdown(text, 40, &Theme::dark());
    insta::assert_snapshot!(lines_to_text(&lines), @r"
    1. first

       more of first

    2. second

       │ quoted in item
       │
       │ again

    3.

    • a
      1. x
      2. y
    • b
    ");
}

#[test]
fn tables_shrink_and_wrap_their_cells() {
    let text = "| Option | Default | Meaning |\n|---|:-:|--:|\n| `max_iterations` | 40 | How many model calls one request may make before asking the user |\n| `timeout` | 600 | Seconds |";
    let wide = render_markdown(text, 100, &Theme::dark());
    assert_fits(&wide, 100);
    insta::assert_snapshot!("table_wide", lines_to_text(&wide));
    let narrow = render_markdown(text, 36, &Theme::dark());
    assert_fits(&narrow, 36);
    insta::assert_snapshot!("table_narrow", lines_to_text(&narrow));
    // Far too narrow for the columns: still no line wider than the screen.
    let tiny = render_markdown(text, 6, &Theme::dark());
    assert_fits(&tiny, 6);
}

#[test]
fn code_is_indented_and_cut_not_wrapped() {
    let text = "```python\nprint('a very long line of python code that does not fit')\nx = 1\n```";
    let lines = render_markdown(text, 30, &Theme::plain());
    assert_eq!(
        lines_to_text(&lines),
        "  print('a very long line of …\n  x = 1"
    );
}

/// A document cut at every character, streamed or not: no panics, lines always fit.
#[test]
fn partial_markdown_never_panics() {
    let theme = Theme::dark();
    let text = "Intro **bold *both* and `code` ~~gone~~\n\n- [ ] a\n  - b\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> q\n\n```rust\nfn x() {}\n\n```\nend\n";
    for (cut, _) in text.char_indices() {
        let lines = render_markdown(&text[..cut], 24, &theme);
        assert_fits(&lines, 24);
    }
    let cuts = [
        "*both",
        "- [",
        "  - b",
        "| a |",
        "|---|-",
        "| 1 |",
        "```rust\nfn",
        "{}\n\n`",
    ];
    let snapshots: Vec<String> = cuts
        .iter()
        .map(|after| {
            let cut = text
                .find(after)
                .map(|i| i + after.len())
                .unwrap_or_default();
            let shown = lines_to_text(&render_markdown(&text[..cut], 40, &theme));
            format!("--- cut after {after:?}\n{shown}")
        })
        .collect();
    insta::assert_snapshot!(snapshots.join("\n"));
}

const STREAMED: &str = "# Plan\n\nFirst we read the **files**.\nThen we\nchange them.\n\n- one\n- two\n\n- three (same list, now loose)\n\n1. a\n\n1. b\n\n```rust\nfn main() {\n\n    println!(\"hi\");\n}\n```\n\n<!-- a comment\n\nspanning blank lines -->\n\n> quoted\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\nParagraph    with trailing spaces   \n\n    indented code\n\n    more\n\nDone.\n";

/// Streams `text` in deltas of `step` bytes, checking after each that the lines equal a whole render.
fn assert_streaming_matches(text: &str, step: usize, width: u16, theme: &Theme) {
    let mut stream = StreamingMarkdown::new();
    let mut pushed = 0;
    while pushed < text.len() {
        let mut end = (pushed + step).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        stream.push(&text[pushed..end]);
        pushed = end;
        let expected = render_markdown(&text[..pushed], width, theme);
        assert_eq!(
            stream.lines(width, theme),
            expected.as_slice(),
            "after {pushed} bytes (step {step})"
        );
    }
}

#[test]
fn streaming_equals_whole_render_at_every_prefix() {
    for step in [1, 3, 7] {
        assert_streaming_matches(STREAMED, step, 50, &Theme::dark());
    }
    assert_streaming_matches(RICH, 5, 40, &Theme::plain());
    assert_streaming_matches(
        &format!("{RICH}\n{STREAMED}\n{RICH}"),
        13,
        80,
        &Theme::light(),
    );
}

#[test]
fn streaming_renders_finished_blocks_once() {
    let theme = Theme::dark();
    let mut stream = StreamingMarkdown::new();
    let paragraphs = 200;
    for i in 0..paragraphs {
        for word in format!("Paragraph {i} has *some* words in it.\n\n").split_inclusive(' ') {
            stream.push(word);
            let _ = stream.lines(60, &theme);
        }
    }
    // Each finished paragraph was rendered once, not once per delta.
    assert!(
        stream.committed_renders() < paragraphs,
        "{}",
        stream.committed_renders()
    );
    let expected = render_markdown(stream.source(), 60, &theme);
    assert_eq!(stream.lines(60, &theme), expected.as_slice());
    // A new width or theme renders the finished part again, once.
    let before = stream.committed_renders();
    let expected = render_markdown(stream.source(), 30, &theme);
    assert_eq!(stream.lines(30, &theme), expected.as_slice());
    let _ = stream.lines(30, &theme);
    assert_eq!(stream.committed_renders(), before + 1);
    let expected = render_markdown(stream.source(), 30, &Theme::plain());
    assert_eq!(stream.lines(30, &Theme::plain()), expected.as_slice());
    assert_eq!(stream.committed_renders(), before + 2);
}

#[test]
fn streaming_with_reference_links_renders_whole() {
    let theme = Theme::dark();
    let text = "See [the docs][d].\n\nMore text.\n\n[d]: https://example.com/docs\n";
    let mut stream = StreamingMarkdown::new();
    for ch in text.chars() {
        stream.push(&ch.to_string());
        let expected = render_markdown(stream.source(), 40, &theme);
        assert_eq!(stream.lines(40, &theme), expected.as_slice());
    }
    assert!(
        lines_to_text(stream.lines(40, &theme)).contains("the docs (https://example.com/docs)")
    );
}

/// Streams `text` in 64-byte deltas, one frame each, and checks the result against a whole render.
fn stream_in_frames(text: &str, theme: &Theme) {
    let mut stream = StreamingMarkdown::new();
    for chunk in text.as_bytes().chunks(64) {
        stream.push(std::str::from_utf8(chunk).unwrap_or_default());
        let _ = stream.lines(100, theme);
    }
    let expected = render_markdown(text, 100, theme);
    assert_eq!(stream.lines(100, theme), expected.as_slice());
}

/// A long answer and a long open code block stream to exactly what a whole render gives (timings of
/// the same work are in `bench/`).
#[test]
fn long_documents_stream_like_a_whole_render() {
    let theme = Theme::dark();
    let mut text = String::new();
    while text.lines().count() < 2000 {
        text.push_str(RICH);
        text.push('\n');
    }
    stream_in_frames(&text, &theme);
    let code: String = (0..400)
        .map(|i| format!("    let value_{i} = compute({i}, \"text\"); // note\n"))
        .collect();
    let text = format!("Here is the file:\n\n```rust\nfn main() {{\n{code}}}\n```\n\nDone.\n");
    stream_in_frames(&text, &theme);
}
