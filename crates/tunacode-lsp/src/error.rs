//! [`LspError`]: what can go wrong with a language server.

use std::path::PathBuf;

/// A language server could not be used.
#[derive(Debug, thiserror::Error)]
pub enum LspError {
    /// The process was started without piped stdin and stdout.
    #[error("the server's stdin and stdout are not piped")]
    NoPipes,
    /// A path that cannot be a `file:` URI.
    #[error("{} cannot be sent to a language server", .0.display())]
    Path(PathBuf),
    /// The server did not answer in time.
    #[error("the server did not answer `{0}` in time")]
    Timeout(&'static str),
    /// The connection failed, or the server answered with an error.
    #[error("language server: {0}")]
    Protocol(#[from] async_lsp::Error),
}
