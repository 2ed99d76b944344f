use super::*;
use crate::complete::commands::{CommandInfo, complete_commands};
use pretty_assertions::assert_eq;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn text_of(buf: &Buffer) -> String {
    let area = buf.area;
    (area.y..area.y + area.height)
        .map(|y| {
            (area.x..area.x + area.width)
                .map(|x| buf[(x, y)].symbol())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn draw(popup: &CompletionPopup, width: u16, theme: &Theme) -> Buffer {
    let height = popup.height().max(1);
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| popup.render(frame.area(), frame.buffer_mut(), theme))
        .unwrap();
    terminal.backend().buffer().clone()
}

fn files(paths: &[&str]) -> CompletionPopup {
    CompletionPopup::from_files(
        &paths
            .iter()
            .map(|p| FileMatch {
                path: p.to_string(),
                score: 0,
                indices: Vec::new(),
            })
            .collect::<Vec<_>>(),
    )
}

const COMMANDS: [CommandInfo; 3] = [
    CommandInfo::builtin("model", "[name]", "Show or switch the model"),
    CommandInfo::builtin("thoughts", "", "Toggle reasoning display"),
    CommandInfo::builtin("theme", "[name]", "Switch the theme"),
];

#[test]
fn commands_popup_with_details_and_highlights() {
    let theme = Theme::dark();
    let mut popup = CompletionPopup::from_commands(&complete_commands(&COMMANDS, "th"));
    popup.select_next();
    let buf = draw(&popup, 44, &theme);
    insta::assert_snapshot!(text_of(&buf));
    // Row 2 (the second item) is selected: its whole inner width takes the selected style.
    for x in 1..43 {
        assert_eq!(buf[(x, 2)].bg, theme.selected.bg.unwrap(), "x={x}");
    }
    assert_eq!(buf[(1, 1)].bg, ratatui::style::Color::Reset);
    // `/th` of the unselected first row is highlighted in the accent color, `o` is not.
    assert_eq!(buf[(3, 1)].fg, theme.accent.fg.unwrap());
    assert_eq!(buf[(4, 1)].fg, theme.accent.fg.unwrap());
    assert_eq!(buf[(5, 1)].fg, theme.text.fg.unwrap());
    // The detail of an unselected row is muted; on the selected row matched chars are bold.
    assert_eq!(buf[(41, 1)].fg, theme.muted.fg.unwrap());
    assert!(buf[(3, 2)].modifier.contains(Modifier::BOLD));
    assert!(!buf[(5, 2)].modifier.contains(Modifier::BOLD));
}

#[test]
fn long_lists_scroll_to_keep_the_selection_visible() {
    let paths: Vec<String> = (0..12).map(|i| format!("src/file_{i:02}.rs")).collect();
    let mut popup = files(&paths.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(popup.height(), 10);
    for _ in 0..10 {
        popup.select_next();
    }
    let buf = draw(&popup, 24, &Theme::dark());
    insta::assert_snapshot!(text_of(&buf));
    // The selection (item 10) is the last visible row.
    assert_eq!(buf[(2, 8)].bg, Theme::dark().selected.bg.unwrap());
}

#[test]
fn narrow_popups_cut_the_detail_then_the_start_of_the_label() {
    let theme = Theme::plain();
    let mut popup = files(&["crates/tunacode-tui/src/complete/popup.rs", "a.rs"]);
    popup.items[1].detail = "a long description".into();
    let buf = draw(&popup, 20, &theme);
    insta::assert_snapshot!(text_of(&buf));
    assert!(buf[(1, 1)].modifier.contains(Modifier::REVERSED));
}

#[test]
fn selection_wraps_both_ways() {
    let mut popup = files(&["a", "b", "c"]);
    popup.select_prev();
    assert_eq!(popup.selected, 2);
    popup.select_next();
    assert_eq!(popup.selected, 0);
    assert_eq!(popup.selected_item().unwrap().value, "a");
    let mut empty = CompletionPopup::default();
    empty.select_next();
    empty.select_prev();
    assert_eq!((empty.selected, empty.height()), (0, 0));
    assert!(empty.selected_item().is_none());
}

#[test]
fn items_carry_the_value_to_insert() {
    let popup = CompletionPopup::from_commands(&complete_commands(&COMMANDS, "mo"));
    let item = popup.selected_item().unwrap();
    assert_eq!(item.label, "/model [name]");
    assert_eq!(item.value, "model");
    assert_eq!(item.highlight, [1, 2]);
    assert_eq!(popup.preferred_width(), 13 + 2 + 24 + 4);
}
