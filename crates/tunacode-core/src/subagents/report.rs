//! What a sub-agent did, read from its session after it ended (whether it finished, failed midway
//! or was stopped: what it found so far is never lost), and the text its parent's model gets.

use std::time::Duration;

use serde_json::Value;
use tunacode_protocol::runtime::{SubagentLabel, SubagentReport, SubagentStatus};
use tunacode_protocol::{Message, Part};
use tunacode_tools::{ToolSet, Workspace};

use crate::agent::{Agent, RunOutcome};
use crate::error::RequestError;

/// How much of a sub-agent's text the parent gets when it stopped before answering (its end).
const PARTIAL_TEXT_LIMIT: usize = 12_000;

/// The report of `child`, which ended with `outcome` after `elapsed`.
pub(super) async fn gather(
    child: &Agent,
    label: SubagentLabel,
    outcome: Result<RunOutcome, RequestError>,
    elapsed: Duration,
) -> SubagentReport {
    let (session_id, messages, usage) = {
        let session = child.session.lock();
        (
            session.id.clone(),
            session.messages.clone(),
            session.usage.session_total,
        )
    };
    let (tools, workspace) = (child.tools.clone(), child.workspace.clone());
    let touched = tokio::task::spawn_blocking(move || touched(&messages, &tools, &workspace))
        .await
        .unwrap_or_default();
    let (status, answer, error) = match outcome {
        Ok(outcome) => (status_of(&outcome), outcome.response, None),
        Err(e) => (
            failure_status(&e),
            touched.text.clone(),
            Some(e.to_string()),
        ),
    };
    SubagentReport {
        label,
        session_id,
        model: child.options.model.clone(),
        status,
        answer,
        error,
        files_read: touched.read,
        files_changed: touched.changed,
        commands: touched.commands,
        usage,
        duration_ms: elapsed.as_millis() as u64,
        diff: String::new(),
        diff_outcome: None,
    }
}

fn status_of(outcome: &RunOutcome) -> SubagentStatus {
    use tunacode_protocol::FinishReason;
    match outcome.reason {
        FinishReason::IterationLimit | FinishReason::LoopDetected => SubagentStatus::Limit,
        _ => SubagentStatus::Done,
    }
}

fn failure_status(error: &RequestError) -> SubagentStatus {
    match error {
        RequestError::Aborted => SubagentStatus::Cancelled,
        RequestError::Budget(_) => SubagentStatus::Budget,
        _ => SubagentStatus::Error,
    }
}

/// What the calls of a conversation touched, and the text it wrote.
#[derive(Debug, Default)]
struct Touched {
    read: Vec<String>,
    changed: Vec<String>,
    commands: Vec<String>,
    text: String,
}

/// Reads the calls that were answered (not refused or retried) of `messages`: files read, files
/// changed (the paths the tool says it changes), commands run; and the texts written.
fn touched(messages: &[Message], tools: &ToolSet, workspace: &Workspace) -> Touched {
    let mut found = Touched::default();
    let answered: Vec<&str> = messages
        .iter()
        .flat_map(|m| m.parts.iter())
        .filter_map(|p| match p {
            Part::ToolReturn(r) => Some(r.tool_call_id.as_str()),
            _ => None,
        })
        .collect();
    let mut texts = Vec::new();
    for message in messages.iter().filter(|m| m.is_response()) {
        let text = message.text();
        if !text.trim().is_empty() {
            texts.push(text);
        }
        for call in message.tool_calls() {
            if answered.contains(&call.tool_call_id.as_str()) {
                record_call(&mut found, call, tools, workspace);
            }
        }
    }
    found.text = tail(&texts.join("\n\n"), PARTIAL_TEXT_LIMIT);
    found
}

fn record_call(
    found: &mut Touched,
    call: &tunacode_protocol::ToolCallPart,
    tools: &ToolSet,
    workspace: &Workspace,
) {
    let Ok(args) = call.args_object() else {
        return;
    };
    let text = |key: &str| args.get(key).and_then(Value::as_str).map(str::to_string);
    let push = |list: &mut Vec<String>, item: String| {
        if !list.contains(&item) {
            list.push(item);
        }
    };
    match call.tool_name.as_str() {
        "read_file" => {
            if let Some(path) = text("file_path") {
                push(&mut found.read, path);
            }
        }
        "bash" | "run_command" => {
            let mut line = text("command").unwrap_or_default();
            if let Some(Value::Array(words)) = args.get("args") {
                for word in words.iter().filter_map(Value::as_str) {
                    line.push(' ');
                    line.push_str(word);
                }
            }
            push(&mut found.commands, line);
        }
        name => {
            let Some(tool) = tools.get(name) else { return };
            for path in tool.target_paths(&args, workspace) {
                let shown = path
                    .strip_prefix(workspace.root())
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                push(&mut found.changed, shown);
            }
        }
    }
}

/// The end of `text`, at most `limit` bytes, cut at a character boundary.
fn tail(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_string();
    }
    let mut start = text.len() - limit;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("…{}", &text[start..])
}

/// The text the parent's model gets: how it ended, what it touched and cost, then its answer.
pub(super) fn model_text(report: &SubagentReport) -> String {
    let list = |items: &[String]| match items.is_empty() {
        true => "none".to_string(),
        false => items.join(", "),
    };
    let usage = &report.usage;
    let mut text = format!(
        "Sub-agent `{}` ({}) ended: {}. {:.1} s, {} tokens in, {} out, ${:.4}. Session {}.\n",
        report.label.agent_type,
        report.label.description,
        report.status.name(),
        report.duration_ms as f64 / 1000.0,
        usage.request_tokens,
        usage.response_tokens,
        usage.cost,
        report.session_id,
    );
    if let Some(error) = &report.error {
        text.push_str(&format!("It stopped early: {error}\n"));
    }
    text.push_str(&format!("Files read: {}\n", list(&report.files_read)));
    text.push_str(&format!("Files changed: {}\n", list(&report.files_changed)));
    text.push_str(&format!("Commands run: {}\n", list(&report.commands)));
    if let Some(outcome) = &report.diff_outcome {
        text.push_str(&format!("Its changes: {outcome}\n"));
    }
    let heading = match report.error {
        Some(_) => "What it wrote before it stopped",
        None => "Its answer",
    };
    let answer = match report.answer.trim() {
        "" => "(nothing)",
        answer => answer,
    };
    text.push_str(&format!("{heading}:\n{answer}"));
    text
}

#[cfg(test)]
#[path = "report_tests.rs"]
mod tests;
