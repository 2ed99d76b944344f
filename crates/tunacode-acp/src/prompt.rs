//! A `session/prompt`'s content as the user message the runtime takes: text as typed; `resource`
//! (a file's text the editor embedded, unsaved changes included) and `resource_link` (a file the
//! editor points at) attached as `<file path="…">` blocks, like `@file` mentions. And the slash
//! commands that make sense outside the TUI, as runtime operations.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_client_protocol::v1::schema::{AvailableCommand, ContentBlock, EmbeddedResourceResource};
use agent_client_protocol::v1::schema::{AvailableCommandInput, UnstructuredCommandInput};
use tunacode_core::Op;
use tunacode_core::runtime::CommandView;
use tunacode_tools::EditorFiles;

/// Largest attachment kept whole (as `@file` mentions).
const MAX_ATTACHMENT_BYTES: usize = 100 * 1024;

/// The message text for `blocks`; `files` reads linked files (the editor's, else the disk).
pub(crate) async fn message_text(
    blocks: &[ContentBlock],
    root: &Path,
    files: Option<&Arc<dyn EditorFiles>>,
) -> String {
    let mut text = String::new();
    let mut attachments = String::new();
    for block in blocks {
        match block {
            ContentBlock::Text(t) => text.push_str(&t.text),
            ContentBlock::Resource(embedded) => match &embedded.resource {
                EmbeddedResourceResource::TextResourceContents(r) => {
                    attachments.push_str(&file_block(&shown(&r.uri, root), &r.text));
                }
                EmbeddedResourceResource::BlobResourceContents(r) => {
                    attachments.push_str(&format!("\n\n[binary resource {} not attached]", r.uri));
                }
                _ => {}
            },
            ContentBlock::ResourceLink(link) => {
                let attached = match file_path(&link.uri) {
                    Some(path) => read(&path, files)
                        .await
                        .map(|t| file_block(&shown(&link.uri, root), &t)),
                    None => None,
                };
                attachments.push_str(
                    &attached
                        .unwrap_or_else(|| format!("\n\n[linked: {} <{}>]", link.name, link.uri)),
                );
            }
            ContentBlock::Image(_) => text.push_str("[image not attached: unsupported]"),
            _ => {}
        }
    }
    text.push_str(&attachments);
    text
}

/// The path of a `file://` URI.
fn file_path(uri: &str) -> Option<PathBuf> {
    uri.strip_prefix("file://").map(PathBuf::from)
}

/// How an attachment's path is shown: relative to the working directory when inside it.
fn shown(uri: &str, root: &Path) -> String {
    match file_path(uri) {
        Some(path) => path
            .strip_prefix(root)
            .map_or_else(|_| path.display().to_string(), |p| p.display().to_string()),
        None => uri.to_string(),
    }
}

/// A file's text, through the editor when there is one.
async fn read(path: &Path, files: Option<&Arc<dyn EditorFiles>>) -> Option<String> {
    match files {
        Some(files) => files.read_text(path).await.ok(),
        None => tokio::fs::read_to_string(path).await.ok(),
    }
}

/// An attached file, as `@file` mentions attach it (cut at 100 KiB).
fn file_block(path: &str, text: &str) -> String {
    let mut body = text;
    let mut note = "";
    if body.len() > MAX_ATTACHMENT_BYTES {
        let mut cut = MAX_ATTACHMENT_BYTES;
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        body = &body[..cut];
        note = "\n[… cut at 100 KiB; use read_file for the rest]";
    }
    format!(
        "\n\n<file path=\"{path}\">\n{}{note}\n</file>",
        body.trim_end_matches('\n')
    )
}

/// A slash command handled outside the model, and what the runtime answers it with.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SlashCommand {
    /// Runs as a request (ends with `RequestEnded`), e.g. `/compact`.
    Request(Op),
    /// Answered by one event, shown as the agent's message.
    Reply(Op, ReplyKind),
}

/// Which event answers a [`SlashCommand::Reply`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReplyKind {
    /// `RuntimeEvent::Context`.
    Context,
    /// `RuntimeEvent::Permissions`.
    Permissions,
    /// `RuntimeEvent::McpServers`.
    Mcp,
    /// `RuntimeEvent::Undone`.
    Undone,
}

