//! Rewind in the terminal: Esc Esc on an empty input (or `/rewind`) lists this session's prompts
//! with their time and the files each changed; picking one asks what goes back (conversation and
//! files, the conversation only, the files only). The runtime rewinds; its report is shown and the
//! rewound prompt's text comes back into the input, to edit and send again.

use std::time::{Duration, Instant};

use tunacode_core::Op;
use tunacode_protocol::NoticeLevel;
use tunacode_protocol::runtime::{RewindMode, Rewound, TurnView};

use crate::app::picker::{Picker, PickerItem, PickerKind};
use crate::app::state::App;
use crate::app::transcript::CellKind;

/// How soon a second Esc must follow the first to open the picker.
const DOUBLE_ESC: Duration = Duration::from_millis(800);

impl App {
    /// Esc with nothing running: the second within [`DOUBLE_ESC`] on an empty input opens the
    /// rewind picker (`both`: the terminal sent the two at once, read as Alt+Esc).
    pub(crate) fn on_idle_esc(&mut self, both: bool) {
        if !self.input.editor.is_empty() {
            self.mirror.last_esc = None;
            return;
        }
        let now = Instant::now();
        match self.mirror.last_esc.take() {
            _ if both => self.ask_turns(),
            Some(first) if now.duration_since(first) <= DOUBLE_ESC => self.ask_turns(),
            _ => {
                self.mirror.last_esc = Some(now);
                self.input.hint = Some("Esc again: rewind to an earlier prompt".into());
            }
        }
    }

    /// Asks the runtime for the prompts; the picker opens when they come.
    pub(crate) fn ask_turns(&mut self) {
        self.input.hint = None;
        self.mirror.rewind_asked = true;
        self.submit_op(Op::ListTurns);
    }

    /// The prompts came: the picker, newest first.
    pub(crate) fn on_turns(&mut self, turns: Vec<TurnView>) {
        if !std::mem::take(&mut self.mirror.rewind_asked) {
            return;
        }
        if turns.is_empty() {
            self.view.transcript.push(CellKind::Info(
                "No prompt to rewind to yet in this session.".into(),
            ));
            return;
        }
        let items = turns.into_iter().rev().map(turn_item).collect();
        self.overlays.picker = Some(Picker::new(
            PickerKind::Rewind,
            "Rewind to before a prompt",
            items,
        ));
    }

    /// A prompt was picked: what goes back.
    pub(crate) fn on_rewind_prompt_picked(&mut self, number: &str) {
        let items = [
            (
                "all",
                "Conversation and files",
                "both go back to before the prompt",
            ),
            (
                "conversation",
                "Conversation only",
                "the files stay as they are",
            ),
            ("code", "Files only", "the conversation stays as it is"),
        ]
        .into_iter()
        .map(|(mode, label, detail)| PickerItem {
            id: format!("{number} {mode}"),
            label: label.to_string(),
            detail: format!("  {detail}"),
            preview: None,
        })
        .collect();
        let title = format!("Rewind to before prompt {number}");
        self.overlays.picker = Some(Picker::new(PickerKind::RewindMode, &title, items));
    }

    /// What goes back was picked (`"<number> <mode>"`).
    pub(crate) fn on_rewind_mode_picked(&mut self, choice: &str) {
        let mut words = choice.split(' ');
        let to = words.next().and_then(|n| n.parse().ok());
        let mode = words.next().and_then(RewindMode::parse);
        if let (Some(to), Some(mode)) = (to, mode) {
            self.submit_rewind(Op::Rewind { to, mode });
        }
    }

    /// Sends a rewind, redo, undo or fork; the session it opens again is not announced as resumed.
    pub(crate) fn submit_rewind(&mut self, op: Op) {
        self.mirror.quiet_reopen = true;
        self.submit_op(op);
    }

