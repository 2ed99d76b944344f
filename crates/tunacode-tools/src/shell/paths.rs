//! Paths as the shell will see them, without touching the disk: where `cd` leads, and what a
//! destructive command's target is (the root, the home directory, `.git`, the whole workspace, a
//! glob over all of it, somewhere outside it, or a path only known when the line runs). Temporary
//! directories (`/tmp`, `/var/tmp`, `$TMPDIR`) are outside the workspace but fair game below their top.

use std::path::{Component, Path, PathBuf};

use globset::GlobBuilder;

use super::invocation::Arg;

/// Where `cd target` leads from each of `dirs` (`None` for a directory this cannot tell: `~`, `-`,
/// a variable's value not in the line).
pub(super) fn change_dir(dirs: &[Option<PathBuf>], target: Option<&Arg>) -> Vec<Option<PathBuf>> {
    let Some(target) = target.filter(|t| !t.unknown && !t.glob && !t.text.starts_with('~')) else {
        return vec![None];
    };
    dirs.iter()
        .map(|dir| match dir {
            Some(dir) => normalize(dir, &target.text),
            None if target.text.starts_with('/') => normalize(Path::new("/"), &target.text),
            None => None,
        })
        .collect()
}

/// `target` resolved against `dir` lexically (`.` dropped, `..` popped); `None` when it climbs
/// above the root.
pub(super) fn normalize(dir: &Path, target: &str) -> Option<PathBuf> {
    let joined = dir.join(target);
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                if !out.pop() || out.as_os_str().is_empty() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// The temporary directories, whose contents (not themselves) may be deleted.
fn temp_roots() -> Vec<PathBuf> {
    let mut roots = vec![PathBuf::from("/tmp"), PathBuf::from("/var/tmp")];
    let tmp = std::env::temp_dir();
    if !roots.contains(&tmp) {
        roots.push(tmp);
    }
    roots
}

/// Whether the glob `pattern` (one path component) matches `name` as bash matches it (a leading
/// dot only by a leading dot).
fn glob_matches(pattern: &str, name: &str) -> bool {
    if name.starts_with('.') && !pattern.starts_with('.') {
        return false;
    }
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .is_ok_and(|g| g.compile_matcher().is_match(name))
}

/// Whether the glob `pattern` matches about every name (`*`, `?*`, `*[!x]`…).
fn matches_everything(pattern: &str) -> bool {
    ["a", "src", "Cargo.toml", "README.md", "main.rs"]
        .iter()
        .all(|name| glob_matches(pattern, name))
}

/// Whether a component of `path` is (or, as a glob, matches) `.git`.
fn touches_git(path: &Path, glob: bool) -> bool {
    path.components().any(|c| {
        let name = c.as_os_str().to_string_lossy();
        name == ".git" || (glob && glob_matches(&name, ".git"))
    })
}

/// What a destructive command would hit by operating on `target` from each of `dirs`, when that is
/// more than a path inside the workspace or below a temporary directory; `None` when it is fine.
pub(super) fn target_danger(
    target: &Arg,
    dirs: &[Option<PathBuf>],
    workspace: &Path,
) -> Option<String> {
    let text = target.text.as_str();
    if target.unknown || target.generated {
        return Some("a path only known when the line runs".into());
    }
    if text.is_empty() {
        return None; // `rm -rf ""` deletes nothing
    }
    let trimmed = text.trim_end_matches('/');
    if trimmed.is_empty() || trimmed == "/*" {
        return Some("the root directory".into());
    }
    if text.starts_with('~') {
        return Some(if trimmed == "~" {
            "the home directory".into()
        } else {
            "a path in the home directory, outside the workspace".into()
        });
    }
    for dir in dirs {
        let base = match dir {
            Some(dir) => dir.as_path(),
            None if text.starts_with('/') => Path::new("/"),
            None => {
                return Some("a path outside the workspace (where it runs is not known)".into());
            }
        };
        let Some(path) = normalize(base, trimmed) else {
            return Some("a path outside the workspace".into());
        };
        if let Some(why) = path_danger(&path, target.glob, workspace) {
            return Some(why);
        }
    }
    None
}

/// [`target_danger`] for one resolved path.
fn path_danger(path: &Path, glob: bool, workspace: &Path) -> Option<String> {
    if touches_git(path, glob) {
        return Some("the repository's .git".into());
    }
    if workspace.starts_with(path) {
        return Some(if path == workspace {
            "the whole workspace".into()
        } else {
            "a directory outside the workspace that contains it".into()
        });
    }
    let broad = glob
        && path
            .file_name()
            .is_some_and(|name| matches_everything(&name.to_string_lossy()));
    let parent = path.parent().unwrap_or(path);
    if path.starts_with(workspace) {
        return (broad && parent == workspace).then(|| "everything in the workspace".into());
    }
    let in_temp = temp_roots()
        .iter()
        .any(|root| path.starts_with(root) && path != root && !(broad && parent == root));
    (!in_temp).then(|| "a path outside the workspace".into())
}

/// Whether `path` (workspace-relative or absolute) names the whole workspace or more, or a glob
/// over everything in it (for pathspecs like `git checkout -- .`).
pub(super) fn is_whole_workspace(target: &Arg, dirs: &[Option<PathBuf>], workspace: &Path) -> bool {
    matches!(
        target_danger(target, dirs, workspace).as_deref(),
        Some("the whole workspace" | "a directory outside the workspace that contains it")
            | Some("everything in the workspace")
    )
}
