//! The transcript renders only what a frame needs: the newest screen first, code highlighted off the
//! event loop for the cells on screen, lines kept only for them; scrolled up, the view stays put.

use std::sync::mpsc;
use std::time::Duration;

use ratatui::style::Color;
use ratatui::text::Line;

use crate::app::transcript::{CellKind, ViewFlags};
use crate::app::transcript_view::Transcript;
use crate::render::{StreamingMarkdown, lines_to_text};
use crate::theme::Theme;

const FLAGS: ViewFlags = ViewFlags {
    show_thoughts: false,
    expand_tools: false,
    frame: 0,
};

/// A finished answer with a sentence and a ten-line Rust block naming `i`.
fn answer(i: usize) -> CellKind {
    let code: String = (0..10)
        .map(|l| format!("let value_{i}_{l} = compute({l}, \"{i}\");\n"))
        .collect();
    let mut md = StreamingMarkdown::new();
    md.push(&format!("Answer {i}:\n\n```rust\n{code}```\n"));
    md.finish();
    CellKind::Assistant(md)
}

/// A transcript of `n` answers whose highlighter reports to the returned receiver.
fn long_transcript(n: usize) -> (Transcript, mpsc::Receiver<()>) {
    let mut transcript = Transcript::default();
    let (tx, rx) = mpsc::channel();
    transcript.code.set_waker(Box::new(move || {
        let _ = tx.send(());
    }));
    for i in 0..n {
        transcript.push(answer(i));
    }
    (transcript, rx)
}

