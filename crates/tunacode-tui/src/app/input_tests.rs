//! The input with a lot in it: a big paste is a placeholder sent as the whole text, and completion
//! reads only the cursor's line (an `@` on a later line completes in place).

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

use crate::app::view_tests::test_app;
use crate::complete::FileIndex;

fn key(code: KeyCode) -> Event {
    Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

#[tokio::test]
async fn a_big_paste_shows_as_a_placeholder_and_is_sent_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    let big = "fn main() { println!(\"hi\"); }\r\n".repeat(100);
    app.on_terminal_event(Event::Paste(big.clone()));
    for c in " please".chars() {
        app.on_terminal_event(key(KeyCode::Char(c)));
    }
    assert_eq!(
        app.input.text(),
        "[Pasted text #1: 100 lines, 2.9 KB] please",
        "the editor holds one short line"
    );
    let sent = app.input.take_text(&app.view.theme);
    assert_eq!(sent, format!("{} please", big.replace("\r\n", "\n")));
    assert_eq!(
        app.input.full_text(),
        "",
        "nothing kept for the next message"
    );
}

#[tokio::test]
async fn an_at_mention_on_a_later_line_completes_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    app.input
        .files
        .set(FileIndex::from_entries(["src/parser.rs".to_string()]));
    app.input.set_text("first line\nsee @pars", &app.view.theme);
    app.update_completion();
    assert!(app.input.popup.is_some(), "the mention on line 2 completes");
    app.on_terminal_event(key(KeyCode::Tab));
    assert_eq!(app.input.text(), "first line\nsee @src/parser.rs ");
    // A `/` on a later line is text, not a command.
    app.input.set_text("hello\n/mod", &app.view.theme);
    app.update_completion();
    assert!(app.input.popup.is_none());
}
