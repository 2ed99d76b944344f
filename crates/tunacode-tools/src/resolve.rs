//! Where a path leads, worked out once without opening anything: `.` and `..` are removed lexically
//! first (as the workspace always has), then every symbolic link along the way is resolved — a
//! dangling one included, since its target is where a write through it would land. The workspace
//! judges the result; the file operations then open it with no link followed at all (`beneath`), so
//! a link swapped in after this check makes them fail rather than go elsewhere.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

/// How many links one path may pass through (the kernel's own limit).
const MAX_LINKS: usize = 40;

/// Removes `.` and resolves `..` lexically.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for comp in path.components() {
        match comp {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Where `path` (absolute, normalized) leads, and whether its last component is itself a symbolic
/// link. Components that do not exist are kept as they are.
pub(crate) fn resolve(path: &Path) -> io::Result<(PathBuf, bool)> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Ok((resolve_links(path)?, false));
    };
    let candidate = resolve_links(parent)?.join(name);
    match std::fs::symlink_metadata(&candidate) {
        Ok(meta) if meta.file_type().is_symlink() => Ok((resolve_links(&candidate)?, true)),
        _ => Ok((candidate, false)),
    }
}

/// `path` (absolute) with every symbolic link on it resolved, the way the kernel would walk it.
pub(crate) fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut out = PathBuf::from("/");
    let mut pending = parts(path);
    let mut links = 0;
    let mut missing = false;
    while let Some(name) = pending.pop_front() {
        if name == ".." {
            // Only from a link's target; `out` has no link in it, so its parent is the real one.
            out.pop();
            continue;
        }
        let next = out.join(&name);
        if missing {
            out = next;
            continue;
        }
        match std::fs::symlink_metadata(&next) {
            Ok(meta) if meta.file_type().is_symlink() => {
                links += 1;
                if links > MAX_LINKS {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "too many levels of symbolic links",
                    ));
                }
                let target = std::fs::read_link(&next)?;
                if target.is_absolute() {
                    out = PathBuf::from("/");
                }
                for part in parts(&target).into_iter().rev() {
                    pending.push_front(part);
                }
            }
            Ok(_) => out = next,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ) =>
            {
                missing = true;
                out = next;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// The names of `path`'s components, `..` kept (a link's target may climb), `.` and the root dropped.
fn parts(path: &Path) -> VecDeque<OsString> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn links_on_the_way_and_at_the_end_are_resolved_dangling_ones_too() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("real")).unwrap();
        std::fs::write(root.join("real/f"), "x").unwrap();
        symlink("real", root.join("dir")).unwrap();
        symlink("../real/f", root.join("real/up")).unwrap();
        symlink("/nowhere/x", root.join("dangling")).unwrap();
        symlink("loop", root.join("loop")).unwrap();

        assert_eq!(
            resolve(&root.join("dir/f")).unwrap(),
            (root.join("real/f"), false)
        );
        assert_eq!(
            resolve(&root.join("dir/up")).unwrap(),
            (root.join("real/f"), true)
        );
        assert_eq!(
            resolve(&root.join("dangling")).unwrap(),
            (PathBuf::from("/nowhere/x"), true)
        );
        assert_eq!(
            resolve(&root.join("dir/new/deeper")).unwrap(),
            (root.join("real/new/deeper"), false)
        );
        assert_eq!(
            resolve(&root.join("real/f/below")).unwrap(),
            (root.join("real/f/below"), false)
        );
        assert!(resolve(&root.join("loop")).is_err(), "a loop ends");
    }

    #[test]
    fn dot_dot_is_lexical_before_links_are_followed() {
        assert_eq!(
            normalize(Path::new("/w/a/./b/../../c")),
            PathBuf::from("/w/c")
        );
        assert_eq!(normalize(Path::new("/../x")), PathBuf::from("/x"));
    }
}
