//! End-to-end under tmux: an edit reviewed hunk by hunk in the approval dialog. Accepting 2 of 3
//! hunks writes exactly those and the model's next request names the rejected one with the user's
//! note; a hunk rewritten in `$VISUAL` (a real editor run on the real terminal) is written as the
//! user left it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use serde_json::json;
use tunacode_testkit::{FakeProvider, TestEnv, Turn};

const WAIT: Duration = Duration::from_secs(20);

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

#[test]
fn hunks_accepted_rejected_and_rewritten_in_the_editor_are_written_as_the_user_chose() {
    let env = TestEnv::new().unwrap();
    let old = numbered(40);
    std::fs::write(env.workspace().join("notes.txt"), &old).unwrap();
    let patch = "*** Begin Patch\n*** Update File: notes.txt\n@@\n line 1\n-line 2\n+line TWO\n line 3\n@@\n line 19\n-line 20\n+line TWENTY\n line 21\n@@\n line 37\n-line 38\n+line THIRTY-EIGHT\n line 39\n*** End Patch\n";
    let update =
        json!({"file_path": "notes.txt", "target": "line 10\n", "replacement": "line TEN\n"});
    let fake = FakeProvider::start(vec![
        Turn::tool_calls(&[("p1", "apply_patch", &json!({ "input": patch }).to_string())]),
        Turn::text("Noted the rejected hunk."),
        Turn::tool_calls(&[("u1", "update_file", &update.to_string())]),
        Turn::text("Done."),
    ]);
    common::write_local_config(&env, &fake, json!({}));
    // The "editor": rewrites the hunk's added line in the file it is given.
    let editor = env.workspace().parent().unwrap().join("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nsed -i 's/^+line TEN$/+line 10, as the user wants it/' \"$1\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    let editor = editor.display().to_string();
    let tmux = common::tmux_start_with(&env, &[("VISUAL", &editor)], "", (100, 32));
    tmux.wait_for_text("local:test-model", WAIT).unwrap();
    tmux.type_text("rename three lines").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for("the approval with its review choice", WAIT, |s| {
        s.contains("Allow apply_patch?") && s.contains("Review hunk by hunk (3 hunks)")
    })
    .unwrap();
    tmux.keys(&["r"]).unwrap();
    tmux.wait_for_text("Hunk 1 of 3", WAIT).unwrap();
    tmux.keys(&["y"]).unwrap();
    tmux.wait_for_text("Hunk 2 of 3", WAIT).unwrap();
    tmux.keys(&["n"]).unwrap();
    tmux.wait_for_text("Hunk 3 of 3", WAIT).unwrap();
    tmux.keys(&["y"]).unwrap();
    tmux.wait_for_text("Enter write the accepted hunks", WAIT)
        .unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for_text("Why were hunks rejected?", WAIT)
        .unwrap();
    tmux.type_text("line 20 stays").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for_text("Noted the rejected hunk.", WAIT)
        .unwrap();
    let written = old
        .replace("line 2\n", "line TWO\n")
        .replace("line 38\n", "line THIRTY-EIGHT\n");
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("notes.txt")).unwrap(),
        written
    );
    let second = fake.requests()[1].raw_body.clone();
    assert!(second.contains("Rejected and NOT written"), "{second}");
    assert!(
        second.contains("+line TWENTY") && second.contains("line 20 stays"),
        "{second}"
    );

    // A hunk rewritten in the editor.
    tmux.type_text("now line 10").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for_text("Review the hunk (accept, reject or edit it)", WAIT)
        .unwrap();
    tmux.keys(&["r"]).unwrap();
    tmux.wait_for_text("Hunk 1 of 1", WAIT).unwrap();
    tmux.keys(&["e"]).unwrap();
    tmux.wait_for_text("Hunk 1 of 1 · notes.txt · rewritten", WAIT)
        .unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for_text("Done.", WAIT).unwrap();
    let now = std::fs::read_to_string(env.workspace().join("notes.txt")).unwrap();
    assert_eq!(
        now,
        written.replace("line 10\n", "line 10, as the user wants it\n")
    );
    assert!(
        fake.requests()[3]
            .raw_body
            .contains("Written as the user rewrote them")
    );
    tmux.keys(&["C-c", "C-c"]).unwrap();
    assert_eq!(tmux.wait_exit(WAIT).unwrap(), 0);
}

/// A 1×1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
    0x42, 0x60, 0x82,
];

#[test]
fn an_image_mentioned_or_its_path_pasted_reaches_the_provider_as_an_image_part() {
    let env = TestEnv::new().unwrap();
    std::fs::write(env.workspace().join("shot.png"), PNG).unwrap();
    let fake = FakeProvider::start(vec![Turn::text("A dot."), Turn::text("The same dot.")]);
    common::write_local_config(&env, &fake, json!({}));
    let tmux = common::tmux_start_with(&env, &[], "", (100, 30));
    tmux.wait_for_text("local:test-model", WAIT).unwrap();
    // The space after the mention ends it (and closes the file completion).
    tmux.type_text("describe @shot.png please").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for_text("A dot.", WAIT).unwrap();
    tmux.wait_for_text("attached shot.png", WAIT).unwrap();
    let image_parts = |i: usize| {
        fake.requests()[i].body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
            .filter(|p| p["type"] == "image_url")
            .count()
    };
    assert_eq!(image_parts(0), 1);
    // A dropped file's path, pasted: it becomes the mention.
    let path = env.workspace().join("shot.png").display().to_string();
    tmux.type_text("and this: ").unwrap();
    tmux.paste(&path).unwrap();
    tmux.wait_for_text("and this: @shot.png", WAIT).unwrap();
    tmux.type_text("too").unwrap();
    tmux.keys(&["Enter"]).unwrap();
    tmux.wait_for_text("The same dot.", WAIT).unwrap();
    assert_eq!(image_parts(1), 2, "the first prompt's image and this one's");
    tmux.keys(&["C-c", "C-c"]).unwrap();
    assert_eq!(tmux.wait_exit(WAIT).unwrap(), 0);
}
