//! Files as an editor holds them. When the agent runs inside an editor (the editor protocol), the file
//! tools read and write through the editor, so the agent sees and edits its unsaved buffers; otherwise
//! they use the disk. The [`Workspace`](crate::Workspace) carries the editor, when there is one; the
//! file tools decide where to read and write.

use std::path::Path;

use async_trait::async_trait;

/// Reads and writes text files through an editor.
#[async_trait]
pub trait EditorFiles: Send + Sync {
    /// The file's text as the editor has it (its buffer when open, else the disk's). A missing file is
    /// an [`std::io::ErrorKind::NotFound`] error.
    async fn read_text(&self, path: &Path) -> std::io::Result<String>;
    /// Replaces (or creates) the file's text in the editor, which saves it as it saves its buffers.
    async fn write_text(&self, path: &Path, text: &str) -> std::io::Result<()>;
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
