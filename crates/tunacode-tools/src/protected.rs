//! Protected paths: files inside a writable workspace whose change makes code run later, outside any
//! sandbox, or changes what the agent itself trusts — git hooks and config, the project's agent
//! settings (`.tunacode/`, `.mcp.json`, `.agents/`, `.claude/`), instruction files (`AGENTS.md`,
//! `CLAUDE.md`) and the agent's own config and data. File tools always ask before changing them (even
//! in yolo and with `--yes`; headless refused unless a `permissions.allow` rule names them), and the
//! sandbox keeps commands from changing them.

use std::path::{Component, Path, PathBuf};

/// Directories protected with everything under them, by name, anywhere in the workspace.
const PROTECTED_DIRS: [&str; 4] = [".tunacode", ".agents", ".claude", ".vscode"];
/// Files protected by name, anywhere in the workspace.
const PROTECTED_FILES: [&str; 4] = [".mcp.json", "AGENTS.md", "CLAUDE.md", ".envrc"];
/// What git itself writes in `.git` in everyday work (objects, refs, the index, the state of a
/// merge or rebase, messages). Everything else there (`config`, `hooks/`, `commondir`, `modules/`,
/// `worktrees/`, names git may add later) decides what git runs or where it looks, and is protected.
const GIT_WORK: [&str; 41] = [
    "objects",
    "refs",
    "logs",
    "index",
    "HEAD",
    "ORIG_HEAD",
    "FETCH_HEAD",
    "MERGE_HEAD",
    "MERGE_MSG",
    "MERGE_MODE",
    "MERGE_RR",
    "AUTO_MERGE",
    "REBASE_HEAD",
    "CHERRY_PICK_HEAD",
    "REVERT_HEAD",
    "BISECT_LOG",
    "BISECT_START",
    "BISECT_TERMS",
    "BISECT_EXPECTED_REV",
    "BISECT_ANCESTORS_OK",
    "BISECT_NAMES",
    "BISECT_RUN",
    "BISECT_HEAD",
    "COMMIT_EDITMSG",
    "TAG_EDITMSG",
    "SQUASH_MSG",
    "NOTES_EDITMSG",
    "NOTES_MERGE_PARTIAL",
    "NOTES_MERGE_REF",
    "packed-refs",
    "rebase-merge",
    "rebase-apply",
    "sequencer",
    "rr-cache",
    "lost-found",
    "shallow",
    "gc.pid",
    "gc.log",
    "description",
    "branches",
    "info",
];

/// Whether `name`, directly inside `.git`, is one git writes in everyday work (a lock file too,
/// except the config's).
pub fn is_git_work(name: &str) -> bool {
    GIT_WORK.contains(&name) || (name.ends_with(".lock") && !name.starts_with("config"))
}

/// The protected paths of one workspace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProtectedPaths {
    /// The workspace roots (the working directory, the repository root, the folders between).
    roots: Vec<PathBuf>,
    /// The agent's own config file and data directory.
    agent: Vec<PathBuf>,
    /// Where protected names that are symbolic links lead (`AGENTS.md -> docs/guide.md`): changing
    /// the target changes what the name says.
    linked: Vec<PathBuf>,
}

impl ProtectedPaths {
    /// The protected paths of a workspace in `roots` (the working directory, the repository root and
    /// the folders between), plus the agent's own files (`agent`: its config file, folder and data
    /// directory). Reads which protected names are links, and where they lead.
    pub fn new(roots: Vec<PathBuf>, mut agent: Vec<PathBuf>) -> Self {
        // Canonical forms too: the file tools judge paths with their links resolved, so the agent's
        // files under a home reached through a link must match either way.
        let real: Vec<PathBuf> = agent
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .collect();
        agent.extend(real);
        agent.sort();
        agent.dedup();
        let mut linked = Vec::new();
        for root in &roots {
            for name in named_at(root)
                .into_iter()
                .chain(["hooks", "config"].map(|n| root.join(".git").join(n)))
                .chain(std::iter::once(root.join(".git")))
            {
                follow_links(root, &name, &mut linked);
            }
            linked.extend(hooks_path(root));
        }
        linked.sort();
        linked.dedup();
        ProtectedPaths {
            roots,
            agent,
            linked,
        }
    }

    /// These paths and the protected names of one more workspace root (a sub-agent's worktree).
    pub fn with_root(&self, root: PathBuf) -> Self {
        let mut roots = self.roots.clone();
        roots.push(root);
        ProtectedPaths::new(roots, self.agent.clone())
    }

    /// The workspace roots whose protected names the sandbox covers.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Why changing `path` (absolute, as the workspace resolved it) needs the user's word, or `None`.
    pub fn reason_for(&self, path: &Path) -> Option<String> {
        if let Some(own) = self.agent.iter().find(|a| path.starts_with(a)) {
            return Some(format!(
                "`{}` is the agent's own configuration or data ({})",
                path.display(),
                own.display()
            ));
        }
        if let Some(target) = self.linked.iter().find(|t| path.starts_with(t)) {
            return Some(format!(
                "`{}` is where a protected name of the workspace leads (a symbolic link to {})",
                path.display(),
                target.display()
            ));
        }
        let names: Vec<String> = path
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        names
            .iter()
            .enumerate()
            .find_map(|(i, name)| reason_at(name, names.get(i + 1).map(String::as_str)))
    }