fn colored(lines: &[Line<'_>]) -> usize {
    lines
        .iter()
        .filter(|l| {
            l.spans
                .iter()
                .any(|s| matches!(s.style.fg, Some(Color::Rgb(..))))
        })
        .count()
}

/// Cells rendered, and cells holding their lines.
fn rendered(transcript: &Transcript) -> (usize, usize) {
    let states: Vec<_> = transcript
        .cells
        .iter()
        .filter_map(|c| c.rendered_state())
        .collect();
    (states.len(), states.iter().filter(|s| s.1).count())
}

/// Waits for the highlighter to report `blocks` blocks done.
fn wait_for_blocks(transcript: &Transcript, rx: &mpsc::Receiver<()>, blocks: usize) {
    while transcript.code.highlighted() < blocks {
        rx.recv_timeout(Duration::from_secs(20))
            .expect("the highlighter reported nothing in 20 s");
    }
}

#[test]
fn a_long_transcript_draws_its_newest_screen_and_highlights_only_what_it_shows() {
    let theme = Theme::dark();
    let (mut transcript, rx) = long_transcript(2_000);
    // Each answer is 13 rows (its sentence, a blank, 10 code lines, the cell's blank), so a
    // 30-row view shows parts of three cells.
    let first = transcript.visible(100, 30, &theme, FLAGS);
    assert_eq!(first.len(), 30);
    let text = lines_to_text(&first);
    assert!(text.contains("value_1999_9"), "{text}");
    let (measured, holding) = rendered(&transcript);
    assert!(measured <= 3, "{measured} cells rendered for one screen");
    assert!(holding <= 3, "{holding}");
    assert_eq!(colored(&first), 0, "highlighting waits for the worker");
    // Only the blocks on screen are asked for.
    wait_for_blocks(&transcript, &rx, measured);
    assert_eq!(transcript.code.queued(), 0);
    assert_eq!(transcript.code.highlighted(), measured);
    transcript.code_arrived();
    let shown = transcript.visible(100, 30, &theme, FLAGS);
    assert_eq!(lines_to_text(&shown), text, "highlighting changes no text");
    assert!(colored(&shown) >= 20, "{shown:?}");
    // Home measures every cell but keeps lines only for the cells on screen.
    let before = transcript.code.highlighted();
    transcript.scroll_to_top();
    let top = transcript.visible(100, 30, &theme, FLAGS);
    assert!(lines_to_text(&top).starts_with("  Answer 0:"), "{top:?}");
    let (measured, holding) = rendered(&transcript);
    assert_eq!(measured, 2_000);
    assert!(holding <= 3, "{holding} cells keep their lines");
    // The cells now on screen asked for their blocks (one each).
    wait_for_blocks(&transcript, &rx, before + holding);
    transcript.code_arrived();
    let top = transcript.visible(100, 30, &theme, FLAGS);
    assert!(colored(&top[..12]) >= 10, "{top:?}");
}

#[test]
fn rows_added_below_do_not_move_a_view_scrolled_up() {
    let theme = Theme::dark();
    let (mut transcript, _rx) = long_transcript(50);
    transcript.visible(100, 30, &theme, FLAGS);
    transcript.scroll(40);
    let before = lines_to_text(&transcript.visible(100, 30, &theme, FLAGS));
    assert_eq!(transcript.scroll_back, 40);
    transcript.push(CellKind::User("one\ntwo\nthree".into()));
    transcript.push(answer(50));
    let after = lines_to_text(&transcript.visible(100, 30, &theme, FLAGS));
    assert_eq!(after, before);
    // The user's three lines, its blank, and the new answer's 13 rows are below the view now.
    assert_eq!(transcript.scroll_back, 40 + 4 + 13);
    // PgUp past the top stops at the oldest line; End pins to the newest again.
    transcript.scroll(100_000);
    let top = transcript.visible(100, 30, &theme, FLAGS);
    assert!(lines_to_text(&top).starts_with("  Answer 0:"));
    transcript.scroll_to_bottom();
    let bottom = lines_to_text(&transcript.visible(100, 30, &theme, FLAGS));
    assert!(bottom.contains("value_50_9"), "{bottom}");
    assert_eq!(transcript.scroll_back, 0);
}

#[test]
fn a_new_width_renders_only_the_cells_it_shows() {
    let theme = Theme::dark();
    let (mut transcript, _rx) = long_transcript(500);
    transcript.scroll_to_top();
    transcript.visible(100, 30, &theme, FLAGS);
    assert_eq!(rendered(&transcript).0, 500);
    transcript.scroll_to_bottom();
    let narrow = transcript.visible(60, 30, &theme, FLAGS);
    assert!(lines_to_text(&narrow).contains("value_499_9"));
    let at_60 = transcript
        .cells
        .iter()
        .filter(|c| c.rendered_state().is_some_and(|(w, _)| w == 60))
        .count();
    assert!(at_60 <= 3, "{at_60} cells rendered at the new width");
    assert!(rendered(&transcript).1 <= 3);
}

#[tokio::test]
async fn a_resumed_answer_is_highlighted_by_the_worker_and_drawn_again() {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use tunacode_protocol::{Message, Part};

    let dir = tempfile::tempdir().unwrap();
    let (mut app, mut ch) = crate::app::view_tests::test_app(dir.path()).await;
    app.view.theme = Theme::dark();
    let answer = "Here:\n\n```rust\nfn main() {\n    let answer: u32 = 42;\n}\n```\n";
    app.replay(&[
        Message::user("show me"),
        Message::response(vec![Part::text(answer)]),
    ]);
    let mut terminal = Terminal::new(TestBackend::new(80, 20)).unwrap();
    let rgb_cells = |terminal: &Terminal<TestBackend>| {
        let buffer = terminal.backend().buffer();
        buffer
            .content()
            .iter()
            .filter(|c| matches!(c.fg, Color::Rgb(..)))
            .count()
    };
    terminal.draw(|f| app.draw(f)).unwrap();
    let plain = format!("{}", terminal.backend());
    assert!(plain.contains("let answer: u32 = 42;"), "{plain}");
    assert_eq!(rgb_cells(&terminal), 0, "drawn plain first: {plain}");
    // The worker's report comes through the app's channel like any background result.
    crate::app::view_tests::pump_until(&mut app, &mut ch, |a| {
        a.view.transcript.code.highlighted() >= 1
    })
    .await;
    terminal.draw(|f| app.draw(f)).unwrap();
    assert_eq!(format!("{}", terminal.backend()), plain, "the same text");
    assert!(rgb_cells(&terminal) > 10, "highlighted once drawn again");
}

#[test]
fn an_answer_highlighted_while_it_streamed_stays_highlighted_once_finished() {
    let theme = Theme::dark();
    let mut transcript = Transcript::default();
    let mut md = StreamingMarkdown::new();
    md.push("Here:\n\n```rust\nfn main() {\n    let answer: u32 = 42;\n}\n```\n");
    transcript.push(CellKind::Assistant(md));
    let streamed = transcript.visible(80, 20, &theme, FLAGS);
    assert!(colored(&streamed) >= 3, "{streamed:?}");
    // A tool call or a notice after it finishes the answer; its code is not highlighted again.
    transcript.push(CellKind::Info("next".into()));
    let finished = transcript.visible(80, 20, &theme, FLAGS);
    assert_eq!(colored(&finished), colored(&streamed), "{finished:?}");
    assert_eq!(transcript.code.highlighted() + transcript.code.queued(), 0);
}

#[tokio::test]
async fn home_from_the_bottom_shows_the_oldest_line_above_the_marker() {
    use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = crate::app::view_tests::test_app(dir.path()).await;
    app.view.transcript.clear();
    let text: Vec<String> = (1..=80).map(|i| format!("line {i}")).collect();
    app.view.transcript.push(CellKind::User(text.join("\n")));
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    terminal.draw(|f| app.draw(f)).unwrap();
    app.on_terminal_event(Event::Key(KeyEvent::new(KeyCode::Home, KeyModifiers::NONE)));
    terminal.draw(|f| app.draw(f)).unwrap();
    let screen = format!("{}", terminal.backend());
    let rows: Vec<&str> = screen.lines().collect();
    assert!(rows[0].contains("› line 1 "), "{screen}");
    // The transcript's 81 rows, 19 on screen above the marker row: 62 below.
    assert!(rows[19].contains("↓ 62 more lines (End)"), "{screen}");
}
