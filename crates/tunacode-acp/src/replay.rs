//! `session/load`: a saved session (ours, from the TUI, `run` or an editor) replayed as the updates
//! that would have shown it: the user's messages, the answers and thoughts, every tool call with its
//! result, then the todo list.

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, NoticeSeverity, SessionUpdate, TextContent, ToolCallStatus,
    ToolCallUpdate, ToolCallUpdateFields,
};
use tunacode_protocol::{Message, Part, content_to_text};

use crate::diffs::text_content;
use crate::session::Session;
use crate::tool_calls;
use crate::updates::{plan, shown_output};

/// A user prompt as the editor shows it: the summary compaction left is a thought.
fn prompt_update(text: &str) -> SessionUpdate {
    let chunk = |text: String| ContentChunk::new(ContentBlock::Text(TextContent::new(text)));
    match text.strip_prefix(tunacode_core::compaction::SUMMARY_HEADER) {
        Some(summary) => SessionUpdate::AgentThoughtChunk(chunk(format!(
            "Earlier turns were summarized for the model:\n{}",
            summary.trim()
        ))),
        None => SessionUpdate::UserMessageChunk(chunk(text.to_string())),
    }
}

/// The updates that show `messages`.
pub(crate) fn history_updates(messages: &[Message], root: &std::path::Path) -> Vec<SessionUpdate> {
    let chunk = |text: String| ContentChunk::new(ContentBlock::Text(TextContent::new(text)));
    let finished = |id: &str, text: String, status| {
        SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
            id.to_string(),
            ToolCallUpdateFields::new()
                .status(status)
                .content(vec![text_content(text)]),
        ))
    };
    let mut updates = Vec::new();
    for message in messages {
        for part in &message.parts {
            let update = match part {
                Part::UserPrompt(p) => prompt_update(&content_to_text(&p.content)),
                Part::Text(t) if message.is_response() && !t.content.trim().is_empty() => {
                    SessionUpdate::AgentMessageChunk(chunk(t.content.clone()))
                }
                Part::Thinking(t) if !t.content.trim().is_empty() => {
                    SessionUpdate::AgentThoughtChunk(chunk(t.content.clone()))
                }
                Part::ToolCall(c) => {
                    let args = c
                        .args_object()
                        .map(serde_json::Value::Object)
                        .unwrap_or_else(|_| c.args.to_value());
                    SessionUpdate::ToolCall(tool_calls::announce(
                        &c.tool_call_id,
                        &c.tool_name,
                        &args,
                        None,
                        root,
                    ))
                }
                Part::ToolReturn(r) => finished(
                    &r.tool_call_id,
                    shown_output(&r.tool_name, &content_to_text(&r.content)),
                    ToolCallStatus::Completed,
                ),
                Part::RetryPrompt(r) => match &r.tool_call_id {
                    Some(id) => {
                        let tool = r.tool_name.as_deref().unwrap_or_default();
                        let text = shown_output(tool, &content_to_text(&r.content));
                        finished(id, text, ToolCallStatus::Failed)
                    }
                    None => continue,
                },
                _ => continue,
            };
            updates.push(update);
        }
    }
    updates
}

impl Session {
    /// Sends the opened session's history (and todo list) to the editor, and what the user should
    /// know about how it opened (messages recovered from its journal, say).
    pub(crate) fn replay_history(&mut self) -> Result<(), Error> {
        for update in history_updates(&self.view.messages, &self.root) {
            self.send(update)?;
        }
        if !self.view.todos.is_empty() {
            self.send(SessionUpdate::Plan(plan(&self.view.todos)))?;
        }
        match self.view.notice.clone() {
            Some(notice) => {
                let severity = match notice.level {
                    tunacode_protocol::NoticeLevel::Info => NoticeSeverity::Info,
                    tunacode_protocol::NoticeLevel::Warning => NoticeSeverity::Warning,
                };
                self.notice(severity, notice.message)
            }
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_history_replays_as_messages_tool_calls_and_results() {
        let messages = vec![
            Message::user("fix it"),
            Message::response(vec![
                Part::thinking("look first", None),
                Part::tool_call("c1", "read_file", json!({"file_path": "a.rs"})),
            ]),
            Message::request(vec![Part::tool_return("c1", "read_file", "fn a() {}")]),
            Message::response(vec![Part::text("Done.")]),
        ];
        let updates = history_updates(&messages, std::path::Path::new("/w"));
        let kinds: Vec<&str> = updates
            .iter()
            .map(|u| match u {
                SessionUpdate::UserMessageChunk(_) => "user",
                SessionUpdate::AgentThoughtChunk(_) => "thought",
                SessionUpdate::ToolCall(_) => "call",
                SessionUpdate::ToolCallUpdate(_) => "result",
                SessionUpdate::AgentMessageChunk(_) => "agent",
                _ => "other",
            })
            .collect();
        assert_eq!(kinds, ["user", "thought", "call", "result", "agent"]);
        let SessionUpdate::ToolCall(call) = &updates[2] else {
            unreachable!()
        };
        assert_eq!(call.title, "Read a.rs");
    }
}