    /// The paths the sandbox keeps commands from changing: each protected name under each root
    /// (existing or not), the protected entries of each root's `.git`, where protected links lead,
    /// and the agent's own files.
    pub fn sandbox_targets(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self.roots.iter().flat_map(|r| named_at(r)).collect();
        for root in &self.roots {
            out.extend(git_entries(&root.join(".git")));
        }
        out.extend(self.linked.iter().cloned());
        out.extend(self.agent.iter().cloned());
        out.sort();
        out.dedup();
        out
    }
}

/// Why the component `name` (followed by `next`, if any) makes a path protected.
fn reason_at(name: &str, next: Option<&str>) -> Option<String> {
    if name == ".git" {
        return match next {
            None => Some("`.git` is the repository (or a file naming where it is)".into()),
            Some(inner) if !is_git_work(inner) => Some(format!(
                "`.git/{inner}` decides what git runs or where it looks (hooks, config, aliases)"
            )),
            Some(_) => None,
        };
    }
    if PROTECTED_DIRS.contains(&name) && next.is_some() {
        return Some(format!(
            "`{name}/` holds the project's agent settings, which decide what the agent runs and \
             trusts"
        ));
    }
    if next.is_none() && (PROTECTED_FILES.contains(&name) || PROTECTED_DIRS.contains(&name)) {
        return Some(format!(
            "`{name}` decides what the agent (or the editor) runs and trusts"
        ));
    }
    None
}

/// Every link on the way from `start` (a protected name) to what it finally names, the folders on the
/// way that are links, and the end: changing any of them changes what the protected name says.
fn follow_links(root: &Path, start: &Path, out: &mut Vec<PathBuf>) {
    let mut current = start.to_path_buf();
    for _ in 0..40 {
        let Ok(target) = std::fs::read_link(&current) else {
            break;
        };
        let next = crate::resolve::normalize(
            &current
                .parent()
                .map_or_else(|| target.clone(), |dir| dir.join(&target)),
        );
        out.extend(
            next.ancestors()
                .skip(1)
                .take_while(|dir| dir.starts_with(root) && *dir != root)
                .filter(|dir| std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_symlink()))
                .map(Path::to_path_buf),
        );
        out.push(next.clone());
        current = next;
    }
    if current != start
        && let Ok(real) = std::fs::canonicalize(&current)
    {
        out.push(real);
    }
}

/// Where `core.hooksPath` in the repository's config sends git for hooks (husky's `.husky/`): the
/// hooks there run like `.git/hooks`.
fn hooks_path(root: &Path) -> Option<PathBuf> {
    let config = std::fs::read_to_string(root.join(".git/config")).ok()?;
    let value = config.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("hookspath")
            .then(|| value.trim().trim_matches('"').to_string())
    })?;
    let path = Path::new(&value);
    let path = if path.is_absolute() {
        path.to_path_buf()
    } else {
        root.join(path)
    };
    Some(std::fs::canonicalize(&path).unwrap_or_else(|_| crate::resolve::normalize(&path)))
}

/// The protected names directly under `root`.
fn named_at(root: &Path) -> Vec<PathBuf> {
    PROTECTED_DIRS
        .iter()
        .chain(PROTECTED_FILES.iter())
        .map(|name| root.join(name))
        .collect()
}

