//! [`Proof`]: the step that runs the project's checks and keeps what they proved. Before the
//! request's first file edit it runs the after-edit checks once (the baseline: what already fails is
//! not blamed on the agent); after a batch that edited files it runs the after-edit checks covering
//! them and appends what they report that the baseline did not to the last edit's result; when the
//! model says it is done (`completion.rs`) it runs the rest and sends the model back while checks
//! fail, up to `max_rounds`. The request ends `verified`, `unverified` or `failing`. The language
//! servers' new errors (`diagnose.rs`) join the checks' report on the last edit.

use std::collections::HashMap;
use std::path::PathBuf;

use globset::{Glob, GlobSet, GlobSetBuilder};
use tunacode_protocol::{AgentEvent, CheckPhase, Part, ToolCallPart, ToolKind};
use tunacode_tools::{ToolContext, ToolError, ToolSet};

use super::diagnose;
use super::request::{Interrupt, Request};
use crate::checks::{CheckRun, CheckSpec, CheckWhen, new_failures, run_check};
use crate::dispatch::append_to_answer;
use crate::registry::ToolCallStatus;

/// The request's checks and what they showed.
#[derive(Debug, Default)]
pub(super) struct Proof {
    /// The after-edit checks' runs before the first edit, by check index (`None`: not taken yet).
    baseline: Option<HashMap<usize, CheckRun>>,
    /// Whether the model changed anything (a file edit, or a command that may write).
    pub(super) edited: bool,
    /// Files the request's edits touched.
    pub(super) files: Vec<PathBuf>,
    /// Each check's last run since the last edit, by index.
    pub(super) since_edit: HashMap<usize, CheckRun>,
    /// Completion rounds that failed so far.
    pub(super) rounds: u32,
    /// A command that may write ran since the checks last ran (their failures may be stale).
    pub(super) commands_since: bool,
}

impl Proof {
    /// Before a batch: the baseline, when the batch edits files and none was taken.
    pub(super) async fn before_batch(
        &mut self,
        req: &Request<'_>,
        tools: &ToolSet,
        calls: &[ToolCallPart],
    ) -> Result<(), Interrupt> {
        let targets = edit_targets(req, tools, calls);
        // In plan mode the edits are refused: nothing to measure them against.
        if targets.is_empty() || req.agent.session.lock().plan_mode {
            return Ok(());
        }
        diagnose::before_edits(req, &targets).await;
        let checks = &req.agent.options.checks.list;
        let after_edit = indexes(checks, CheckWhen::AfterEdit);
        if self.baseline.is_some() || after_edit.is_empty() {
            return Ok(());
        }
        let mut baseline = HashMap::new();
        for index in after_edit {
            let run = run_one(req, &checks[index], CheckPhase::Baseline).await?;
            baseline.insert(index, run);
        }
        self.baseline = Some(baseline);
        Ok(())
    }

    /// After a batch: notes what it changed, runs the after-edit checks covering the files it
    /// edited and appends their new failures to the last edit's answer; `true` when an answer
    /// changed.
    pub(super) async fn after_batch(
        &mut self,
        req: &Request<'_>,
        tools: &ToolSet,
        calls: &[ToolCallPart],
        answers: &mut [Part],
    ) -> Result<bool, Interrupt> {
        // What each call that completed did, worked out once (classifying a command parses it).
        let done = succeeded(req, calls);
        let ran: Vec<(&ToolCallPart, bool, Vec<PathBuf>)> = calls
            .iter()
            .filter(|c| done.contains(&c.tool_call_id))
            .map(|c| {
                (
                    c,
                    changes(tools, c),
                    edit_targets(req, tools, std::slice::from_ref(c)),
                )
            })
            .collect();
        if ran.iter().any(|(_, changed, _)| *changed) {
            self.edited = true;
        }
        if ran
            .iter()
            .any(|(_, changed, files)| *changed && files.is_empty())
        {
            self.commands_since = true;
        }
        let Some((last, _, _)) = ran.iter().rev().find(|(_, _, files)| !files.is_empty()) else {
            return Ok(false);
        };
        let last = last.tool_call_id.clone();
        let edited: Vec<PathBuf> = ran.into_iter().flat_map(|(_, _, files)| files).collect();
        self.since_edit.clear();
        let checked = self.after_edit_checks(req, &edited).await?;
        self.commands_since = false;
        let diagnosed = diagnose::after_edits(req, &edited).await;
        let report = match (checked, diagnosed) {
            (Some(a), Some(b)) => Some(format!("{a}\n\n{b}")),
            (a, b) => a.or(b),
        };
        for file in edited {
            if !self.files.contains(&file) {
                self.files.push(file);
            }
        }
        let Some(report) = report else {
            return Ok(false);
        };
        let answer = answers
            .iter_mut()
            .find(|p| p.tool_call_id() == Some(last.as_str()));
        Ok(answer.is_some_and(|part| append_to_answer(part, &report)))
    }

