//! Whether git may leave a file out of a snapshot: the workspace's `.gitignore` files on the way to
//! it, the repository's `info/exclude`, the user's global excludes, and `settings.rewind.exclude`.
//! A file the agent is about to write gets a pre-image only when the snapshot before it may lack it
//! (ignored) or is not finished; for every other file the snapshot already holds what it held, and no
//! git process is spent on it. When unsure, the answer is yes (a pre-image costs only time).

use std::path::Path;

use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// Whether `rel` (workspace-relative) may be ignored in `root`, or excluded by `exclude`.
pub(crate) fn possibly_ignored(root: &Path, rel: &str, exclude: &[String]) -> bool {
    let path = root.join(rel);
    let is_dir = path.is_dir();
    if matched(&global(root), &path, is_dir) {
        return true;
    }
    let mut builder = GitignoreBuilder::new(root);
    let mut broken = builder
        .add(root.join(".git/info/exclude"))
        .is_some_and(|e| !is_missing(&e));
    let mut dir = root.to_path_buf();
    broken |= builder
        .add(dir.join(".gitignore"))
        .is_some_and(|e| !is_missing(&e));
    let parents: Vec<_> = Path::new(rel).components().collect();
    for part in parents.iter().take(parents.len().saturating_sub(1)) {
        dir.push(part);
        broken |= builder
            .add(dir.join(".gitignore"))
            .is_some_and(|e| !is_missing(&e));
    }
    for pattern in exclude {
        broken |= builder.add_line(None, pattern).is_err();
    }
    match builder.build() {
        Ok(rules) => broken || matched(&rules, &path, is_dir),
        Err(_) => true,
    }
}

fn global(root: &Path) -> Gitignore {
    GitignoreBuilder::new(root).build_global().0
}

fn matched(rules: &Gitignore, path: &Path, is_dir: bool) -> bool {
    rules.matched_path_or_any_parents(path, is_dir).is_ignore()
}

fn is_missing(error: &ignore::Error) -> bool {
    error
        .io_error()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::NotFound)
}

#[cfg(test)]
mod tests {
    use super::possibly_ignored;

    #[test]
    fn ignore_files_on_the_way_and_the_user_s_exclusions_count() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/gen")).unwrap();
        std::fs::write(root.join(".gitignore"), "*.log\n/build/\n").unwrap();
        std::fs::write(root.join("src/.gitignore"), "gen/\n").unwrap();
        assert!(!possibly_ignored(root, "src/main.rs", &[]));
        assert!(possibly_ignored(root, "x.log", &[]));
        assert!(possibly_ignored(root, "build/out.txt", &[]));
        assert!(possibly_ignored(root, "src/gen/api.rs", &[]));
        assert!(possibly_ignored(root, "data/set.csv", &["data/".into()]));
        assert!(!possibly_ignored(root, "src/lib.rs", &["data/".into()]));
    }
}
