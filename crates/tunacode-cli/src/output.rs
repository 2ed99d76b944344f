//! Rendering the runtime's events for `tunacode run`: `text` (answer on stdout, activity on stderr),
//! `json` (one result object), `stream-json` (every event as a line of the public schema in
//! `schema.rs`, and a `result` line after each request).

use std::io::Write;

use serde::Serialize;
use serde_json::{Value, json};
use tunacode_core::{RequestEnd, RuntimeEvent};
use tunacode_protocol::{AgentEvent, NoticeLevel, ToolStatus};

use crate::args::OutputFormat;
use crate::tool_lines::{first_line, key_args};
use tunacode_protocol::stream::{self as schema, Line, RunResult, ToolSummary};

/// The task finished.
pub const EXIT_OK: u8 = 0;
/// Something failed.
pub const EXIT_ERROR: u8 = 1;
/// The command line was wrong (a missing task, flags that do not go together): as clap's own.
pub const EXIT_USAGE: u8 = 2;

/// A mistake in how `tunacode` was called: exits with [`EXIT_USAGE`].
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}
/// The iteration limit stopped the task.
pub const EXIT_ITERATION_LIMIT: u8 = 3;
/// The time limit stopped the task.
pub const EXIT_TIMEOUT: u8 = 4;
/// The user interrupted.
pub const EXIT_INTERRUPTED: u8 = 130;
/// A budget could not pay for the next model call, which was not sent.
pub const EXIT_BUDGET: u8 = 5;
/// The model kept repeating itself after it was told to change approach (status `loop_detected`).
pub const EXIT_LOOP: u8 = 6;

