//! The language server the end-to-end tests run, installed by `scripts/setup-language-servers.sh`.

use std::path::PathBuf;

/// `pyright-langserver` from the npm install (`$TUNACODE_LSP_SERVERS`, set by `scripts/test.sh`
/// after `scripts/setup-language-servers.sh`).
pub fn pyright_langserver() -> PathBuf {
    let dir = std::env::var_os("TUNACODE_LSP_SERVERS").map(PathBuf::from);
    match dir.map(|d| d.join("pyright-langserver")) {
        Some(path) if path.exists() => path,
        _ => panic!(
            "pyright is not installed: run `eval \"$(scripts/setup-language-servers.sh)\"` \
             (scripts/test.sh does), which sets TUNACODE_LSP_SERVERS"
        ),
    }
}
