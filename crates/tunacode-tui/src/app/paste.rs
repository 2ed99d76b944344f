//! A pasted image path (what a terminal pastes when a screenshot file is dropped on it) becomes an
//! `@` mention, which the runtime sends as an image. Decided on the text alone (no file is read on
//! the event loop): the runtime checks the file's bytes when the message goes.

use std::path::{Component, Path};

/// The file name endings taken for images.
const IMAGE_ENDINGS: [&str; 5] = [".png", ".jpg", ".jpeg", ".gif", ".webp"];

/// The mention for `pasted` when it is one path to an image inside `cwd`; `None` otherwise.
pub(crate) fn image_mention(pasted: &str, cwd: &Path) -> Option<String> {
    let one = pasted.trim();
    if one.contains('\n') {
        return None;
    }
    let unquoted = one.trim_matches(|c| c == '\'' || c == '"');
    let path = unquoted
        .strip_prefix("file://")
        .unwrap_or(unquoted)
        .replace("\\ ", " ");
    let lower = path.to_ascii_lowercase();
    if !IMAGE_ENDINGS.iter().any(|e| lower.ends_with(e)) {
        return None;
    }
    let path = Path::new(&path);
    let relative = if path.is_absolute() {
        path.strip_prefix(cwd).ok()?
    } else {
        path
    };
    // A mention names a plain path below the workspace, with no space in it.
    let plain = relative
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    let text = relative.to_str()?;
    (plain && !text.is_empty() && !text.contains(char::is_whitespace)).then(|| format!("@{text} "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pasted_image_path_in_the_workspace_becomes_a_mention() {
        let cwd = Path::new("/home/me/proj");
        assert_eq!(
            image_mention("/home/me/proj/shots/a.png\n", cwd).as_deref(),
            Some("@shots/a.png ")
        );
        assert_eq!(
            image_mention("'file:///home/me/proj/b.JPG'", cwd).as_deref(),
            Some("@b.JPG ")
        );
        assert_eq!(image_mention("c.webp", cwd).as_deref(), Some("@c.webp "));
        assert_eq!(image_mention("/elsewhere/a.png", cwd), None);
        assert_eq!(image_mention("/home/me/proj/../x.png", cwd), None);
        assert_eq!(image_mention("/home/me/proj/my shot.png", cwd), None);
        assert_eq!(image_mention("notes.txt", cwd), None);
        assert_eq!(image_mention("a.png\nb.png", cwd), None);
    }
}
