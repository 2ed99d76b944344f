//! Files as an editor holds them. When the agent runs inside an editor (the editor protocol), the file
//! tools read and write through the editor, so the agent sees and edits its unsaved buffers; otherwise
//! they use the disk. The [`Workspace`](crate::Workspace) carries the editor, when there is one.

use std::path::Path;

use async_trait::async_trait;

use crate::beneath::Beneath;
use crate::fsutil::{blocking, io_error};
use crate::tool::ToolError;
use crate::workspace::{Located, Workspace};

/// Reads and writes text files through an editor.
#[async_trait]
pub trait EditorFiles: Send + Sync {
    /// The file's text as the editor has it (its buffer when open, else the disk's). A missing file is
    /// an [`std::io::ErrorKind::NotFound`] error.
    async fn read_text(&self, path: &Path) -> std::io::Result<String>;
    /// Replaces (or creates) the file's text in the editor, which saves it as it saves its buffers.
    async fn write_text(&self, path: &Path, text: &str) -> std::io::Result<()>;
}

/// The text of the file `at` leads to: through the editor when there is one, else from the disk,
/// opened beneath the workspace root with no link followed. Not UTF-8 text is an error the model can
/// act on.
pub(crate) async fn read_text(
    workspace: &Workspace,
    at: &Located,
    shown: &str,
) -> Result<String, ToolError> {
    if let Some(editor) = workspace.editor() {
        return editor
            .read_text(&at.real)
            .await
            .map_err(|e| io_error(shown, e));
    }
    let (root, rel, name) = (
        workspace.root().to_path_buf(),
        workspace.relative(at).to_path_buf(),
        shown.to_string(),
    );
    let bytes = blocking(move || {
        Beneath::new(&root)
            .and_then(|b| b.read_regular(&rel))
            .map_err(|e| io_error(&name, e))
    })
    .await?;
    String::from_utf8(bytes).map_err(|_| {
        ToolError::Retry(format!(
            "`{shown}` is not UTF-8 text; only text files can be edited"
        ))
    })
}

#[cfg(test)]
pub(crate) mod fake {
    //! An editor holding buffers in memory, for the tools' tests.

    use std::collections::HashMap;
    use std::path::{Path, PathBuf};
    use std::sync::{Arc, Mutex};

    use async_trait::async_trait;

    use super::EditorFiles;

    /// Buffers by path; reads of other paths fall through to the disk, writes stay in the buffers.
    #[derive(Default)]
    pub(crate) struct Buffers(pub(crate) Mutex<HashMap<PathBuf, String>>);

    impl Buffers {
        pub(crate) fn with(path: &Path, text: &str) -> Arc<Self> {
            let buffers = Buffers::default();
            buffers
                .0
                .lock()
                .unwrap()
                .insert(path.to_path_buf(), text.into());
            Arc::new(buffers)
        }

        pub(crate) fn get(&self, path: &Path) -> Option<String> {
            self.0.lock().unwrap().get(path).cloned()
        }
    }

    #[async_trait]
    impl EditorFiles for Buffers {
        async fn read_text(&self, path: &Path) -> std::io::Result<String> {
            if let Some(text) = self.get(path) {
                return Ok(text);
            }
            std::fs::read_to_string(path)
        }

        async fn write_text(&self, path: &Path, text: &str) -> std::io::Result<()> {
            self.0
                .lock()
                .unwrap()
                .insert(path.to_path_buf(), text.into());
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::fake::Buffers;
    use crate::testutil::{args, ctx};
    use crate::{ReadFile, Tool, ToolContext, UpdateFile, WriteFile};

    fn in_editor(dir: &std::path::Path, buffers: std::sync::Arc<Buffers>) -> ToolContext {
        let mut ctx = ctx(dir);
        ctx.workspace = ctx.workspace.with_editor(buffers);
        ctx
    }

    #[tokio::test]
    async fn file_tools_see_and_edit_the_editors_unsaved_buffer() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().canonicalize().unwrap().join("a.txt");
        std::fs::write(&file, "saved on disk\n").unwrap();
        let buffers = Buffers::with(&file, "unsaved line\n");
        let ctx = in_editor(dir.path(), buffers.clone());

        let read = ReadFile
            .call(args(json!({"file_path": "a.txt"})), &ctx)
            .await
            .unwrap();
        assert!(read.content.contains("unsaved line"), "{}", read.content);

        let target = json!({"file_path": "a.txt", "target": "unsaved", "replacement": "edited"});
        let preview = UpdateFile
            .preview(&args(target.clone()), &ctx)
            .await
            .unwrap();
        assert!(preview.unwrap().contains("+edited line"));
        UpdateFile.call(args(target), &ctx).await.unwrap();
        assert_eq!(buffers.get(&file).as_deref(), Some("edited line\n"));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "saved on disk\n");
    }

    #[tokio::test]
    async fn a_new_file_is_written_through_the_editor_and_missing_files_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let buffers = std::sync::Arc::new(Buffers::default());
        let ctx = in_editor(dir.path(), buffers.clone());

        WriteFile
            .call(
                args(json!({"file_path": "new.txt", "content": "hi\n"})),
                &ctx,
            )
            .await
            .unwrap();
        assert_eq!(buffers.get(&root.join("new.txt")).as_deref(), Some("hi\n"));
        assert!(
            !root.join("new.txt").exists(),
            "the editor saves it, not us"
        );

        let missing = ReadFile
            .call(args(json!({"file_path": "nope.txt"})), &ctx)
            .await
            .unwrap_err();
        assert!(missing.to_string().contains("does not exist"), "{missing}");
    }
}
