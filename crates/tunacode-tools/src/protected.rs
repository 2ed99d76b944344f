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
/// Inside `.git`: what runs code or redirects git.
const GIT_PROTECTED: [&str; 3] = ["hooks", "config", "modules"];

/// The protected paths of one workspace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProtectedPaths {
    /// The workspace roots (the working directory, the repository root).
    roots: Vec<PathBuf>,
    /// The agent's own config file and data directory.
    agent: Vec<PathBuf>,
}

impl ProtectedPaths {
    /// The protected paths of a workspace in `roots` (the working directory and the repository root
    /// when they differ), plus the agent's own files (`agent`: its config file and data directory).
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
        ProtectedPaths { roots, agent }
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
        let names: Vec<String> = path
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        for (i, name) in names.iter().enumerate() {
            let last = i + 1 == names.len();
            if name == ".git" {
                let next = names.get(i + 1).map(String::as_str);
                if let Some(inner) = next.filter(|n| GIT_PROTECTED.contains(n)) {
                    return Some(format!(
                        "`.git/{inner}` decides what git runs (hooks, aliases, filters)"
                    ));
                }
            }
            if PROTECTED_DIRS.contains(&name.as_str()) && !last {
                return Some(format!(
                    "`{name}/` holds the project's agent settings, which decide what the agent runs \
                     and trusts"
                ));
            }
            if last
                && (PROTECTED_FILES.contains(&name.as_str())
                    || PROTECTED_DIRS.contains(&name.as_str()))
            {
                return Some(format!(
                    "`{name}` decides what the agent (or the editor) runs and trusts"
                ));
            }
        }
        None
    }

    /// The paths the sandbox keeps commands from changing: each protected name under each root
    /// (existing or not), and the agent's own files.
    pub fn sandbox_targets(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for root in &self.roots {
            for name in PROTECTED_DIRS.iter().chain(PROTECTED_FILES.iter()) {
                out.push(root.join(name));
            }
            for inner in GIT_PROTECTED {
                out.push(root.join(".git").join(inner));
            }
        }
        out.extend(self.agent.iter().cloned());
        out.sort();
        out.dedup();
        out
    }
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
            "/w/.git/info/exclude",
            "/w/.git/objects/ab/cd",
            "/w/.gitignore",
            "/w/docs/agents.md",
        ] {
            assert!(p.reason_for(Path::new(path)).is_none(), "{path}");
        }
    }

    #[test]
    fn sandbox_targets_name_each_root() {
        let targets = paths().sandbox_targets();
        assert!(targets.contains(&PathBuf::from("/w/.git/hooks")));
        assert!(targets.contains(&PathBuf::from("/w/.mcp.json")));
        assert!(targets.contains(&PathBuf::from("/home/u/.local/share/tunacode")));
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
