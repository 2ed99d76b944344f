//! A `session/prompt`'s content as the user message the runtime takes: text as typed; `resource`
//! (a file's text the editor embedded, unsaved changes included) and `resource_link` (a file the
//! editor points at) named in place and attached like `@file` mentions. And the slash commands that
//! make sense outside the TUI, as runtime operations.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_client_protocol::v1::schema::{AvailableCommand, ContentBlock, EmbeddedResourceResource};
use agent_client_protocol::v1::schema::{AvailableCommandInput, UnstructuredCommandInput};
use tokio::io::AsyncReadExt;
use tunacode_core::EditorFiles;
use tunacode_core::Op;
use tunacode_core::mentions::Attachment;
use tunacode_core::runtime::CommandView;
use tunacode_protocol::runtime::ProjectFileKind;
use tunacode_protocol::{SlashCommand as Builtin, parse_slash};

/// Most bytes of a linked file read from disk (the runtime cuts attachments at 100 KiB).
const MAX_LINKED_BYTES: u64 = 100 * 1024 + 1;

/// A prompt as the runtime takes it.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Message {
    /// The text, with each attached file named in place (`` `path` ``).
    pub(crate) text: String,
    /// The files' texts.
    pub(crate) attachments: Vec<Attachment>,
    /// The images, sent as the model's image input.
    pub(crate) images: Vec<tunacode_protocol::runtime::ImageInput>,
}

/// The message for `blocks`; `files` reads linked files (the editor's, else the disk).
pub(crate) async fn message(
    blocks: &[ContentBlock],
    root: &Path,
    files: Option<&Arc<dyn EditorFiles>>,
) -> Message {
    let mut message = Message::default();
    for block in blocks {
        match block {
            ContentBlock::Text(t) => message.text.push_str(&t.text),
            ContentBlock::Resource(embedded) => match &embedded.resource {
                EmbeddedResourceResource::TextResourceContents(r) => {
                    message.attach(shown(&r.uri, root), r.text.clone());
                }
                EmbeddedResourceResource::BlobResourceContents(r) => {
                    message
                        .text
                        .push_str(&format!("[binary resource {} not attached]", r.uri));
                }
                _ => {}
            },
            ContentBlock::ResourceLink(link) => {
                let text = match file_path(&link.uri) {
                    Some(path) => read(&path, files).await,
                    None => None,
                };
                match text {
                    Some(text) => message.attach(shown(&link.uri, root), text),
                    None => message
                        .text
                        .push_str(&format!("[{}]({})", link.name, link.uri)),
                }
            }
            ContentBlock::Image(image) => {
                message
                    .images
                    .push(tunacode_protocol::runtime::ImageInput::Inline {
                        media_type: image.mime_type.clone(),
                        data: image.data.clone(),
                    })
            }
            _ => {}
        }
    }
    message
}

impl Message {
    /// Names `path` in the text and attaches its text.
    fn attach(&mut self, path: String, text: String) {
        self.text.push_str(&format!("`{path}`"));
        self.attachments.push(Attachment { path, text });
    }

    /// The runtime operation sending this message.
    pub(crate) fn into_op(self) -> Op {
        Op::UserMessage {
            text: self.text,
            attachments: self.attachments,
            images: self.images,
        }
    }
}

