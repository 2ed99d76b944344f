//! Rendering the event stream of `tunacode run`: `text` (answer on stdout, activity on stderr), `json`
//! (one result object), `stream-json` (every event as a JSON line, then the result line).

use std::io::Write;

use serde::Serialize;
use serde_json::{Value, json};
use tunacode_protocol::{AgentEvent, NoticeLevel, ToolStatus, Usage};

use crate::args::OutputFormat;

/// One tool call in the result summary.
#[derive(Debug, Clone, Serialize)]
pub struct ToolSummary {
    tool_call_id: String,
    tool_name: String,
    status: ToolStatus,
    duration_ms: u64,
}

/// The final line / object of a run.
#[derive(Debug, Clone, Serialize)]
pub struct RunResult {
    /// `completed`, `answered`, `iteration_limit`, `aborted`, `timeout` or `error`.
    pub status: String,
    /// The process exit code.
    pub exit_code: u8,
    /// The session id (to resume with `--session`).
    pub session_id: String,
    /// The request id.
    pub request_id: String,
    /// `provider:model`.
    pub model: String,
    /// Iterations run.
    pub iterations: u32,
    /// The final answer (marker stripped).
    pub response: String,
    /// Session usage.
    pub usage: Usage,
    /// The error, when the run failed.
    pub error: Option<Value>,
    /// The progress summary, when the iteration limit stopped the run.
    pub limit_summary: Option<String>,
}

/// Renders events as they come.
pub struct Renderer<O: Write, E: Write> {
    format: OutputFormat,
    out: O,
    err: E,
    out_mid_line: bool,
    tools: Vec<ToolSummary>,
    usage: Usage,
    limit_summary: Option<String>,
}

impl<O: Write, E: Write> Renderer<O, E> {
    /// A renderer writing to `out` (stdout) and `err` (stderr).
    pub fn new(format: OutputFormat, out: O, err: E) -> Self {
        Renderer {
            format,
            out,
            err,
            out_mid_line: false,
            tools: Vec::new(),
            usage: Usage::default(),
            limit_summary: None,
        }
    }

    /// Writes a note to stderr in text mode (other modes keep stderr for errors only).
    pub fn note(&mut self, text: &str) {
        if self.format == OutputFormat::Text {
            self.end_out_line();
            let _ = writeln!(self.err, "{text}");
        }
    }