/// Renders events as they come.
pub struct Renderer<O: Write, E: Write> {
    format: OutputFormat,
    out: O,
    err: E,
    out_mid_line: bool,
    tools: Vec<ToolSummary>,
    limit_summary: Option<String>,
    /// The error the last retry notice said (the next retries of the same error say only their wait).
    last_retry_error: Option<String>,
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
            limit_summary: None,
            last_retry_error: None,
        }
    }

    /// Writes a note to stderr in text mode (other modes keep stderr for errors only).
    pub fn note(&mut self, text: &str) {
        if self.format == OutputFormat::Text {
            self.end_out_line();
            let _ = writeln!(self.err, "{text}");
        }
    }

    /// Handles one runtime event (`RequestEnded` is rendered by [`Renderer::finish`]).
    pub fn runtime_event(&mut self, event: &RuntimeEvent) {
        if let RuntimeEvent::Agent(e) = event {
            self.record(e);
        }
        match self.format {
            OutputFormat::StreamJson => {
                if let Some(line) = schema::line_of(event) {
                    self.line(&line);
                }
                if let RuntimeEvent::SessionOpened(view) = event
                    && let Some(notice) = schema::session_notice(view)
                {
                    self.line(&Line::new(notice));
                }
                if let Some(warning) = crate::mcp_cmd::failure_notice(event) {
                    self.line(&Line::new(schema::OutputEvent::notice("warning", warning)));
                }
            }
            OutputFormat::Text => match event {
                RuntimeEvent::Agent(e) => self.text_event(e),
                RuntimeEvent::UserMessage { attached, .. } if !attached.is_empty() => {
                    self.note(&format!("note: attached {}", attached.join(", ")))
                }
                RuntimeEvent::SessionOpened(view) => {
                    if let Some(notice) = &view.notice {
                        let label = match notice.level {
                            tunacode_protocol::NoticeLevel::Info => "note",
                            tunacode_protocol::NoticeLevel::Warning => "warning",
                        };
                        self.note(&format!("{label}: {}", notice.message));
                    }
                }
                RuntimeEvent::OpFailed(failure) => self.note(&format!("error: {failure}")),
                RuntimeEvent::Subagent(update) => {
                    if let Some(line) = crate::tool_lines::subagent_line(update) {
                        self.note(&line);
                    }
                }
                RuntimeEvent::Rewound(rewound) => self.note(&rewound.describe()),
                RuntimeEvent::Forked(forked) => self.note(&format!(
                    "forked session {} after prompt {} into {}",
                    forked.parent, forked.prompt, forked.session_id
                )),
                RuntimeEvent::McpProjectPending { file, servers } => self.note(&format!(
                    "warning: {}",
                    tunacode_protocol::pending_mcp_notice(file, servers)
                )),
                RuntimeEvent::ProjectFilePending(pending) => {
                    self.note(&format!("warning: {}", pending.notice()))
                }
                event => {
                    if let Some(warning) = crate::mcp_cmd::failure_notice(event) {
                        self.note(&format!("warning: {warning}"));
                    }
                }
            },
            OutputFormat::Json => {}
        }
    }

    /// Reports a line of input that could not be used (stream-json input).
    pub fn input_error(&mut self, message: &str) {
        match self.format {
            OutputFormat::StreamJson => self.line(&Line::new(schema::OutputEvent::Error {
                message: message.to_string(),
            })),
            _ => {
                let _ = writeln!(self.err, "error: {message}");
            }
        }
    }

    fn line<T: Serialize>(&mut self, line: &T) {
        if let Ok(text) = serde_json::to_string(line) {
            let _ = writeln!(self.out, "{text}");
            let _ = self.out.flush();
        }
    }

    /// Keeps what the result line reports.
    fn record(&mut self, event: &AgentEvent) {
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
            AgentEvent::IterationLimitReached { summary, .. } => {
                self.limit_summary = Some(summary.clone())
            }
            _ => {}
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
                let line = finished_line(tool_name, *status, *duration_ms, result);
                let _ = writeln!(self.err, "{line}");
            }
            AgentEvent::FallbackResponse { text } | AgentEvent::PlanPresented { plan: text } => {
                self.end_out_line();
                let _ = writeln!(self.out, "{text}");
                let _ = self.out.flush();
            }
            AgentEvent::IterationLimitReached { summary, .. } => {
                // A terminal prompt asks the choices; with none, the run stops here.
                self.end_out_line();
                let progress = tunacode_core::guidance::limit_progress(summary);
                let _ = writeln!(self.err, "{progress}");
            }
            AgentEvent::TodosUpdated { items } => {
                self.end_out_line();
                let _ = writeln!(self.err, "{}", todo_lines(items));
            }
            AgentEvent::PlanModeChanged { active } => {
                self.end_out_line();
                let _ = writeln!(self.err, "{}", plan_mode_line(*active));
            }
            AgentEvent::CheckFinished { phase, check } => {
                self.end_out_line();
                let _ = writeln!(
                    self.err,
                    "{}",
                    crate::check_lines::check_line(*phase, check)
                );
            }
            AgentEvent::Notice { level, message } => self.text_notice(*level, message),
            _ => {}
        }
    }

    /// A notice on stderr. The retries of one failing call say their error once, then a short line
    /// each (`  retrying in 2.0s (retry 2 of 4)`), instead of a block per retry.
    fn text_notice(&mut self, level: NoticeLevel, message: &str) {
        self.end_out_line();
        let tag = match level {
            NoticeLevel::Info => "note",
            NoticeLevel::Warning => "warning",
        };
        let Some((error, wait)) = message.split_once(tunacode_protocol::RETRY_NOTICE_MARK) else {
            self.last_retry_error = None;
            let _ = writeln!(self.err, "{tag}: {message}");
            return;
        };
        if self.last_retry_error.as_deref() != Some(error) {
            let _ = writeln!(self.err, "{tag}: {error}");
            self.last_retry_error = Some(error.to_string());
        }
        let _ = writeln!(self.err, "  retrying in {wait}");
    }

    fn end_out_line(&mut self) {
        if self.out_mid_line {
            let _ = writeln!(self.out);
            let _ = self.out.flush();
            self.out_mid_line = false;
        }
    }

    /// Writes the end of one request (the `result` line / object); returns its exit code.
    pub fn finish(&mut self, end: &RequestEnd) -> u8 {
        let mut result = run_result(end);
        if result.status == "iteration_limit" {
            result.limit_summary = self.limit_summary.take();
        }
        result.tool_calls = std::mem::take(&mut self.tools);
        let code = result.exit_code;
        let mut value = match serde_json::to_value(&result) {
            Ok(v) => v,
            Err(_) => return code,
        };
        match self.format {
            OutputFormat::Text => {
                self.end_out_line();
                let verdict = result.verification.as_ref();
                if let Some(line) = verdict.and_then(crate::check_lines::verdict_line) {
                    let _ = writeln!(self.err, "{line}");
                }
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
                value["schema_version"] = json!(schema::SCHEMA_VERSION);
                let _ = writeln!(self.out, "{value}");
            }
        }
        let _ = self.out.flush();
        let _ = self.err.flush();
        code
    }
}

/// The result of one request, and its exit code.
fn run_result(end: &RequestEnd) -> RunResult {
    let mut result = RunResult {
        status: String::new(),
        exit_code: EXIT_OK,
        session_id: end.session_id.clone(),
        request_id: end.request_id.clone(),
        model: end.model.clone(),
        iterations: 0,
        response: String::new(),
        usage: (&end.usage).into(),
        error: None,
        limit_summary: None,
        tool_calls: Vec::new(),
        verification: None,
    };
    let (status, code) = match &end.outcome {
        Ok(outcome) => {
            result.iterations = outcome.iterations;
            result.response = outcome.response.clone();
            result.verification = Some((&outcome.verification).into());
            match outcome.reason {
                tunacode_protocol::FinishReason::IterationLimit => {
                    ("iteration_limit", EXIT_ITERATION_LIMIT)
                }
                tunacode_protocol::FinishReason::LoopDetected => ("loop_detected", EXIT_LOOP),
                reason => (schema::finish_reason(reason), EXIT_OK),
            }
        }
        Err(err) => {
            result.error = Some(json!({"kind": err.kind, "message": err.message}));
            match err {
                e if e.aborted() => ("aborted", EXIT_INTERRUPTED),
                e if e.timed_out() => ("timeout", EXIT_TIMEOUT),
                e if e.kind == "budget_exhausted" => ("budget_exhausted", EXIT_BUDGET),
                _ => ("error", EXIT_ERROR),
            }
        }
    };
    (result.status, result.exit_code) = (status.to_string(), code);
    result
}