/// The protected entries of the repository directory `git` (what exists, and the names git reads
/// that may not exist yet); a `.git` that is a file (a worktree's or submodule's pointer) is itself
/// protected.
fn git_entries(git: &Path) -> Vec<PathBuf> {
    let Ok(meta) = std::fs::symlink_metadata(git) else {
        return Vec::new();
    };
    if !meta.is_dir() {
        return vec![git.to_path_buf()];
    }
    let mut out: Vec<PathBuf> = ["config", "config.worktree", "hooks", "commondir", "modules"]
        .iter()
        .map(|n| git.join(n))
        .collect();
    if let Ok(entries) = std::fs::read_dir(git) {
        out.extend(
            entries
                .flatten()
                .filter(|e| !is_git_work(&e.file_name().to_string_lossy()))
                .map(|e| e.path()),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths() -> ProtectedPaths {
        ProtectedPaths::new(
            vec![PathBuf::from("/w")],
            vec![PathBuf::from("/home/u/.local/share/tunacode")],
        )
    }

    #[test]
    fn hooks_config_agent_settings_and_instructions_are_protected() {
        let p = paths();
        for path in [
            "/w/.git/hooks/pre-commit",
            "/w/.git/config",
            "/w/.git/commondir",
            "/w/.git/worktrees/x/gitdir",
            "/w/.git/config.lock",
            "/w/.git",
            "/w/sub/.git",
            "/w/.tunacode/commands/x.md",
            "/w/.mcp.json",
            "/w/.agents/skills/a/SKILL.md",
            "/w/AGENTS.md",
            "/w/sub/CLAUDE.md",
            "/w/.claude/agents/a.md",
            "/w/.vscode/tasks.json",
            "/w/.envrc",
            "/home/u/.local/share/tunacode/sessions/x.json",
        ] {
            assert!(p.reason_for(Path::new(path)).is_some(), "{path}");
        }
        for path in [
            "/w/src/main.rs",
            "/w/.git/index",
            "/w/.git/index.lock",
            "/w/.git/refs/heads/main",
            "/w/.git/COMMIT_EDITMSG",
            "/w/.git/info/exclude",
            "/w/.git/objects/ab/cd",
            "/w/.gitignore",
            "/w/docs/agents.md",
        ] {
            assert!(p.reason_for(Path::new(path)).is_none(), "{path}");
        }
    }

    #[test]
    fn sandbox_targets_name_each_root_every_protected_git_entry_and_where_links_lead() {
        let dir = tempfile::tempdir().unwrap();
        let w = dir.path().canonicalize().unwrap();
        for sub in [".git/hooks", ".git/objects", ".git/worktrees/x", "docs"] {
            std::fs::create_dir_all(w.join(sub)).unwrap();
        }
        for file in [
            ".git/config",
            ".git/index",
            ".git/HEAD",
            ".git/odd",
            "docs/guide.md",
        ] {
            std::fs::write(w.join(file), "").unwrap();
        }
        std::os::unix::fs::symlink("docs/guide.md", w.join("AGENTS.md")).unwrap();
        let p = ProtectedPaths::new(vec![w.clone()], vec![PathBuf::from("/data/tunacode")]);
        let targets = p.sandbox_targets();
        for protected in [
            ".git/hooks",
            ".git/config",
            ".git/commondir",
            ".git/worktrees",
            ".git/odd",
            ".mcp.json",
            "docs/guide.md",
        ] {
            assert!(
                targets.contains(&w.join(protected)),
                "{protected}: {targets:?}"
            );
        }
        for work in [".git/objects", ".git/index", ".git/HEAD"] {
            assert!(!targets.contains(&w.join(work)), "{work}");
        }
        assert!(targets.contains(&PathBuf::from("/data/tunacode")));
        let why = p
            .reason_for(&w.join("docs/guide.md"))
            .expect("the link's target");
        assert!(why.contains("symbolic link"), "{why}");
    }

    #[test]
    fn every_link_of_a_chain_a_linked_hooks_folder_and_the_hooks_path_are_protected() {
        let dir = tempfile::tempdir().unwrap();
        let w = dir.path().canonicalize().unwrap();
        for sub in [".git", ".githooks", ".husky", "docs"] {
            std::fs::create_dir_all(w.join(sub)).unwrap();
        }
        std::fs::write(w.join("docs/guide.md"), "be nice").unwrap();
        std::os::unix::fs::symlink("guide.md", w.join("docs/mid.md")).unwrap();
        std::os::unix::fs::symlink("docs/mid.md", w.join("AGENTS.md")).unwrap();
        std::os::unix::fs::symlink("../.githooks", w.join(".git/hooks")).unwrap();
        std::fs::write(w.join(".git/config"), "[core]\n\thooksPath = .husky\n").unwrap();
        let p = ProtectedPaths::new(vec![w.clone()], Vec::new());
        for path in [
            "docs/mid.md",
            "docs/guide.md",
            ".githooks/pre-commit",
            ".husky/pre-commit",
        ] {
            assert!(p.reason_for(&w.join(path)).is_some(), "{path}");
        }
        assert!(p.reason_for(&w.join("docs/other.md")).is_none());
    }

    #[test]
    fn a_git_file_pointing_elsewhere_is_itself_a_target() {
        let dir = tempfile::tempdir().unwrap();
        let w = dir.path().to_path_buf();
        std::fs::write(w.join(".git"), "gitdir: ../elsewhere\n").unwrap();
        let targets = ProtectedPaths::new(vec![w.clone()], Vec::new()).sandbox_targets();
        assert!(targets.contains(&w.join(".git")), "{targets:?}");
    }

    #[test]
    fn the_agent_files_match_through_a_linked_home_too() {
        let dir = tempfile::tempdir().unwrap();
        let real_home = dir.path().canonicalize().unwrap().join("real");
        std::fs::create_dir_all(real_home.join(".config/tunacode")).unwrap();
        let linked = dir.path().join("home");
        std::os::unix::fs::symlink(&real_home, &linked).unwrap();
        let p = ProtectedPaths::new(Vec::new(), vec![linked.join(".config/tunacode")]);
        for home in [&linked, &real_home] {
            let path = home.join(".config/tunacode/commands/x.md");
            assert!(p.reason_for(&path).is_some(), "{}", path.display());
        }
    }
}
