//! An image pasted from the clipboard (Ctrl+V). A terminal passes only text through a paste, so the
//! image is read with the desktop's clipboard tool (`wl-paste` on Wayland, `xclip` on X11,
//! `pngpaste` on macOS), written to a private file in TunaCode's data folder, and sent with the next
//! message as an image. Runs off the event loop.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The clipboard tools tried, in order, with the arguments that print a PNG image.
const TOOLS: [(&str, &[&str]); 3] = [
    ("wl-paste", &["--no-newline", "--type", "image/png"]),
    (
        "xclip",
        &["-selection", "clipboard", "-t", "image/png", "-o"],
    ),
    ("pngpaste", &["-"]),
];

/// Reads an image from the clipboard into a new file in `dir` (blocks).
pub(crate) fn paste_image(dir: &Path) -> Result<PathBuf, String> {
    paste_image_with(&TOOLS, dir)
}

fn paste_image_with(tools: &[(&str, &[&str])], dir: &Path) -> Result<PathBuf, String> {
    let image = tools.iter().find_map(|(program, args)| {
        let out = Command::new(program)
            .args(*args)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()?;
        (out.status.success() && tunacode_core::prompt_images::sniff(&out.stdout).is_some())
            .then_some(out.stdout)
    });
    let Some(image) = image else {
        return Err(
            "No image in the clipboard (reading one needs wl-paste, xclip or pngpaste)".into(),
        );
    };
    save(dir, &image).map_err(|e| format!("The pasted image could not be kept: {e}"))
}

/// Writes `bytes` to a new private file (0600, in a 0700 folder).
fn save(dir: &Path, bytes: &[u8]) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros());
    let path = dir.join(format!("paste-{stamp}.png"));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)?;
    file.write_all(bytes)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_tool_that_gives_an_image_is_used_and_kept_privately() {
        let dir = tempfile::tempdir().unwrap();
        let png = r"printf '\211PNG\r\n\032\n0000'";
        let tools: [(&str, &[&str]); 3] = [
            ("tunacode-no-such-clipboard-tool", &[]),
            ("sh", &["-c", "printf 'just text'"]),
            ("sh", &["-c", png]),
        ];
        let path = paste_image_with(&tools, dir.path()).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.starts_with(b"\x89PNG"));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let none: [(&str, &[&str]); 1] = [("sh", &["-c", "printf text"])];
        assert!(
            paste_image_with(&none, dir.path())
                .unwrap_err()
                .contains("No image")
        );
    }
}
