//! The hunks of a unified diff, as a hunk-by-hunk review shows and picks them: a call's preview (one
//! diff per file, in order) is split into hunks numbered from 0 across its files, which is how an
//! answer names the hunks it accepts. Written by hand: the diff crates of the field make diffs, none
//! splits a multi-file unified diff back into numbered hunks with their file.

use serde::{Deserialize, Serialize};

/// One hunk of a preview: its file and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffHunk {
    /// The file as its `+++` header names it (`/dev/null` for a deletion: then the `---` one's).
    pub file: String,
    /// The file's `---`/`+++` header lines, a newline after each.
    pub file_header: String,
    /// The hunk: its `@@` line and its lines, a newline after each.
    pub text: String,
}

impl DiffHunk {
    /// The hunk as a diff of its own (its file's header, then the hunk).
    pub fn as_diff(&self) -> String {
        format!("{}{}", self.file_header, self.text)
    }
}

/// Which hunks of an edit the user accepted, as an answer to its approval: only those are written.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct HunkSelection {
    /// The 0-based indices of the accepted hunks of the preview.
    pub accepted: Vec<usize>,
    /// Hunks the user rewrote: written as they left them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edited: Vec<EditedHunk>,
    /// What the user wants the model to know (why a hunk was rejected).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A hunk the user rewrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditedHunk {
    /// The hunk's 0-based index in the preview.
    pub index: usize,
    /// What replaces the hunk's old lines (its new side as the user wants it).
    pub text: String,
}

impl HunkSelection {
    /// How hunk `index` is to be written.
    pub fn verdict(&self, index: usize) -> HunkVerdict<'_> {
        if let Some(edit) = self.edited.iter().find(|e| e.index == index) {
            return HunkVerdict::Edited(&edit.text);
        }
        if self.accepted.contains(&index) {
            HunkVerdict::Accepted
        } else {
            HunkVerdict::Rejected
        }
    }

    /// Whether nothing at all is to be written.
    pub fn writes_nothing(&self) -> bool {
        self.accepted.is_empty() && self.edited.is_empty()
    }

    /// The first index that is not a hunk of a preview with `hunks` hunks, if any.
    pub fn out_of_range(&self, hunks: usize) -> Option<usize> {
        self.accepted
            .iter()
            .copied()
            .chain(self.edited.iter().map(|e| e.index))
            .find(|&i| i >= hunks)
    }
}

/// How one hunk is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HunkVerdict<'a> {
    /// As the model wrote it.
    Accepted,
    /// Not at all: the old lines stay.
    Rejected,
    /// As the user rewrote it.
    Edited(&'a str),
}

/// The hunks of `diff`, in order.
pub fn diff_hunks(diff: &str) -> Vec<DiffHunk> {
    let mut hunks = Vec::new();
    let mut header = String::new();
    let (mut old_file, mut file) = (String::new(), String::new());
    // Lines left in the current hunk, by side: a `--- ` or `+++ ` inside a hunk is content.
    let (mut old_left, mut new_left) = (0usize, 0usize);
    let mut current: Option<DiffHunk> = None;
    for line in diff.split_inclusive('\n') {
        let in_hunk = old_left > 0 || new_left > 0;
        if !in_hunk && let Some(name) = line.strip_prefix("--- ") {
            hunks.extend(current.take());
            old_file = name.trim_end().to_string();
            header = line.to_string();
            continue;
        }
        if !in_hunk && let Some(name) = line.strip_prefix("+++ ") {
            file = name.trim_end().to_string();
            if file == "/dev/null" {
                file = old_file.clone();
            }
            header.push_str(line);
            continue;
        }
        if !in_hunk && line.starts_with("@@") {
            hunks.extend(current.take());
            (old_left, new_left) = hunk_sizes(line);
            current = Some(DiffHunk {
                file: strip_side(&file),
                file_header: header.clone(),
                text: line.to_string(),
            });
            continue;
        }
        let Some(hunk) = current.as_mut() else {
            continue;
        };
        hunk.text.push_str(line);
        match line.as_bytes().first() {
            Some(b' ') => {
                old_left = old_left.saturating_sub(1);
                new_left = new_left.saturating_sub(1);
            }
            Some(b'-') => old_left = old_left.saturating_sub(1),
            Some(b'+') => new_left = new_left.saturating_sub(1),
            _ => {}
        }
    }
    hunks.extend(current);
    hunks
}

/// The line counts of a `@@ -a,b +c,d @@` line (a missing count is 1).
fn hunk_sizes(line: &str) -> (usize, usize) {
    let mut sizes = line.split_whitespace().skip(1).take(2).map(|range| {
        match range.get(1..).unwrap_or("").split_once(',') {
            Some((_, count)) => count.parse().unwrap_or(0),
            None => 1,
        }
    });
    (sizes.next().unwrap_or(0), sizes.next().unwrap_or(0))
}

/// `b/src/a.rs` → `src/a.rs` (the `a/`/`b/` of a diff header).
fn strip_side(file: &str) -> String {
    file.strip_prefix("a/")
        .or_else(|| file.strip_prefix("b/"))
        .unwrap_or(file)
        .to_string()
}

/// The new side of `edited`, a hunk the user changed as `git add -p` lets them: lines starting with
/// ` ` or `+` are kept (without that mark), `-` lines dropped, `#` lines are comments. Its old side
/// (the ` ` and `-` lines) must still be `original`'s, so it replaces exactly the lines it shows.
pub fn edited_hunk_text(original: &DiffHunk, edited: &str) -> Result<String, String> {
    // An editor may strip a blank context line's space: an empty line is a blank context line.
    let old_side = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.starts_with("@@") && !l.starts_with('\\'))
            .filter(|l| l.is_empty() || l.starts_with(' ') || l.starts_with('-'))
            .map(|l| l.get(1..).unwrap_or("").to_string())
            .collect()
    };
    // The file's `---`/`+++` header, when the hunk was shown with it, is not part of the hunk.
    let from_hunk = match edited.find("@@") {
        Some(at)
            if edited[..at]
                .lines()
                .all(|l| l.starts_with("--- ") || l.starts_with("+++ ") || l.starts_with('#')) =>
        {
            &edited[at..]
        }
        _ => edited,
    };
    let edited_body: String = from_hunk
        .split_inclusive('\n')
        .filter(|l| !l.starts_with('#'))
        .collect();
    if old_side(&edited_body) != old_side(&original.text) {
        return Err(
            "the edited hunk changes its context or removed lines; only `+` lines (and \
                    which `-` lines become ` `) may change"
                .into(),
        );
    }
    let mut new_side = String::new();
    for line in edited_body.split_inclusive('\n') {
        if line.starts_with("@@") || line.starts_with('\\') {
            continue;
        }
        if let Some(rest) = line.strip_prefix(' ').or_else(|| line.strip_prefix('+')) {
            new_side.push_str(rest);
        } else if line.trim_end().is_empty() && !line.starts_with('-') {
            new_side.push('\n');
        }
    }
    Ok(new_side)
}

#[cfg(test)]
#[path = "diff_hunks_tests.rs"]
mod tests;