    /// Handles one event.
    pub fn event(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::ToolCallFinished {
                tool_call_id,
                tool_name,
                status,
                duration_ms,
                ..
            } => self.tools.push(ToolSummary {
                tool_call_id: tool_call_id.clone(),
                tool_name: tool_name.clone(),
                status: *status,
                duration_ms: *duration_ms,
            }),
            AgentEvent::UsageUpdated { session_total, .. } => self.usage = *session_total,
            AgentEvent::IterationLimitReached { summary, .. } => {
                self.limit_summary = Some(summary.clone())
            }
            _ => {}
        }
        match self.format {
            OutputFormat::StreamJson => {
                if let Ok(line) = serde_json::to_string(event) {
                    let _ = writeln!(self.out, "{line}");
                    let _ = self.out.flush();
                }
            }
            OutputFormat::Text => self.text_event(event),
            OutputFormat::Json => {}
        }
    }

    fn text_event(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::TextDelta { text } => {
                let _ = write!(self.out, "{text}");
                let _ = self.out.flush();
                self.out_mid_line = !text.ends_with('\n');
            }
            AgentEvent::ToolCallStarted {
                tool_name, args, ..
            } => {
                self.end_out_line();
                let _ = writeln!(self.err, "→ {tool_name} {}", key_args(args));
            }
            AgentEvent::ToolCallFinished {
                tool_name,
                status,
                duration_ms,
                result,
                ..
            } => {
                let line = match status {
                    ToolStatus::Completed => format!("  ✓ {tool_name} ({duration_ms} ms)"),
                    ToolStatus::Failed => {
                        format!("  ✗ {tool_name}: {}", first_line(result, 160))
                    }
                    ToolStatus::Cancelled => format!("  ⊘ {tool_name} cancelled"),
                };
                let _ = writeln!(self.err, "{line}");
            }
            AgentEvent::FallbackResponse { text } | AgentEvent::PlanPresented { plan: text } => {
                self.end_out_line();
                let _ = writeln!(self.out, "{text}");
                let _ = self.out.flush();
            }
            AgentEvent::IterationLimitReached { summary, .. } => {
                self.end_out_line();
                let _ = writeln!(self.err, "{summary}");
            }
            AgentEvent::TodosUpdated { items } => {
                self.end_out_line();
                let _ = writeln!(self.err, "todo:");
                for t in items {
                    let mark = match t.status {
                        tunacode_protocol::TodoStatus::Pending => "[ ]",
                        tunacode_protocol::TodoStatus::InProgress => "[~]",
                        tunacode_protocol::TodoStatus::Completed => "[x]",
                    };
                    let _ = writeln!(self.err, "  {mark} {}. {}", t.id, t.content);
                }
            }
            AgentEvent::PlanModeChanged { active } => {
                self.end_out_line();
                let state = if *active {
                    "on: read-only until a plan is approved"
                } else {
                    "off"
                };
                let _ = writeln!(self.err, "plan mode {state}");
            }
            AgentEvent::Notice { level, message } => {
                self.end_out_line();
                let tag = match level {
                    NoticeLevel::Info => "note",
                    NoticeLevel::Warning => "warning",
                };
                let _ = writeln!(self.err, "{tag}: {message}");
            }
            _ => {}
        }
    }

    fn end_out_line(&mut self) {
        if self.out_mid_line {
            let _ = writeln!(self.out);
            let _ = self.out.flush();
            self.out_mid_line = false;
        }
    }

    /// Writes the end of the run.
    pub fn finish(&mut self, mut result: RunResult) {
        if result.usage == Usage::default() {
            result.usage = self.usage;
        }
        if result.limit_summary.is_none() && result.status == "iteration_limit" {
            result.limit_summary = self.limit_summary.clone();
        }
        let mut value = match serde_json::to_value(&result) {
            Ok(v) => v,
            Err(_) => return,
        };
        value["tool_calls"] = json!(self.tools);
        match self.format {
            OutputFormat::Text => {
                self.end_out_line();
                if let Some(err) = &result.error {
                    let msg = err.get("message").and_then(Value::as_str).unwrap_or("");
                    let _ = writeln!(self.err, "tunacode: {}: {msg}", result.status);
                } else if result.status == "iteration_limit" {
                    let _ = writeln!(
                        self.err,
                        "tunacode: stopped at the iteration limit ({} iterations); the task may be \
                         unfinished. Continue with: tunacode run --session {} \"continue\"",
                        result.iterations, result.session_id
                    );
                }
            }
            OutputFormat::Json => {
                let _ = writeln!(self.out, "{value}");
            }
            OutputFormat::StreamJson => {
                value["type"] = json!("result");
                let _ = writeln!(self.out, "{value}");
            }
        }
        let _ = self.out.flush();
        let _ = self.err.flush();
    }
}

/// The argument worth showing for a tool call (a path, a pattern, a command), shortened.
fn key_args(args: &Value) -> String {
    let keys = ["file_path", "command", "pattern", "directory", "path"];
    let shown = keys
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
        .map(str::to_string)
        .unwrap_or_else(|| args.to_string());
    first_line(&shown, 100)
}

fn first_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() > max {
        format!("{}…", line.chars().take(max).collect::<String>())
    } else {
        line.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(status: &str) -> RunResult {
        RunResult {
            status: status.into(),
            exit_code: 0,
            session_id: "s".into(),
            request_id: "r".into(),
            model: "m".into(),
            iterations: 2,
            response: "hi".into(),
            usage: Usage::default(),
            error: None,
            limit_summary: None,
        }
    }

    #[test]
    fn text_mode_streams_answer_to_stdout_and_activity_to_stderr() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mut r = Renderer::new(OutputFormat::Text, &mut out, &mut err);
        r.event(&AgentEvent::TextDelta {
            text: "Reading".into(),
        });
        r.event(&AgentEvent::ToolCallStarted {
            tool_call_id: "c".into(),
            tool_name: "read_file".into(),
            args: json!({"file_path": "src/main.rs"}),
        });
        r.event(&AgentEvent::ToolCallFinished {
            tool_call_id: "c".into(),
            tool_name: "read_file".into(),
            args: json!({}),
            result: "x".into(),
            duration_ms: 3,
            status: ToolStatus::Completed,
            diff: None,
        });
        r.finish(result("answered"));
        assert_eq!(String::from_utf8(out).unwrap(), "Reading\n");
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "→ read_file src/main.rs\n  ✓ read_file (3 ms)\n"
        );
    }

    #[test]
    fn stream_json_prints_every_event_and_a_result_line() {
        let mut out = Vec::new();
        let mut r = Renderer::new(OutputFormat::StreamJson, &mut out, Vec::new());
        r.event(&AgentEvent::TextDelta { text: "a".into() });
        r.finish(result("completed"));
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0], json!({"type": "text_delta", "text": "a"}));
        assert_eq!(lines[1]["type"], "result");
        assert_eq!(lines[1]["status"], "completed");
        assert_eq!(lines[1]["tool_calls"], json!([]));
    }
}
