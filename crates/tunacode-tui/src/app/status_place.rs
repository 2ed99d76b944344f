//! Where the session works, as the status line shows it: the working directory (with `~`) and
//! git branch, shortened to the room left (`…/parent/dir`, `…/dir`) before it drops.

use std::path::Path;

use unicode_width::UnicodeWidthStr;

/// The columns kept for the place before the minor segments: its `…/dir (branch)` form, at most
/// [`PLACE_RESERVE`]; `None` without a working directory.
pub(crate) fn place_reserve(cwd: &str, branch: Option<&str>) -> Option<usize> {
    if cwd.is_empty() {
        return None;
    }
    let branch = branch.map_or(0, |b| b.width() + 3);
    let dir = shortened_dirs(cwd)
        .last()
        .map_or(cwd.width(), |d| d.width());
    Some((dir + branch).min(PLACE_RESERVE))
}

/// The working directory and branch in at most `room` columns: the whole directory, else
/// `…/parent/dir`, else `…/dir`, then the same without the branch; `None` when not even `…/dir`
/// fits (a name cut to `…/pr…` tells nothing).
pub(crate) fn place(cwd: &str, branch: Option<&str>, room: usize) -> Option<String> {
    let branch = match branch {
        Some(b) => format!(" ({b})"),
        None => String::new(),
    };
    let mut forms = vec![cwd.to_string()];
    forms.extend(shortened_dirs(cwd));
    if let Some(dir) = forms.iter().find(|d| d.width() + branch.width() <= room) {
        return Some(format!("{dir}{branch}"));
    }
    forms.into_iter().find(|d| d.width() <= room)
}

/// Shorter forms of a directory: `…/parent/dir`, then `…/dir` (each only when it leaves something out).
pub(crate) fn shortened_dirs(dir: &str) -> Vec<String> {
    let parts: Vec<&str> = dir.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    [2, 1]
        .into_iter()
        .filter(|keep| parts.len() > *keep)
        .map(|keep| format!("…/{}", parts[parts.len() - keep..].join("/")))
        .collect()
}

/// The most columns the place keeps before the minor segments of the status line.
const PLACE_RESERVE: usize = 30;

/// The path with the home directory written as `~`.
pub fn short_path(path: &Path) -> String {
    let text = path.display().to_string();
    match std::env::var("HOME") {
        Ok(home) if !home.is_empty() && text.starts_with(&home) => {
            format!("~{}", &text[home.len()..])
        }
        _ => text,
    }
}

/// The current git branch of the repository containing `dir` (from `.git/HEAD`), if any.
pub fn git_branch(dir: &Path) -> Option<String> {
    let mut current = Some(dir);
    while let Some(d) = current {
        let head = d.join(".git").join("HEAD");
        if let Ok(text) = std::fs::read_to_string(&head) {
            let text = text.trim();
            return Some(match text.strip_prefix("ref: refs/heads/") {
                Some(branch) => branch.to_string(),
                None => text.chars().take(8).collect(),
            });
        }
        current = d.parent();
    }
    None
}
