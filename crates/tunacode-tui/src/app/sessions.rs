//! Showing a session's history: its stored messages replayed as transcript cells (at start, and after
//! `/resume`).

use tunacode_protocol::{Message, Part, content_to_text};

use crate::app::state::App;
use crate::app::transcript::{CellKind, ToolCell};
use crate::render::StreamingMarkdown;

impl App {
    /// Rebuilds transcript cells from stored messages.
    pub fn replay(&mut self, messages: &[Message]) {
        for m in messages {
            for part in &m.parts {
                match part {
                    // A compaction's summary is shown as what it is, not as something the user typed.
                    Part::UserPrompt(p) => {
                        let text = content_to_text(&p.content);
                        match text.strip_prefix(tunacode_core::compaction::SUMMARY_HEADER) {
                            Some(summary) => self.view.transcript.push(CellKind::Info(format!(
                                "Earlier turns (kept above) were summarized for the model:\n{}",
                                summary.trim()
                            ))),
                            None => self.view.transcript.push(CellKind::User(text)),
                        }
                    }
                    Part::Text(t) if m.is_response() && !t.content.trim().is_empty() => {
                        let mut md = StreamingMarkdown::new();
                        md.push(&t.content);
                        md.finish();
                        self.view.transcript.push(CellKind::Assistant(md));
                    }
                    Part::Thinking(t) if !t.content.trim().is_empty() => self
                        .view
                        .transcript
                        .push(CellKind::Thinking(t.content.clone())),
                    Part::ToolCall(c) => self.view.transcript.push(CellKind::Tool(ToolCell {
                        id: c.tool_call_id.clone(),
                        name: c.tool_name.to_string(),
                        args: c
                            .args_object()
                            .map(serde_json::Value::Object)
                            .unwrap_or_else(|_| c.args.to_value()),
                        status: None,
                        started: std::time::Instant::now(),
                        duration_ms: Some(0),
                        result: String::new(),
                        diff: None,
                    })),
                    Part::ToolReturn(r) => self.finish_replayed_tool(
                        &r.tool_call_id,
                        content_to_text(&r.content),
                        tunacode_protocol::ToolStatus::Completed,
                    ),
                    Part::RetryPrompt(r) => {
                        if let Some(id) = &r.tool_call_id {
                            self.finish_replayed_tool(
                                id,
                                content_to_text(&r.content),
                                tunacode_protocol::ToolStatus::Failed,
                            );
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    fn finish_replayed_tool(
        &mut self,
        id: &str,
        result: String,
        status: tunacode_protocol::ToolStatus,
    ) {
        if let Some(cell) = self.view.transcript.tool_mut(id) {
            if let CellKind::Tool(t) = &mut cell.kind {
                t.status = Some(status);
                t.result = result;
            }
            cell.touch();
        }
    }
}
