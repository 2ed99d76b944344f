//! The editor's file system (`fs/read_text_file`, `fs/write_text_file`) as the file tools' editor, so
//! the agent reads and edits the editor's buffers, unsaved changes included.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{ReadTextFileRequest, WriteTextFileRequest};
use agent_client_protocol::{Client, ErrorCode};
use async_trait::async_trait;
use tunacode_core::EditorFiles;

use crate::shared::ClientOffers;

/// Files read (and, when the editor offers it, written) through the editor.
pub(crate) struct ClientFiles {
    cx: ConnectionTo<Client>,
    /// The session the requests name (known once the runtime opened it).
    session: OnceLock<String>,
}

impl ClientFiles {
    /// The editor's files, when it offers to read and to write them (an editor that only reads
    /// would show the agent text it then saves to disk behind the editor's back).
    pub(crate) fn new(cx: ConnectionTo<Client>, offers: ClientOffers) -> Option<Arc<Self>> {
        (offers.reads && offers.writes).then(|| {
            Arc::new(ClientFiles {
                cx,
                session: OnceLock::new(),
            })
        })
    }

    /// Names the session the requests are for.
    pub(crate) fn set_session(&self, id: &str) {
        let _ = self.session.set(id.to_string());
    }

    fn session(&self) -> std::io::Result<String> {
        self.session
            .get()
            .cloned()
            .ok_or_else(|| std::io::Error::other("the editor session is not open yet"))
    }
}

/// An editor's error as an I/O error: a file missing on disk is "not found" whatever code the editor
/// used for it.
async fn editor_error(path: &Path, error: &agent_client_protocol::Error) -> std::io::Error {
    let on_disk = tokio::fs::try_exists(path).await.unwrap_or(false);
    if error.code == ErrorCode::RESOURCE_NOT_FOUND || !on_disk {
        return std::io::Error::new(std::io::ErrorKind::NotFound, error.message.clone());
    }
    std::io::Error::other(format!("the editor refused: {}", error.message))
}

#[async_trait]
impl EditorFiles for ClientFiles {
    async fn read_text(&self, path: &Path) -> std::io::Result<String> {
        let request = ReadTextFileRequest::new(self.session()?, path);
        match self.cx.send_request(request).block_task().await {
            Ok(response) => Ok(response.content),
            Err(e) => Err(editor_error(path, &e).await),
        }
    }

    async fn write_text(&self, path: &Path, text: &str) -> std::io::Result<()> {
        let request = WriteTextFileRequest::new(self.session()?, path, text);
        match self.cx.send_request(request).block_task().await {
            Ok(_) => Ok(()),
            Err(e) => Err(std::io::Error::other(format!(
                "the editor refused: {}",
                e.message
            ))),
        }
    }
}
