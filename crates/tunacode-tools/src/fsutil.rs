//! File-system helpers: I/O error mapping and atomic replacement of a file's contents.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::tool::ToolError;

/// Maps an I/O error on `shown` to the policy: what the model can fix is a retry, the rest is transient.
pub(crate) fn io_error(shown: &str, err: std::io::Error) -> ToolError {
    use std::io::ErrorKind;
    match err.kind() {
        ErrorKind::NotFound => ToolError::Retry(format!("`{shown}` does not exist")),
        ErrorKind::PermissionDenied => ToolError::Retry(format!("permission denied: `{shown}`")),
        ErrorKind::NotADirectory => {
            ToolError::Retry(format!("a parent of `{shown}` is not a directory"))
        }
        ErrorKind::IsADirectory => ToolError::Retry(format!("`{shown}` is a directory")),
        _ => ToolError::Transient(format!("`{shown}`: {err}")),
    }
}

/// A failed background task (panicked or aborted) as a tool error.
pub(crate) fn join_error(err: tokio::task::JoinError) -> ToolError {
    ToolError::Fatal(format!("internal error in a background task: {err}"))
}

/// Replaces the contents of the existing file at `path` atomically: writes a temporary file in the same
/// directory with the original permissions, syncs it, then renames it over the original. Symbolic links
/// are followed, so the link itself stays in place.
pub(crate) fn write_atomically(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let target = std::fs::canonicalize(path)?;
    let permissions = std::fs::metadata(&target)?.permissions();
    let dir = target
        .parent()
        .ok_or_else(|| std::io::Error::other("the file has no parent directory"))?;
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(
        ".{name}.tunacode-{}-{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        file.write_all(contents)?;
        file.set_permissions(permissions)?;
        file.sync_all()?;
        std::fs::rename(&tmp, &target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    #[test]
    fn replaces_contents_keeping_permissions_and_links() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.sh");
        std::fs::write(&file, "old").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o751)).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let inode = std::fs::metadata(&file).unwrap().ino();

        write_atomically(&link, b"new").unwrap();

        assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
        let meta = std::fs::metadata(&file).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o751);
        assert_ne!(
            meta.ino(),
            inode,
            "a new inode means the file was replaced by rename"
        );
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "no temporary file left behind: {names:?}");
    }
}
