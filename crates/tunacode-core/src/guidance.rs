//! What the loop says to the model and the user when it steers (seeds 003 and 004): the
//! self-evaluation prompt, the no-progress alert, the progress summary at the iteration limit, the
//! prompts for the user's choices there, and the fallback response built from the tool history.

use std::collections::BTreeMap;

use tunacode_protocol::ToolUse;

use crate::completion::COMPLETION_MARKER;
use crate::registry::{ToolCallRecord, ToolCallStatus};

/// How the loop steers; each part can be switched off in `settings`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GuidanceOptions {
    /// From the third iteration on, ask the model to assess whether the task is complete.
    pub self_evaluation: bool,
    /// After three iterations without a tool call, alert the model.
    pub no_progress_alert: bool,
    /// At the iteration limit with no answer shown, show a summary built from the tool history.
    pub fallback_response: bool,
    /// Show the loop's own steering (self-evaluation) as notices.
    pub show_thoughts: bool,
    /// How a model repeating itself is caught.
    pub loop_detection: tunacode_store::LoopDetectionConfig,
}

impl Default for GuidanceOptions {
    fn default() -> Self {
        GuidanceOptions {
            self_evaluation: true,
            no_progress_alert: true,
            fallback_response: true,
            show_thoughts: false,
            loop_detection: tunacode_store::LoopDetectionConfig::default(),
        }
    }
}

/// The first iteration that carries the self-evaluation prompt (seed 003: "after iteration 2").
pub const SELF_EVALUATION_FROM: u32 = 3;
/// Tool-less iterations in a row before the alert (seed 004).
pub const NO_PROGRESS_THRESHOLD: u32 = 3;
/// How much a "continue" at the limit adds (seed 004).
pub const LIMIT_EXTENSION: u32 = 5;

/// Seed 003 §7's reflection prompt, added to the request the model is about to get.
pub fn self_evaluation_prompt() -> String {
    format!(
        "Reflect on your progress: have you completed the user's task? If so, respond with \
         '{COMPLETION_MARKER}' followed by a summary of what was accomplished. If not, continue working on \
         the task."
    )
}

/// Seed 004's alert after iterations without a tool call.
pub fn no_progress_alert(
    unproductive: u32,
    last_productive: u32,
    iteration: u32,
    max: u32,
    task: &str,
) -> String {
    let task: String = task.chars().take(200).collect();
    format!(
        "ALERT: No tools executed for {unproductive} iterations.\n\n\
         Last productive iteration: {last_productive}\n\
         Current iteration: {iteration}/{max}\n\
         Task: {task}...\n\n\
         You're describing actions but not executing them. You MUST:\n\n\
         1. If task is COMPLETE: Start response with {COMPLETION_MARKER}\n\
         2. If task needs work: Execute a tool RIGHT NOW (grep, read_file, bash, etc.)\n\
         3. If stuck: Explain the specific blocker\n\n\
         NO MORE DESCRIPTIONS. Take ACTION or mark COMPLETE."
    )
}

/// Tools used, by name, in first-use order.
pub fn tools_used(records: &[ToolCallRecord]) -> Vec<ToolUse> {
    let mut order: Vec<String> = Vec::new();
    let mut counts: BTreeMap<String, u32> = BTreeMap::new();
    for r in records {
        if !counts.contains_key(&r.tool_name) {
            order.push(r.tool_name.clone());
        }
        *counts.entry(r.tool_name.clone()).or_default() += 1;
    }
    order
        .into_iter()
        .map(|name| ToolUse {
            count: counts[&name],
            name,
        })
        .collect()
}