/// The path of a `file:` URI (percent-decoded; `file://localhost/…` too).
fn file_path(uri: &str) -> Option<PathBuf> {
    let url = url::Url::parse(uri).ok()?;
    (url.scheme() == "file")
        .then(|| url.to_file_path().ok())
        .flatten()
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

/// A linked file's text: through the editor when there is one, else the disk (read no further than
/// an attachment keeps).
async fn read(path: &Path, files: Option<&Arc<dyn EditorFiles>>) -> Option<String> {
    if let Some(files) = files {
        return files.read_text(path).await.ok();
    }
    let file = tokio::fs::File::open(path).await.ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_LINKED_BYTES)
        .read_to_end(&mut bytes)
        .await
        .ok()?;
    if bytes.iter().take(8192).any(|b| *b == 0) {
        return None;
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
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
    /// `RuntimeEvent::Rewound`.
    Rewound,
    /// `RuntimeEvent::Turns`.
    Turns,
    /// `RuntimeEvent::Exported`.
    Exported,
    /// `RuntimeEvent::Budget`.
    Budget,
    /// `RuntimeEvent::ProjectFiles`.
    ProjectFiles,
}

/// The built-in commands offered to editors: name, description, input hint.
const BUILTIN: [(&str, &str, Option<&str>); 13] = [
    (
        "compact",
        "Summarize the older conversation to free context",
        Some("what the summary should keep"),
    ),
    (
        "undo",
        "Put the files back as they were before the last prompt (or the N-th last)",
        Some("how many prompts back"),
    ),
    (
        "rewind",
        "Go back to before prompt N: all (conversation and files), conversation or code; no N lists the prompts",
        Some("N [all|conversation|code]"),
    ),
    (
        "redo",
        "Return to where you were before the rewind (until the next prompt)",
        None,
    ),
    (
        "export",
        "Write the session to a file: .md, .json (for tunacode import) or .html",
        Some("path"),
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
    (
        "hooks",
        "Show the lifecycle hooks in force; approve: use this project's .tunacode/hooks.json",
        Some("approve"),
    ),
    (
        "checks",
        "Show the checks that prove a change; approve: use this project's .tunacode/checks.json",
        Some("approve"),
    ),
    (
        "agents",
        "Show the sub-agent types; approve: use this project's .tunacode/agents",
        Some("approve"),
    ),
    (
        "budget",
        "Show the spend caps, or set one for this session's run: session 5, day 2M tokens, request off",
        Some("scope and amount, e.g. session 5"),
    ),
];

/// The built-in commands an editor runs (the shared parser reads them); `None` for anything else,
/// sent to the runtime as typed (custom commands expand there; the terminal's own commands such as
/// `/theme` mean nothing in an editor). An invalid argument is an error to show.
pub(crate) fn parse_command(text: &str) -> Option<Result<SlashCommand, String>> {
    let command = match parse_slash(text)? {
        Ok(command) => command,
        Err(message) => return Some(Err(message)),
    };
    Some(Ok(match command {
        Builtin::Compact(focus) => SlashCommand::Request(Op::Compact { focus }),
        Builtin::Undo(to) => SlashCommand::Reply(Op::Undo { to }, ReplyKind::Rewound),
        Builtin::Rewind(None) => SlashCommand::Reply(Op::ListTurns, ReplyKind::Turns),
        Builtin::Rewind(Some((to, mode))) => {
            SlashCommand::Reply(Op::Rewind { to, mode }, ReplyKind::Rewound)
        }
        Builtin::Redo => SlashCommand::Reply(Op::Redo, ReplyKind::Rewound),
        Builtin::Export(path) => SlashCommand::Reply(
            Op::Export {
                format: tunacode_protocol::export_format_of(path.as_deref()),
                path,
            },
            ReplyKind::Exported,
        ),
        Builtin::Context => SlashCommand::Reply(Op::DescribeContext, ReplyKind::Context),
        Builtin::Permissions | Builtin::Sandbox(None) => {
            SlashCommand::Reply(Op::DescribePermissions, ReplyKind::Permissions)
        }
        Builtin::Sandbox(Some(mode)) => {
            SlashCommand::Reply(Op::SetSandbox { mode }, ReplyKind::Permissions)
        }
        Builtin::Mcp(_) => SlashCommand::Reply(Op::ListMcp, ReplyKind::Mcp),
        Builtin::Checks(arg) => return Some(project_file(ProjectFileKind::Checks, arg)),
        Builtin::Hooks(arg) => return Some(project_file(ProjectFileKind::Hooks, arg)),
        Builtin::Agents(arg) => return Some(project_file(ProjectFileKind::Agents, arg)),
        Builtin::Budget(None) => SlashCommand::Reply(Op::DescribeBudget, ReplyKind::Budget),
        Builtin::Budget(Some(c)) => SlashCommand::Reply(
            Op::SetBudget {
                scope: c.scope,
                usd: c.usd,
                tokens: c.tokens,
            },
            ReplyKind::Budget,
        ),
        _ => return None,
    }))
}

/// `/checks` or `/hooks`: describe, or approve the project's file.
fn project_file(kind: ProjectFileKind, arg: Option<String>) -> Result<SlashCommand, String> {
    let op = match arg.as_deref() {
        None => Op::DescribeProjectFile { kind },
        Some("approve") => Op::ApproveProjectFile { kind },
        Some(other) => {
            return Err(format!(
                "Unknown {0} argument `{other}`: use {0} or {0} approve.",
                kind.command()
            ));
        }
    };
    Ok(SlashCommand::Reply(op, ReplyKind::ProjectFiles))
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
                ReplyKind::Rewound
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

    #[tokio::test]
    async fn files_are_named_in_place_and_attached() {
        use agent_client_protocol::v1::schema::{
            EmbeddedResource, ResourceLink, TextContent, TextResourceContents,
        };
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("my notes.md"), "linked text\n").unwrap();
        let blocks = vec![
            ContentBlock::Text(TextContent::new("compare ")),
            ContentBlock::Resource(EmbeddedResource::new(
                EmbeddedResourceResource::TextResourceContents(TextResourceContents::new(
                    "unsaved",
                    format!("file://{}/src/a.rs", root.display()),
                )),
            )),
            ContentBlock::Text(TextContent::new(" with ")),
            ContentBlock::ResourceLink(ResourceLink::new(
                "my notes.md",
                format!("file://{}/my%20notes.md", root.display()),
            )),
            ContentBlock::ResourceLink(ResourceLink::new("docs", "https://example.com/docs")),
        ];
        let message = message(&blocks, root, None).await;
        assert_eq!(
            message.text,
            "compare `src/a.rs` with `my notes.md`[docs](https://example.com/docs)"
        );
        let paths: Vec<_> = message
            .attachments
            .iter()
            .map(|a| a.path.as_str())
            .collect();
        assert_eq!(paths, ["src/a.rs", "my notes.md"]);
        assert_eq!(message.attachments[1].text, "linked text\n");
    }
}
