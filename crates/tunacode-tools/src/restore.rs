//! Putting a file of the workspace back as a snapshot had it (rewind, redo), and reading one for a
//! snapshot: written, removed or read
//! beneath the workspace root and never through a symbolic link (the same descriptor walk as the
//! file tools, `beneath.rs`), so a link planted where a directory was cannot redirect a restore
//! outside the workspace.

use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::beneath::Beneath;

/// Sets the file `rel` (relative to `root`, plain names only) to `contents`, or removes it when
/// `None` (a file already gone is fine). A new file gets its missing folders; an existing regular
/// file is replaced atomically; anything else there (a link, a folder) is an error and is left.
/// `executable` sets or clears the owner's execute bit as the snapshot had it.
pub fn restore_workspace_file(
    root: &Path,
    rel: &Path,
    contents: Option<&[u8]>,
    executable: bool,
) -> io::Result<()> {
    let beneath = Beneath::new(root)?;
    let Some(contents) = contents else {
        return match beneath.remove(rel) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            other => other,
        };
    };
    match beneath.open_regular(rel) {
        Ok(_) => beneath.replace(rel, contents)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => beneath.create_new(rel, contents)?,
        Err(e) => return Err(e),
    }
    let file = beneath.open_regular(rel)?;
    let mode = file.metadata()?.permissions().mode();
    let wanted = if executable {
        mode | ((mode & 0o444) >> 2)
    } else {
        mode & !0o111
    };
    if wanted != mode {
        file.set_permissions(std::fs::Permissions::from_mode(wanted))?;
    }
    Ok(())
}

/// The bytes of the regular file `rel` (relative to `root`, plain names only), read beneath the root
/// with no symbolic link followed anywhere on the way: what a snapshot records of a file the agent
/// is about to write, so a link swapped in cannot make it record a file outside the workspace.
pub fn read_workspace_file(root: &Path, rel: &Path) -> io::Result<Vec<u8>> {
    Beneath::new(root)?.read_regular(rel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restores_removes_and_creates_folders_beneath_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        restore_workspace_file(root, Path::new("a/b/new.sh"), Some(b"echo\n"), true).unwrap();
        let path = root.join("a/b/new.sh");
        assert_eq!(std::fs::read(&path).unwrap(), b"echo\n");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_ne!(mode & 0o100, 0, "{mode:o}");
        restore_workspace_file(root, Path::new("a/b/new.sh"), Some(b"x"), false).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o111, 0, "{mode:o}");
        restore_workspace_file(root, Path::new("a/b/new.sh"), None, false).unwrap();
        assert!(!path.exists());
        restore_workspace_file(root, Path::new("a/b/new.sh"), None, false).unwrap();
    }

    #[test]
    fn never_writes_or_removes_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("victim"), "keep").unwrap();
        let root = dir.path();
        std::os::unix::fs::symlink(outside.path(), root.join("src")).unwrap();
        for contents in [Some(&b"owned"[..]), None] {
            let err = restore_workspace_file(root, Path::new("src/victim"), contents, false)
                .expect_err("through a link");
            assert!(crate::beneath::is_link_refusal(&err), "{err}");
        }
        std::os::unix::fs::symlink(outside.path().join("victim"), root.join("f")).unwrap();
        restore_workspace_file(root, Path::new("f"), Some(b"owned"), false).expect_err("a link");
        assert_eq!(
            std::fs::read_to_string(outside.path().join("victim")).unwrap(),
            "keep"
        );
        assert!(restore_workspace_file(root, Path::new("../x"), Some(b"x"), false).is_err());
        assert!(
            read_workspace_file(root, Path::new("f")).is_err(),
            "a link is not read"
        );
        assert!(read_workspace_file(root, Path::new("src/victim")).is_err());
    }
}