/// A finished tool call, one line for stderr.
fn finished_line(tool_name: &str, status: ToolStatus, duration_ms: u64, result: &str) -> String {
    match status {
        ToolStatus::Completed => format!("  ✓ {tool_name} ({duration_ms} ms)"),
        ToolStatus::Failed => format!("  ✗ {tool_name}: {}", first_line(result, 160)),
        ToolStatus::Cancelled => format!("  ⊘ {tool_name} cancelled"),
    }
}

/// Plan mode turned on or off, one line.
fn plan_mode_line(active: bool) -> &'static str {
    if active {
        "plan mode on: read-only until a plan is approved"
    } else {
        "plan mode off"
    }
}

/// The todo list, a line an item under `todo:`.
fn todo_lines(items: &[tunacode_protocol::TodoItem]) -> String {
    let mut text = "todo:".to_string();
    for t in items {
        let mark = match t.status {
            tunacode_protocol::TodoStatus::Pending => "[ ]",
            tunacode_protocol::TodoStatus::InProgress => "[~]",
            tunacode_protocol::TodoStatus::Completed => "[x]",
        };
        text.push_str(&format!("\n  {mark} {}. {}", t.id, t.content));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use tunacode_core::RunOutcome;
    use tunacode_protocol::{FinishReason, Usage};

    fn end(reason: FinishReason) -> RequestEnd {
        RequestEnd {
            request_id: "r".into(),
            session_id: "s".into(),
            model: "m".into(),
            outcome: Ok(RunOutcome {
                reason,
                iterations: 2,
                response: "hi".into(),
                request_id: "r".into(),
                model_stop: None,
                verification: Default::default(),
            }),
            usage: Usage::default(),
        }
    }

    fn agent(e: AgentEvent) -> RuntimeEvent {
        RuntimeEvent::Agent(e)
    }

    #[test]
    fn text_mode_streams_answer_to_stdout_and_activity_to_stderr() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mut r = Renderer::new(OutputFormat::Text, &mut out, &mut err);
        r.runtime_event(&agent(AgentEvent::TextDelta {
            text: "Reading".into(),
        }));
        r.runtime_event(&agent(AgentEvent::ToolCallStarted {
            tool_call_id: "c".into(),
            tool_name: "read_file".into(),
            args: json!({"file_path": "src/main.rs"}),
            kind: tunacode_protocol::ToolKind::ReadOnly,
        }));
        r.runtime_event(&agent(AgentEvent::ToolCallFinished {
            tool_call_id: "c".into(),
            tool_name: "read_file".into(),
            args: json!({}),
            result: "x".into(),
            duration_ms: 3,
            status: ToolStatus::Completed,
            diff: None,
        }));
        assert_eq!(r.finish(&end(FinishReason::Answered)), EXIT_OK);
        assert_eq!(String::from_utf8(out).unwrap(), "Reading\n");
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "→ read_file src/main.rs\n  ✓ read_file (3 ms)\n"
        );
    }

    #[test]
    fn stream_json_lines_carry_the_schema_version_and_each_request_its_result() {
        let mut out = Vec::new();
        let mut r = Renderer::new(OutputFormat::StreamJson, &mut out, Vec::new());
        r.runtime_event(&agent(AgentEvent::TextDelta { text: "a".into() }));
        r.runtime_event(&agent(AgentEvent::ToolCallFinished {
            tool_call_id: "c".into(),
            tool_name: "grep".into(),
            args: json!({}),
            result: "x".into(),
            duration_ms: 1,
            status: ToolStatus::Completed,
            diff: None,
        }));
        assert_eq!(r.finish(&end(FinishReason::Completed)), EXIT_OK);
        assert_eq!(
            r.finish(&end(FinishReason::IterationLimit)),
            EXIT_ITERATION_LIMIT
        );
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(
            lines[0],
            json!({"schema_version": 6, "type": "text_delta", "text": "a"})
        );
        assert_eq!(lines[2]["type"], "result");
        assert_eq!(lines[2]["schema_version"], 6);
        assert_eq!(lines[2]["status"], "completed");
        assert_eq!(lines[2]["tool_calls"][0]["tool_name"], "grep");
        assert_eq!(lines[3]["status"], "iteration_limit");
        assert_eq!(lines[3]["tool_calls"], json!([]));
        assert!(lines.iter().all(|l| l["schema_version"] == 6));
    }
}