fn tools_line(tools: &[ToolUse]) -> String {
    if tools.is_empty() {
        return "No tools used".into();
    }
    tools
        .iter()
        .map(|t| format!("{}: {}", t.name, t.count))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Seed 004's progress summary and choices at the iteration limit; it carries the original query and
/// the progress so far (the clarification request).
pub fn limit_summary(max: u32, iterations: u32, tools: &[ToolUse], query: &str) -> String {
    format!(
        "I've reached the iteration limit ({max}).\n\n\
         Original request: {query}\n\n\
         Progress summary:\n\
         - Tools used: {}\n\
         - Iterations completed: {iterations}\n\n\
         {}",
        tools_line(tools),
        limit_choices()
    )
}

/// The choices that end a [`limit_summary`].
pub fn limit_choices() -> String {
    format!(
        "The task appears incomplete. Would you like me to:\n\
         1. Continue working (the limit grows by {LIMIT_EXTENSION})\n\
         2. Summarize what I've done and stop\n\
         3. Try a different approach"
    )
}

/// A [`limit_summary`] without its choices: what a front end shows above choices of its own, or
/// where nothing can answer (a headless run).
pub fn limit_progress(summary: &str) -> &str {
    summary
        .strip_suffix(limit_choices().as_str())
        .map_or(summary, str::trim_end)
}

/// Told to the model when the user asks for a summary at the limit.
pub const SUMMARIZE_PROMPT: &str = "The iteration limit was reached and the user asked you to stop. \
    Without calling any tool, summarize what you have done, what remains to be done, and anything the \
    user should know.";

/// Told to the model when the user asks for another approach at the limit.
pub const ANOTHER_APPROACH_PROMPT: &str = "The user says the current approach is not working. Step back, \
    reconsider the task from the start, and try a different approach.";

/// Seed 004's fallback response: what was done (from the tool history) and what is left.
pub fn fallback_response(records: &[ToolCallRecord], query: &str, iterations: u32) -> String {
    let mut text = format!(
        "I reached the iteration limit after {iterations} iterations without a final answer.\n\n\
         Task: {query}\n\nWhat was done:\n"
    );
    if records.is_empty() {
        text.push_str("- No tools were run.\n");
    }
    for r in records {
        let target = ["file_path", "command", "pattern", "directory", "path"]
            .iter()
            .find_map(|k| r.args.get(*k).and_then(|v| v.as_str()))
            .map(|t| format!(" {}", t.chars().take(80).collect::<String>()))
            .unwrap_or_default();
        let status = match r.status {
            ToolCallStatus::Completed => "done",
            ToolCallStatus::Failed => "failed",
            ToolCallStatus::Cancelled => "cancelled",
            ToolCallStatus::Registered | ToolCallStatus::Running => "not finished",
        };
        text.push_str(&format!("- {}{target} ({status})\n", r.tool_name));
    }
    text.push_str(
        "\nWhat is left: the task is not confirmed complete. Continue the session (for example with \
         `--continue` and \"continue\") to let the agent finish, or give more specific guidance.",
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(name: &str, args: serde_json::Value, status: ToolCallStatus) -> ToolCallRecord {
        ToolCallRecord {
            tool_call_id: "x".into(),
            tool_name: name.into(),
            args,
            status,
            result: None,
            error: None,
        }
    }

    #[test]
    fn alert_names_iterations_the_task_and_the_three_ways_out() {
        let alert = no_progress_alert(3, 1, 4, 40, "fix the parser");
        assert!(alert.starts_with("ALERT: No tools executed for 3 iterations."));
        for part in [
            "Last productive iteration: 1",
            "Current iteration: 4/40",
            "Task: fix the parser",
            "Start response with TUNACODE DONE:",
            "Explain the specific blocker",
        ] {
            assert!(alert.contains(part), "{part}");
        }
    }

    #[test]
    fn limit_summary_counts_tools_by_name_and_carries_the_query() {
        let records = vec![
            record("read_file", json!({}), ToolCallStatus::Completed),
            record("grep", json!({}), ToolCallStatus::Completed),
            record("read_file", json!({}), ToolCallStatus::Failed),
        ];
        let tools = tools_used(&records);
        assert_eq!(
            tools,
            vec![
                ToolUse {
                    name: "read_file".into(),
                    count: 2
                },
                ToolUse {
                    name: "grep".into(),
                    count: 1
                }
            ]
        );
        let text = limit_summary(10, 10, &tools, "rename foo");
        assert!(
            text.contains("iteration limit (10)") && text.contains("Original request: rename foo")
        );
        assert!(
            text.contains("Tools used: read_file: 2, grep: 1")
                && text.contains("Iterations completed: 10")
        );
        assert!(limit_summary(1, 1, &[], "q").contains("Tools used: No tools used"));
        let progress = limit_progress(&text);
        assert!(
            progress.ends_with("- Iterations completed: 10"),
            "{progress}"
        );
        assert_eq!(limit_progress("not a summary"), "not a summary");
    }

    #[test]
    fn fallback_lists_what_ran_and_what_is_left() {
        let records = vec![
            record(
                "read_file",
                json!({"file_path": "src/a.rs"}),
                ToolCallStatus::Completed,
            ),
            record(
                "bash",
                json!({"command": "cargo test"}),
                ToolCallStatus::Failed,
            ),
        ];
        let text = fallback_response(&records, "make tests pass", 5);
        assert!(text.contains("after 5 iterations") && text.contains("Task: make tests pass"));
        assert!(text.contains("- read_file src/a.rs (done)\n- bash cargo test (failed)"));
        assert!(text.contains("What is left"));
        assert!(fallback_response(&[], "q", 1).contains("No tools were run"));
    }
}
