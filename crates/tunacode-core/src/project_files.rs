//! Reading the files that reach the model from a project (instruction files, skills, custom
//! commands) and from the user's own config folder, only when they are what they look like: a file or
//! folder is used only if its real path (symbolic links followed) stays inside the folder it was found
//! in (the repository root, or the working directory outside a repository; the user's config folder
//! for the user's own), is not in `/proc`, `/sys` or `/dev`, and a file is a regular file (never a
//! fifo, a device or a socket, which could block or have effects when opened). Anything else is
//! skipped with the reason, so a repository whose `AGENTS.md` links to `/proc/self/environ` or
//! `~/.ssh/id_rsa` cannot put them into the system prompt.

use std::fs::{File, Metadata};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The most of one file read (instruction files are cut further).
const MAX_READ_BYTES: u64 = 1024 * 1024;

/// Folders whose files are never project files, wherever a link points.
const SYSTEM_DIRS: [&str; 3] = ["/proc", "/sys", "/dev"];

/// A file or folder that was not read, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Where it was found.
    pub path: PathBuf,
    /// Why it was not read.
    pub reason: String,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} was not read: {}", self.path.display(), self.reason)
    }
}

impl Skipped {
    fn new(path: &Path, reason: impl Into<String>) -> Self {
        let skipped = Skipped {
            path: path.to_path_buf(),
            reason: reason.into(),
        };
        tracing::warn!("{skipped}");
        skipped
    }
}

/// The folder files found in `folder` must stay inside: its real path (`None` when it does not exist).
pub fn boundary(folder: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(folder).ok()
}

/// The real path of `path` when it stays inside `within` (a real path, from [`boundary`]) and out of
/// the system folders. `Ok(None)`: it does not exist.
pub fn resolve_inside(path: &Path, within: &Path) -> Result<Option<PathBuf>, Skipped> {
    let real = match std::fs::canonicalize(path) {
        Ok(real) => real,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // A link to nowhere is as absent as no file, unless it is a link.
            return match std::fs::symlink_metadata(path) {
                Ok(_) => Err(Skipped::new(path, "it is a link to nothing")),
                Err(_) => Ok(None),
            };
        }
        Err(e) => return Err(Skipped::new(path, format!("it cannot be resolved: {e}"))),
    };
    if let Some(system) = SYSTEM_DIRS.iter().find(|d| real.starts_with(d)) {
        return Err(Skipped::new(
            path,
            format!(
                "it resolves to {}, a system file under {system}",
                real.display()
            ),
        ));
    }
    let name = real.file_name().map(|n| n.to_string_lossy().into_owned());
    if name
        .as_deref()
        .is_some_and(tunacode_tools::is_secret_file_name)
    {
        return Err(Skipped::new(
            path,
            format!("it resolves to {}, a secrets file", real.display()),
        ));
    }
    if !real.starts_with(within) {
        return Err(Skipped::new(
            path,
            format!(
                "it resolves to {}, outside {}",
                real.display(),
                within.display()
            ),
        ));
    }
    Ok(Some(real))
}

/// The real path of the folder `dir` when it stays inside `within` (`Ok(None)`: no such folder).
pub fn folder_inside(dir: &Path, within: &Path) -> Result<Option<PathBuf>, Skipped> {
    let Some(real) = resolve_inside(dir, within)? else {
        return Ok(None);
    };
    if real.is_dir() {
        Ok(Some(real))
    } else {
        Err(Skipped::new(dir, "it is not a folder"))
    }
}

/// The text of the file `path` when it is a regular file staying inside `within` (at most 1 MiB;
/// `Ok(None)`: there is no such file).
pub fn read_inside(path: &Path, within: &Path) -> Result<Option<String>, Skipped> {
    let Some(real) = resolve_inside(path, within)? else {
        return Ok(None);
    };
    // Looked at before opening (opening a device can have effects), and again once open.
    let meta = std::fs::metadata(&real).map_err(|e| Skipped::new(path, e.to_string()))?;
    regular(path, &meta)?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(&real)
        .map_err(|e| Skipped::new(path, format!("it cannot be opened: {e}")))?;
    let meta = file
        .metadata()
        .map_err(|e| Skipped::new(path, e.to_string()))?;
    regular(path, &meta)?;
    read_text(path, file).map(Some)
}

fn regular(path: &Path, meta: &Metadata) -> Result<(), Skipped> {
    let kind = meta.file_type();
    let what = if kind.is_file() {
        return Ok(());
    } else if kind.is_dir() {
        "a folder"
    } else if kind.is_fifo() {
        "a fifo"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    };
    Err(Skipped::new(
        path,
        format!("it is {what}, not a regular file"),
    ))
}

fn read_text(path: &Path, file: File) -> Result<String, Skipped> {
    let mut bytes = Vec::new();
    file.take(MAX_READ_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| Skipped::new(path, format!("it cannot be read: {e}")))?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        // Cut in the middle of a character at the size limit.
        Err(e) if e.utf8_error().error_len().is_none() => {
            let valid = e.utf8_error().valid_up_to();
            let mut bytes = e.into_bytes();
            bytes.truncate(valid);
            Ok(String::from_utf8_lossy(&bytes).into_owned())
        }
        Err(_) => Err(Skipped::new(path, "it is not UTF-8 text")),
    }
}

#[cfg(test)]
#[path = "project_files_tests.rs"]
mod tests;