    /// A rewind, undo or redo was done: its report, and the prompt back in the input.
    pub(crate) fn on_rewound(&mut self, rewound: Rewound) {
        self.mirror.quiet_reopen = false;
        self.view
            .transcript
            .push(CellKind::Notice(NoticeLevel::Info, rewound.describe()));
        if !rewound.text.is_empty() && self.input.editor.is_empty() {
            self.input.set_text(&rewound.text, &self.view.theme);
        }
    }
}

/// A prompt as a picker row (its number, first line and time; the preview beside it has the whole
/// prompt and the files it changed).
fn turn_item(turn: TurnView) -> PickerItem {
    let first = turn.text.lines().next().unwrap_or("").to_string();
    let mut preview = format!("{}\n\n{}\n", turn.text, turn.time);
    if !turn.in_conversation {
        preview.push_str("Compacted into a summary: only its files can be rewound.\n");
    }
    if turn.files.is_empty() {
        preview.push_str("Changed no file.");
    } else {
        preview.push_str(&format!("Changed {} file(s):\n", turn.files.len()));
        for file in &turn.files {
            preview.push_str(&format!("  {file}\n"));
        }
    }
    PickerItem {
        id: turn.number.to_string(),
        label: format!("{:>3}. {first}", turn.number),
        detail: format!("  {}", short_time(&turn.time)),
        preview: Some(preview),
    }
}

/// `2026-11-26T10:04:05Z` as `11-26 10:04`.
fn short_time(time: &str) -> String {
    match (time.get(5..10), time.get(11..16)) {
        (Some(day), Some(clock)) => format!("{day} {clock}"),
        _ => time.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use insta::assert_snapshot;
    use tunacode_protocol::runtime::{RewindMode, Rewound, TurnView, UndoneFile};

    use crate::app::view_tests::{draw, test_app};

    fn turn(number: usize, text: &str, files: &[&str], in_conversation: bool) -> TurnView {
        TurnView {
            number,
            text: text.into(),
            time: format!("2026-11-26T10:0{number}:00Z"),
            files: files.iter().map(|f| f.to_string()).collect(),
            in_conversation,
        }
    }

    #[tokio::test]
    async fn the_picker_lists_prompts_newest_first_then_asks_what_goes_back() {
        let dir = tempfile::tempdir().unwrap();
        let (mut app, _channels) = test_app(dir.path()).await;
        app.on_turns(vec![turn(1, "add a parser", &["src/parse.rs"], true)]);
        assert!(
            app.overlays.picker.is_none(),
            "only a list asked for opens it"
        );
        app.mirror.rewind_asked = true;
        app.on_turns(vec![
            turn(1, "add a parser", &["src/parse.rs", "src/lib.rs"], false),
            turn(2, "explain the lexer", &[], true),
            turn(
                3,
                "fix the failing test\nit is in tests/",
                &["tests/lex.rs"],
                true,
            ),
        ]);
        assert_snapshot!("rewind_picker_100x20", draw(&mut app, 100, 20));
        app.overlays.picker = None;
        app.on_rewind_prompt_picked("3");
        assert_snapshot!("rewind_mode_picker_100x14", draw(&mut app, 100, 14));
    }

    #[tokio::test]
    async fn a_rewind_puts_the_prompt_back_in_the_input_and_says_what_it_did() {
        let dir = tempfile::tempdir().unwrap();
        let (mut app, _channels) = test_app(dir.path()).await;
        app.on_rewound(Rewound {
            kind: "rewind".into(),
            prompt: 3,
            mode: RewindMode::All,
            text: "fix the failing test".into(),
            files: vec![UndoneFile {
                path: "tests/lex.rs".into(),
                action: "restored".into(),
            }],
            kept: vec!["src/lib.rs".into()],
            messages_dropped: 6,
            ..Rewound::default()
        });
        assert_eq!(app.input.text(), "fix the failing test");
        assert_snapshot!("rewound_report_100x16", draw(&mut app, 100, 16));
    }
}