/// The built-in commands offered to editors: name, description, input hint.
const BUILTIN: [(&str, &str, Option<&str>); 6] = [
    (
        "compact",
        "Summarize the older conversation to free context",
        Some("what the summary should keep"),
    ),
    (
        "undo",
        "Put the files back as they were before the last request (or the N-th last)",
        Some("how many requests back"),
    ),
    (
        "context",
        "Show the instruction files and skills the model reads",
        None,
    ),
    (
        "permissions",
        "Show the sandbox and the permission rules",
        None,
    ),
    (
        "sandbox",
        "Show or change where commands run: workspace-write, read-only, off",
        Some("workspace-write | read-only | off"),
    ),
    ("mcp", "Show the MCP servers and their tools", None),
];

/// Parses a built-in command; `None` for anything else (sent to the runtime as typed: custom commands
/// expand there). An invalid argument is an error to show.
pub(crate) fn parse_command(text: &str) -> Option<Result<SlashCommand, String>> {
    let rest = text.trim().strip_prefix('/')?;
    let (name, arg) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let arg = arg.trim();
    let arg = (!arg.is_empty()).then(|| arg.to_string());
    Some(Ok(match name {
        "compact" => SlashCommand::Request(Op::Compact { focus: arg }),
        "undo" => {
            let to = match arg.as_deref().map(str::parse::<usize>) {
                None => None,
                Some(Ok(n)) if n > 0 => Some(n),
                Some(_) => {
                    return Some(Err(
                        "/undo takes how many requests back, e.g. /undo 2".into()
                    ));
                }
            };
            SlashCommand::Reply(Op::Undo { to }, ReplyKind::Undone)
        }
        "context" => SlashCommand::Reply(Op::DescribeContext, ReplyKind::Context),
        "permissions" => SlashCommand::Reply(Op::DescribePermissions, ReplyKind::Permissions),
        "sandbox" => match arg {
            Some(mode) => SlashCommand::Reply(Op::SetSandbox { mode }, ReplyKind::Permissions),
            None => SlashCommand::Reply(Op::DescribePermissions, ReplyKind::Permissions),
        },
        "mcp" => SlashCommand::Reply(Op::ListMcp, ReplyKind::Mcp),
        _ => return None,
    }))
}

/// The commands an editor offers: the built-in ones, then the project's and user's custom commands.
pub(crate) fn available_commands(custom: &[CommandView]) -> Vec<AvailableCommand> {
    let builtin = BUILTIN.iter().map(|(name, description, hint)| {
        let command = AvailableCommand::new(*name, *description);
        match hint {
            Some(hint) => command.input(AvailableCommandInput::Unstructured(
                UnstructuredCommandInput::new(*hint),
            )),
            None => command,
        }
    });
    let custom = custom.iter().map(|c| {
        AvailableCommand::new(c.name.clone(), c.description.clone()).input(
            AvailableCommandInput::Unstructured(UnstructuredCommandInput::new("arguments")),
        )
    });
    builtin.chain(custom).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_commands_become_operations_and_others_go_to_the_runtime() {
        assert_eq!(
            parse_command("/compact keep the API notes"),
            Some(Ok(SlashCommand::Request(Op::Compact {
                focus: Some("keep the API notes".into())
            })))
        );
        assert_eq!(
            parse_command(" /undo 2"),
            Some(Ok(SlashCommand::Reply(
                Op::Undo { to: Some(2) },
                ReplyKind::Undone
            )))
        );
        assert!(matches!(parse_command("/undo zero"), Some(Err(_))));
        assert_eq!(
            parse_command("/sandbox read-only"),
            Some(Ok(SlashCommand::Reply(
                Op::SetSandbox {
                    mode: "read-only".into()
                },
                ReplyKind::Permissions
            )))
        );
        assert_eq!(
            parse_command("/review src"),
            None,
            "custom commands expand in the runtime"
        );
        assert_eq!(parse_command("fix /tmp paths"), None);
    }

    #[test]
    fn attachments_are_file_blocks_relative_to_the_working_directory() {
        let block = file_block(&shown("file:///w/src/a.rs", Path::new("/w")), "fn a() {}\n");
        assert_eq!(block, "\n\n<file path=\"src/a.rs\">\nfn a() {}\n</file>");
        let big = "é".repeat(MAX_ATTACHMENT_BYTES);
        assert!(file_block("big", &big).contains("cut at 100 KiB"));
    }
}