    /// Runs the after-edit checks covering `edited`; the text of their new failures, if any.
    async fn after_edit_checks(
        &mut self,
        req: &Request<'_>,
        edited: &[PathBuf],
    ) -> Result<Option<String>, Interrupt> {
        let checks = &req.agent.options.checks.list;
        let root = req.agent.workspace.root().to_path_buf();
        let mut reports = Vec::new();
        for index in indexes(checks, CheckWhen::AfterEdit) {
            if !covers(&checks[index], &root, edited) {
                continue;
            }
            let run = run_one(req, &checks[index], CheckPhase::AfterEdit).await?;
            let before = self.baseline.as_ref().and_then(|b| b.get(&index));
            if let Some(news) = new_failures(before, &run) {
                reports.push(labelled(&checks[index], &news));
            }
            self.since_edit.insert(index, run);
        }
        Ok((!reports.is_empty()).then(|| reports.join("\n\n")))
    }
}

/// Runs one check and says so.
pub(super) async fn run_one(
    req: &Request<'_>,
    check: &CheckSpec,
    phase: CheckPhase,
) -> Result<CheckRun, Interrupt> {
    let ctx = ToolContext {
        workspace: req.agent.workspace.clone(),
        cancel: req.cancel.clone(),
        exec: req.agent.exec.clone(),
        output: None,
        call_id: String::new(),
    };
    let run = run_check(check, &ctx).await.map_err(|e| match e {
        ToolError::Cancelled => Interrupt::Cancelled,
        other => Interrupt::Internal(other.to_string()),
    })?;
    req.emit(AgentEvent::CheckFinished {
        phase,
        check: run.report.clone(),
    });
    Ok(run)
}

/// The indexes of the checks that run `when`.
pub(super) fn indexes(checks: &[CheckSpec], when: CheckWhen) -> Vec<usize> {
    (0..checks.len())
        .filter(|&i| checks[i].when == when)
        .collect()
}

/// Whether `check` covers any of `files` (a check with no globs covers every file).
pub(super) fn covers(check: &CheckSpec, root: &std::path::Path, files: &[PathBuf]) -> bool {
    if check.files.is_empty() {
        return true;
    }
    let Some(set) = glob_set(&check.files) else {
        return true;
    };
    files
        .iter()
        .any(|f| set.is_match(f.strip_prefix(root).unwrap_or(f)))
}

fn glob_set(globs: &[String]) -> Option<GlobSet> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        builder.add(Glob::new(glob).ok()?);
    }
    builder.build().ok()
}

/// A check's report, labelled for the model: not an instruction, a fact about the edit.
fn labelled(check: &CheckSpec, news: &str) -> String {
    format!(
        "[check `{}` ({}) after this edit: new problems]\n{news}",
        check.name,
        check.kind.name()
    )
}

/// The files the file-editing calls among `calls` name.
fn edit_targets(req: &Request, tools: &ToolSet, calls: &[ToolCallPart]) -> Vec<PathBuf> {
    calls
        .iter()
        .filter_map(|c| Some((tools.get(&c.tool_name)?, c.args_object().ok()?)))
        .filter(|(tool, args)| tool.classify(args) == ToolKind::Write)
        .flat_map(|(tool, args)| tool.target_paths(&args, &req.agent.workspace))
        .collect()
}

/// Whether a call may have changed the workspace (a write, or a command not known to only read).
fn changes(tools: &ToolSet, call: &ToolCallPart) -> bool {
    match (tools.get(&call.tool_name), call.args_object()) {
        (Some(tool), Ok(args)) => tool.classify(&args) != ToolKind::ReadOnly,
        (Some(tool), Err(_)) => tool.kind() != ToolKind::ReadOnly,
        (None, _) => true,
    }
}

/// The ids of the calls that completed.
fn succeeded(req: &Request, calls: &[ToolCallPart]) -> Vec<String> {
    let session = req.agent.session.lock();
    let registry = &session.runtime.tool_registry;
    calls
        .iter()
        .filter(|c| {
            registry
                .get(&c.tool_call_id)
                .is_some_and(|r| r.status == ToolCallStatus::Completed)
        })
        .map(|c| c.tool_call_id.clone())
        .collect()
}
