//! Rewind, redo, fork and export: the session as a tree of turns. Every prompt is a node with its
//! place in the conversation and the workspace before and after the turn (snapshots in the shadow
//! store of `checkpoints.rs`, bounded: `snapshot.rs`; completed with the pre-images of the files
//! the turn wrote: `amend.rs`). A rewind cuts the conversation before a prompt
//! (`conversation.rs`) and puts the files back (`code.rs`, `restore.rs`), never over a file the
//! user changed since; redo returns (`session_rewind.rs`). A fork copies the history up to a prompt
//! into a new session (`fork.rs`); an export writes the transcript, and an import reads its JSON
//! back as a new session (`export.rs`, `export_html.rs`, `import.rs`).

mod amend;
mod code;
mod conversation;
mod export;
mod export_html;
mod files;
mod fork;
mod ignored;
mod import;
mod persist;
mod redact;
mod restore;
mod session_rewind;
mod snapshot;

pub(crate) use amend::PreImage;
pub(crate) use conversation::{marked_prompt, new_marker};
pub(crate) use ignored::possibly_ignored;

/// The prompts of `session`, oldest first, as front ends list them.
pub fn turns(session: &crate::session::Session) -> Vec<tunacode_protocol::runtime::TurnView> {
    session
        .tree
        .nodes
        .iter()
        .enumerate()
        .map(|(i, node)| tunacode_protocol::runtime::TurnView {
            number: i + 1,
            text: node.text.clone(),
            time: node.time.clone(),
            files: node.files.clone(),
            in_conversation: conversation::locate(&session.messages, &node.marker).is_some(),
        })
        .collect()
}
pub use export::{EXPORT_VERSION, ExportError, export, export_to_file, write_private_file};
pub use fork::{fork, record_fork};
pub use import::import;
pub(crate) use persist::save_tree;
pub use persist::save_tree_now;
pub use session_rewind::{RewindError, redo, rewind, undo};
pub(crate) use snapshot::is_plain;

#[cfg(test)]
mod attack_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod tests_support;
