//! Language-server diagnostics after edits (issue "proof of done", point 2): the servers the config
//! names, or those the repository implies when their program is installed (`servers.rs`), started
//! lazily in the commands' sandbox and stopped with the runtime (`manager.rs`); after an edit, the
//! errors each server reports that the file did not have before, for it and the other files it
//! republished, at most 20 a file and 5 files, "incomplete" when the server did not answer in time
//! (`report.rs`).

mod manager;
mod report;
mod servers;

pub use manager::LspManager;
pub use report::{EditReport, FileErrors};
pub use servers::{ServerSpec, implied_servers, server_specs};
