//! The workspace guard: every path a tool touches is resolved against the workspace root and must stay
//! inside it, after `..` and symbolic links are resolved (once: the tools then open the result with
//! no link followed, see `beneath`). It also judges what the file tools may not touch: secrets, links
//! to write through, protected files reached through a link.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::editor::EditorFiles;
use crate::fsutil::io_error;
use crate::protected::ProtectedPaths;
use crate::resolve::{normalize, resolve};
use crate::secrets::SecretPaths;
use crate::tool_error::ToolError;

/// The directory the agent works in, and the editor its files are open in (when the agent runs inside
/// one).
#[derive(Clone)]
pub struct Workspace {
    root: PathBuf,
    editor: Option<Arc<dyn EditorFiles>>,
    secrets: Arc<SecretPaths>,
    protected: Arc<ProtectedPaths>,
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
        let protected = Arc::new(ProtectedPaths::new(vec![root.clone()], Vec::new()));
        Workspace {
            root,
            editor: None,
            secrets: Arc::default(),
            protected,
        }
    }

    /// The same workspace with the session's secret paths (refused to the file tools).
    pub fn with_secrets(mut self, secrets: Arc<SecretPaths>) -> Self {
        self.secrets = secrets;
        self
    }

    /// The same workspace with the session's protected paths (changes always ask).
    pub fn with_protected(mut self, protected: Arc<ProtectedPaths>) -> Self {
        self.protected = protected;
        self
    }

    /// The paths whose contents are secrets.
    pub fn secrets(&self) -> &SecretPaths {
        &self.secrets
    }

    /// The paths whose change needs the user's word.
    pub fn protected(&self) -> &ProtectedPaths {
        &self.protected
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

    /// `path` as asked: trimmed, made absolute against the root, `.` and `..` removed lexically; no
    /// link followed and nothing checked (what the approval policy judges). `None` when empty.
    pub fn lexical(&self, path: &str) -> Option<PathBuf> {
        resolve_lexically(&self.root, path)
    }

    /// Where `path` (relative to the root, or absolute) leads, which must be inside the workspace:
    /// `..` resolved lexically, then every symbolic link on the way resolved once (a dangling one
    /// too: its target is where a write would land). Blocks (it reads links): call it from a
    /// blocking thread. A path that leads outside is an error the model can fix.
    pub fn locate(&self, path: &str) -> Result<Located, ToolError> {
        let lexical = self
            .lexical(path)
            .ok_or_else(|| ToolError::Retry("the path is empty".into()))?;
        let (real, link) = resolve(&lexical).map_err(|e| io_error(path.trim(), e))?;
        if !real.starts_with(&self.root) {
            let how = if lexical.starts_with(&self.root) {
                format!(" (through a symbolic link, to `{}`)", real.display())
            } else {
                String::new()
            };
            return Err(ToolError::Retry(format!(
                "`{}` is outside the workspace {}{how}; use a path inside it",
                path.trim(),
                self.root.display()
            )));
        }
        Ok(Located {
            lexical,
            real,
            link,
        })
    }

    /// Resolves `path` like [`Workspace::locate`] and returns where it leads.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, ToolError> {
        self.locate(path).map(|l| l.real)
    }

    /// Refuses a path whose contents are secrets, judged as asked and where it leads.
    pub(crate) fn refuse_secret(&self, at: &Located) -> Result<(), ToolError> {
        match [&at.lexical, &at.real]
            .into_iter()
            .find_map(|p| self.secrets.reason_for(p))
        {
            Some(reason) => Err(ToolError::Fatal(format!("refused: {reason}"))),
            None => Ok(()),
        }
    }

    /// Refuses what a file tool must not change: a symbolic link as the last component (never written
    /// through: name its target), a secret, and a protected path reached through a link (the
    /// approval judged the path as asked, so a protected file is changed only by its own name).
    pub(crate) fn refuse_change(&self, at: &Located) -> Result<(), ToolError> {
        let shown = self.display(&at.lexical);
        if at.link {
            return Err(ToolError::Retry(format!(
                "`{shown}` is a symbolic link (to `{}`); file tools do not write through links. \
                 Change `{}` itself if that is what you mean; nothing was changed",
                self.display(&at.real),
                self.display(&at.real)
            )));
        }
        self.refuse_secret(at)?;
        if at.real != at.lexical
            && let Some(reason) = self.protected.reason_for(&at.real)
        {
            return Err(ToolError::Retry(format!(
                "`{shown}` leads through a symbolic link to `{}`, which is protected ({reason}); \
                 name `{}` directly so the user is asked; nothing was changed",
                self.display(&at.real),
                self.display(&at.real)
            )));
        }
        Ok(())
    }

    /// `path` relative to the root, for display (or as given when outside it).
    pub fn display(&self, path: &Path) -> String {
        let rel = path.strip_prefix(&self.root).unwrap_or(path);
        let text = rel.display().to_string();
        if text.is_empty() { ".".into() } else { text }
    }

    /// `at`'s real path relative to the root, for the confined file operations.
    pub(crate) fn relative<'a>(&self, at: &'a Located) -> &'a Path {
        at.real.strip_prefix(&self.root).unwrap_or(Path::new("."))
    }
}

