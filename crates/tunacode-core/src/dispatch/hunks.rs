//! What the model is told after the user reviewed an edit hunk by hunk: which hunks were written,
//! which were rewritten by the user, and the text of each rejected hunk with the user's note, so it
//! does not write them again.

use tunacode_protocol::{HunkSelection, HunkVerdict, diff_hunks};

/// The longest rejected hunk quoted to the model (lines); a longer one is cut with a note.
const MAX_QUOTED_LINES: usize = 40;

/// The note on a call written in part: `reviewed` is the preview the indices refer to.
pub(super) fn review_note(reviewed: &str, selection: &HunkSelection) -> String {
    let hunks = diff_hunks(reviewed);
    let total = hunks.len();
    let (mut written, mut rewritten, mut rejected) = (Vec::new(), Vec::new(), Vec::new());
    for (i, hunk) in hunks.iter().enumerate() {
        match selection.verdict(i) {
            HunkVerdict::Accepted => written.push((i + 1).to_string()),
            HunkVerdict::Edited(_) => rewritten.push((i + 1).to_string()),
            HunkVerdict::Rejected => rejected.push((i + 1, hunk)),
        }
    }
    let mut note = format!(
        "The user reviewed this edit hunk by hunk (hunks numbered from 1, {total} in all). \
         Written as you wrote them: {}.",
        listed(&written)
    );
    if !rewritten.is_empty() {
        note.push_str(&format!(
            " Written as the user rewrote them (read the file to see them): {}.",
            rewritten.join(", ")
        ));
    }
    if !rejected.is_empty() {
        note.push_str(
            "\nRejected and NOT written; do not make these changes again unless the user asks:",
        );
        for (n, hunk) in rejected {
            note.push_str(&format!(
                "\n[hunk {n}, {}]\n{}",
                hunk.file,
                quoted(&hunk.text)
            ));
        }
    }
    if let Some(said) = selection.note.as_deref().filter(|n| !n.trim().is_empty()) {
        note.push_str(&format!("\nThe user's note: {said}"));
    }
    note
}

fn listed(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

/// A hunk's text, cut at [`MAX_QUOTED_LINES`].
fn quoted(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= MAX_QUOTED_LINES {
        return text.trim_end().to_string();
    }
    format!(
        "{}\n[… {} more lines]",
        lines[..MAX_QUOTED_LINES].join("\n"),
        lines.len() - MAX_QUOTED_LINES
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tunacode_protocol::EditedHunk;

    #[test]
    fn the_model_is_told_what_was_written_and_shown_what_was_rejected_with_the_note() {
        let reviewed = "--- a/a.rs\n+++ b/a.rs\n@@ -1,2 +1,2 @@\n x\n-1\n+2\n@@ -9,2 +9,2 @@\n y\n-3\n+4\n@@ -20,1 +20,1 @@\n-5\n+6\n";
        let selection = HunkSelection {
            accepted: vec![0],
            edited: vec![EditedHunk {
                index: 2,
                text: "7\n".into(),
            }],
            note: Some("keep 3, it is load-bearing".into()),
        };
        let note = review_note(reviewed, &selection);
        assert!(
            note.contains("3 in all). Written as you wrote them: 1."),
            "{note}"
        );
        assert!(
            note.contains("rewrote them (read the file to see them): 3."),
            "{note}"
        );
        assert!(
            note.contains("[hunk 2, a.rs]\n@@ -9,2 +9,2 @@\n y\n-3\n+4"),
            "{note}"
        );
        assert!(
            note.ends_with("The user's note: keep 3, it is load-bearing"),
            "{note}"
        );
    }
}
