//! The workspace guard: every path a tool touches is resolved against the workspace root and must stay
//! inside it, after `..` and symbolic links are resolved.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::editor::EditorFiles;
use crate::tool::ToolError;

/// The directory the agent works in, and the editor its files are open in (when the agent runs inside
/// one).
#[derive(Clone)]
pub struct Workspace {
    root: PathBuf,
    editor: Option<Arc<dyn EditorFiles>>,
}

impl PartialEq for Workspace {
    fn eq(&self, other: &Self) -> bool {
        self.root == other.root
    }
}

impl Eq for Workspace {}

impl std::fmt::Debug for Workspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workspace")
            .field("root", &self.root)
            .field("editor", &self.editor.is_some())
            .finish()
    }
}

impl Workspace {
    /// A workspace rooted at `root` (canonicalized when it exists).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        let root = std::fs::canonicalize(&root).unwrap_or(root);
        Workspace { root, editor: None }
    }

    /// The same workspace, its files read and written through `editor`.
    pub fn with_editor(mut self, editor: Arc<dyn EditorFiles>) -> Self {
        self.editor = Some(editor);
        self
    }

    /// The editor the files are read and written through, when there is one.
    pub fn editor(&self) -> Option<&Arc<dyn EditorFiles>> {
        self.editor.as_ref()
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves `path` (relative to the root, or absolute) to a path inside the workspace.
    /// Paths that leave the workspace are an error the model can fix.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, ToolError> {
        let Some(normal) = resolve_lexically(&self.root, path) else {
            return Err(ToolError::Retry("the path is empty".into()));
        };
        let real = canonicalize_existing_prefix(&normal);
        if !real.starts_with(&self.root) {
            return Err(ToolError::Retry(format!(
                "`{path}` is outside the workspace {}; use a path inside it",
                self.root.display()
            )));
        }
        Ok(normal)
    }

    /// `path` relative to the root, for display (or as given when outside it).
    pub fn display(&self, path: &Path) -> String {
        let rel = path.strip_prefix(&self.root).unwrap_or(path);
        let text = rel.display().to_string();
        if text.is_empty() { ".".into() } else { text }
    }
}

/// `path` as [`Workspace::resolve`] reads it, before checking that it stays inside: trimmed, joined
/// to `root` when relative, `.` removed and `..` resolved lexically. `None` for an empty path.
/// Permission rules match paths through this, so a rule sees the file the tool will open.
pub fn resolve_lexically(root: &Path, path: &str) -> Option<PathBuf> {
    let trimmed = path.trim();
    if trimmed.is_empty() {
        return None;
    }
    let joined = if Path::new(trimmed).is_absolute() {
        PathBuf::from(trimmed)
    } else {
        root.join(trimmed)
    };
    Some(normalize(&joined))
}

/// Removes `.` and resolves `..` lexically.
fn normalize(path: &Path) -> PathBuf {
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

/// Canonicalizes the longest existing prefix of `path` (resolving symlinks) and appends the rest.
fn canonicalize_existing_prefix(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(&existing) {
            let mut out = real;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (
            existing.file_name().map(|s| s.to_os_string()),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_inside_and_refuses_outside() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path());
        let inside = ws.resolve("a/../b.txt").unwrap();
        assert_eq!(inside, ws.root().join("b.txt"));
        assert_eq!(
            ws.resolve(ws.root().join("x").to_str().unwrap()).unwrap(),
            ws.root().join("x")
        );
        assert!(matches!(ws.resolve("../escape"), Err(ToolError::Retry(_))));
        assert!(matches!(
            ws.resolve("/etc/passwd"),
            Err(ToolError::Retry(_))
        ));
        assert!(matches!(ws.resolve(""), Err(ToolError::Retry(_))));
    }

    #[test]
    fn refuses_a_symlink_that_leaves_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
        let ws = Workspace::new(dir.path());
        assert!(matches!(ws.resolve("link/file"), Err(ToolError::Retry(_))));
    }
}
