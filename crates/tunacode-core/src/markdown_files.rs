//! Markdown files with YAML front matter (custom commands, skills), found by name in a list of
//! folders where the first folder that has a name wins (the project's over the user's). Each folder
//! and what is in it must stay inside its own root (`project_files.rs`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use crate::project_files::{Skipped, boundary, folder_inside};

/// A file's front matter (between `---` lines at its top) and its body.
pub fn split_front_matter<T: DeserializeOwned + Default>(
    text: &str,
) -> Result<(T, String), String> {
    let rest = text.trim_start_matches('\u{feff}');
    let Some(after) = rest.strip_prefix("---") else {
        return Ok((T::default(), rest.to_string()));
    };
    let after = after.trim_start_matches([' ', '\t']);
    let after = after
        .strip_prefix('\n')
        .or_else(|| after.strip_prefix("\r\n"))
        .ok_or("the front matter's opening `---` must be alone on its line")?;
    let end = after
        .find("\n---")
        .ok_or("the front matter has no closing `---`")?;
    let yaml = &after[..end];
    let body = after[end + 4..]
        .trim_start_matches(['-'])
        .trim_start_matches(['\r', '\n']);
    let meta = if yaml.trim().is_empty() {
        T::default()
    } else {
        serde_norway::from_str(yaml).map_err(|e| format!("front matter: {e}"))?
    };
    Ok((meta, body.to_string()))
}

/// A folder to look in, and the folder what it holds must stay inside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchDir {
    /// Where to look.
    pub dir: PathBuf,
    /// The repository root (or the working directory outside a repository) for a project folder;
    /// the user's config folder for the user's.
    pub within: PathBuf,
}

/// The repository root above `cwd` (the nearest folder with a `.git`), else `cwd` itself.
pub fn project_root(cwd: &Path) -> &Path {
    cwd.ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(cwd)
}

/// The project folders to look in for `sub` (e.g. `.tunacode/commands`): the working directory's,
/// then the repository root's (the nearest `.git` above), then the user's (`user_dir/sub_user`).
pub fn search_dirs(
    cwd: &Path,
    project_subs: &[&str],
    user_dir: &Path,
    user_sub: &str,
) -> Vec<SearchDir> {
    let root = project_root(cwd);
    let mut dirs = Vec::new();
    for base in std::iter::once(cwd).chain((root != cwd).then_some(root)) {
        for sub in project_subs {
            dirs.push(SearchDir {
                dir: base.join(sub),
                within: root.to_path_buf(),
            });
        }
    }
    dirs.push(SearchDir {
        dir: user_dir.join(user_sub),
        within: user_dir.to_path_buf(),
    });
    dirs
}

/// Every entry of `dirs` that `pick` accepts, by name, the first folder winning a name. `pick` gets
/// an entry's path and the real path it must stay inside; a folder that leaves its own is skipped
/// whole, and why is added to `skipped`.
pub fn collect_by_name<T>(
    dirs: &[SearchDir],
    skipped: &mut Vec<Skipped>,
    mut pick: impl FnMut(&Path, &Path, &mut Vec<Skipped>) -> Option<(String, T)>,
) -> BTreeMap<String, T> {
    let mut found = BTreeMap::new();
    for search in dirs {
        let Some(within) = boundary(&search.within) else {
            continue;
        };
        match folder_inside(&search.dir, &within) {
            Ok(Some(_)) => {}
            Ok(None) => continue,
            Err(skip) => {
                skipped.push(skip);
                continue;
            }
        }
        let Ok(entries) = std::fs::read_dir(&search.dir) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            if let Some((name, item)) = pick(&path, &within, skipped) {
                found.entry(name).or_insert(item);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, serde::Deserialize, PartialEq)]
    struct Meta {
        description: Option<String>,
    }

    #[test]
    fn front_matter_is_split_from_the_body() {
        let (meta, body) =
            split_front_matter::<Meta>("---\ndescription: Review code\n---\nLook at $1.\n")
                .expect("ok");
        assert_eq!(meta.description.as_deref(), Some("Review code"));
        assert_eq!(body, "Look at $1.\n");
        let (meta, body) = split_front_matter::<Meta>("Just a body").expect("ok");
        assert_eq!((meta, body.as_str()), (Meta::default(), "Just a body"));
        assert!(split_front_matter::<Meta>("---\ndescription: x\nno end").is_err());
    }
}