/// `path` as the workspace reads it before any link: trimmed, joined to `root` when relative, `.`
/// removed and `..` resolved lexically. `None` for an empty path. Permission rules match paths
/// through this, so a rule sees the path the tool will open.
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

/// A path as a tool resolved it, once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// As asked: trimmed, absolute, `.` and `..` removed; links not followed.
    pub lexical: PathBuf,
    /// Where it leads: every symbolic link on the way, the last component's too, resolved once.
    /// Inside the workspace.
    pub real: PathBuf,
    /// Whether the last component is itself a symbolic link (`real` is then its target).
    pub link: bool,
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
        std::os::unix::fs::symlink(outside.path().join("x"), dir.path().join("dangling")).unwrap();
        let ws = Workspace::new(dir.path());
        assert!(matches!(ws.resolve("link/file"), Err(ToolError::Retry(_))));
        let err = ws.locate("dangling").unwrap_err();
        assert!(
            matches!(&err, ToolError::Retry(m) if m.contains("outside the workspace") && m.contains("symbolic link")),
            "{err}"
        );
    }

    #[test]
    fn a_link_inside_is_resolved_once_and_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path());
        let root = ws.root().to_path_buf();
        std::fs::create_dir_all(root.join("lib")).unwrap();
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::os::unix::fs::symlink("lib", root.join("src")).unwrap();
        std::os::unix::fs::symlink("lib/a.rs", root.join("a.rs")).unwrap();
        std::os::unix::fs::symlink(".git/hooks", root.join("hooks")).unwrap();

        let through_dir = ws.locate("src/new.rs").unwrap();
        assert_eq!(through_dir.real, root.join("lib/new.rs"));
        assert_eq!(through_dir.lexical, root.join("src/new.rs"));
        assert!(!through_dir.link);
        assert_eq!(ws.relative(&through_dir), Path::new("lib/new.rs"));
        assert!(ws.refuse_change(&through_dir).is_ok());

        let final_link = ws.locate("a.rs ").unwrap();
        assert!(final_link.link);
        assert_eq!(final_link.real, root.join("lib/a.rs"));
        let err = ws.refuse_change(&final_link).unwrap_err();
        assert!(err.to_string().contains("is a symbolic link"), "{err}");

        let hook = ws.locate("hooks/pre-commit").unwrap();
        let err = ws.refuse_change(&hook).unwrap_err();
        assert!(
            err.to_string()
                .contains("name `.git/hooks/pre-commit` directly"),
            "{err}"
        );
        assert!(
            ws.refuse_change(&ws.locate(".git/hooks/pre-commit").unwrap())
                .is_ok()
        );
    }

    #[test]
    fn secrets_are_judged_as_asked_and_where_they_lead() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path());
        let root = ws.root().to_path_buf();
        std::fs::write(root.join(".env"), "K=v").unwrap();
        std::os::unix::fs::symlink(".env", root.join("notes.txt")).unwrap();
        for path in [".env", ".env ", "sub/../.env", "notes.txt"] {
            let at = ws.locate(path).unwrap();
            let err = ws.refuse_secret(&at).unwrap_err();
            assert!(
                matches!(&err, ToolError::Fatal(m) if m.contains("secrets file")),
                "{path}: {err}"
            );
        }
        assert!(
            ws.refuse_secret(&ws.locate(".env.example").unwrap())
                .is_ok()
        );
    }
}
