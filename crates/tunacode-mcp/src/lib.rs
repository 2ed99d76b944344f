//! TunaCode's Model Context Protocol client (rmcp, client side only): servers from the user's config,
//! the project's approved `.mcp.json` or an editor, started in the background over stdio or Streamable
//! HTTP in either era of the protocol, their tools offered to the model as `mcp__<server>__<tool>`.

mod config;
mod connect;
mod manager;
mod names;
mod process;
mod result;
mod tool;

pub use config::{
    ConfigSource, DEFAULT_STARTUP_TIMEOUT, DEFAULT_TOOL_TIMEOUT, ServerConfig, ServerEntry,
    TransportConfig, expand_vars, parse_servers,
};
pub use manager::{McpManager, ServerState, ServerStatus, StatusSink};
pub use names::{MAX_NAME_LEN, PREFIX, qualified_name, server_prefix};
pub use tool::McpTool;
