//! Where the MCP servers the tests run are: the in-repo fake (`tunacode-fake-mcp`, built with the
//! workspace) and the reference servers from npm, installed by `scripts/setup-mcp-servers.sh`.

use std::path::PathBuf;

/// The `tunacode-fake-mcp` binary beside the running test's own target directory.
pub fn fake_mcp_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    // Test executables live in target/<profile>/deps; binaries in target/<profile>.
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(PathBuf::from)
        .unwrap_or_default();
    let path = profile_dir.join("tunacode-fake-mcp");
    assert!(
        path.exists(),
        "{} is missing: build the workspace (`cargo build -p tunacode-testkit`) first",
        path.display()
    );
    path
}

/// The `node_modules/.bin` directory holding `mcp-server-everything` and `mcp-server-filesystem`
/// (`$TUNACODE_MCP_SERVERS`, set by `scripts/test.sh` after `scripts/setup-mcp-servers.sh`).
pub fn npm_mcp_bin_dir() -> PathBuf {
    let dir = std::env::var_os("TUNACODE_MCP_SERVERS").map(PathBuf::from);
    match dir {
        Some(dir) if dir.join("mcp-server-everything").exists() => dir,
        _ => panic!(
            "the npm MCP servers are not installed: run `eval \"$(scripts/setup-mcp-servers.sh)\"` \
             (scripts/test.sh does), which sets TUNACODE_MCP_SERVERS"
        ),
    }
}
