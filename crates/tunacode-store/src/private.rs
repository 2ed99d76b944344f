//! Private files: what TunaCode writes in its data and state folders (sessions, journals, the undo
//! store, the listing index, approvals, the model catalogue, the input history, logs) is the user's
//! alone: folders 0700, files 0600 (or stricter). A folder an older version left readable by others
//! is tightened, with everything in it, when it is opened.

use std::io;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::Path;

/// Writes `bytes` to `path` atomically with mode 0600: a temporary file beside it, synced, renamed
/// over it, and the rename synced (a crash leaves the old file or the new one; a failure leaves no
/// temporary file; a symbolic link at `path` is replaced, never written through). The folder must
/// exist. On failure, the error and the file it concerns.
pub fn write_file_atomically(
    path: &Path,
    bytes: &[u8],
) -> Result<(), (std::path::PathBuf, io::Error)> {
    use std::io::Write;
    write_file_atomically_with(path, |file| file.write_all(bytes))
}

/// [`write_file_atomically`] of what `write` writes into the new file (streamed: the content is
/// never whole in memory). A failure of `write` leaves the old file as it was.
pub fn write_file_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut std::fs::File) -> io::Result<()>,
) -> Result<(), (std::path::PathBuf, io::Error)> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".tunacode-")
        .suffix(".tmp")
        .permissions(std::fs::Permissions::from_mode(0o600))
        .tempfile_in(dir)
        .map_err(|e| (dir.to_path_buf(), e))?;
    write(tmp.as_file_mut())
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| (path.to_path_buf(), e))?;
    tmp.persist(path)
        .map_err(|e| (path.to_path_buf(), e.error))?;
    // The rename itself made durable; a failure here does not undo the write.
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Group and other permission bits.
const SHARED_BITS: u32 = 0o077;

/// Creates `dir` (and its missing parents) with mode 0700, or makes an existing one 0700.
pub fn private_dir(dir: &Path) -> io::Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let mode = std::fs::metadata(dir)?.permissions().mode();
    if mode & SHARED_BITS != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode & 0o700 | 0o700))?;
    }
    Ok(())
}

/// Makes `root` a private folder; when it was not (an older version made it), everything below it
/// loses its group and other bits too (symbolic links are not followed). Whether it had to.
pub fn private_tree(root: &Path) -> io::Result<bool> {
    let loose = match std::fs::symlink_metadata(root) {
        Ok(meta) => meta.permissions().mode() & SHARED_BITS != 0,
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(e),
    };
    if loose {
        tighten_below(root)?;
    }
    private_dir(root)?;
    Ok(loose)
}

/// Removes group and other bits from everything below `dir`.
fn tighten_below(dir: &Path) -> io::Result<()> {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            if kind.is_symlink() {
                continue;
            }
            let path = entry.path();
            let mode = entry.metadata()?.permissions().mode();
            if mode & SHARED_BITS != 0 {
                std::fs::set_permissions(
                    &path,
                    std::fs::Permissions::from_mode(mode & !SHARED_BITS),
                )?;
            }
            if kind.is_dir() {
                stack.push(path);
            }
        }
    }
    Ok(())
}

impl crate::paths::Paths {
    /// Makes TunaCode's data folder (`<data>/tunacode`) and log folder private, tightening what an
    /// older version left readable inside them. Blocking.
    pub fn make_private(&self) -> io::Result<()> {
        private_tree(&self.data_dir())?;
        private_tree(&self.log_dir)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path)
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    }

    #[test]
    fn a_streamed_write_that_fails_halfway_leaves_the_old_file_and_no_temporary_one() {
        use std::io::Write;
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join("s.json");
        std::fs::write(&path, "old").unwrap();
        let failed = write_file_atomically_with(&path, |file| {
            file.write_all(b"half of the new")?;
            Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "cannot serialize",
            ))
        });
        let (at, e) = failed.unwrap_err();
        assert_eq!((at, e.kind()), (path.clone(), io::ErrorKind::InvalidData));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        let left: Vec<_> = std::fs::read_dir(home.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file is left");
        write_file_atomically_with(&path, |file| file.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn a_new_folder_is_0700_with_its_new_parents() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("data/tunacode/sessions/p");
        private_dir(&dir).unwrap();
        for d in ["data", "data/tunacode", "data/tunacode/sessions/p"] {
            assert_eq!(mode(&home.path().join(d)), 0o700, "{d}");
        }
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        private_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700, "an existing loose folder is tightened");
    }

    #[test]
    fn a_loose_tree_from_an_older_version_is_tightened_whole() {
        let home = tempfile::tempdir().unwrap();
        let outside = home.path().join("outside.txt");
        std::fs::write(&outside, "not ours").unwrap();
        std::fs::set_permissions(&outside, std::fs::Permissions::from_mode(0o644)).unwrap();
        let data = home.path().join("data/tunacode");
        let objects = data.join("checkpoints/p.git/objects/ab");
        std::fs::create_dir_all(&objects).unwrap();
        std::fs::write(objects.join("cd"), "blob").unwrap();
        std::fs::set_permissions(objects.join("cd"), std::fs::Permissions::from_mode(0o444))
            .unwrap();
        std::fs::write(data.join("models.json"), "{}").unwrap();
        std::fs::set_permissions(
            data.join("models.json"),
            std::fs::Permissions::from_mode(0o644),
        )
        .unwrap();
        std::os::unix::fs::symlink(&outside, data.join("link")).unwrap();
        for d in [&data, &objects] {
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let paths = crate::paths::Paths {
            config_file: home.path().join("config/tunacode.json"),
            sessions_dir: data.join("sessions"),
            log_dir: home.path().join("state/tunacode"),
            models_cache: data.join("models.json"),
            mcp_approvals: data.join("mcp_approvals.json"),
        };
        paths.make_private().unwrap();
        assert_eq!(mode(&data), 0o700);
        assert_eq!(mode(&objects), 0o700);
        assert_eq!(mode(&objects.join("cd")), 0o400, "owner bits kept");
        assert_eq!(mode(&data.join("models.json")), 0o600);
        assert_eq!(mode(&outside), 0o644, "a link's target is not touched");
        assert_eq!(mode(&paths.log_dir), 0o700, "created private");
        assert!(!private_tree(&data).unwrap(), "nothing more to do");
    }
}
