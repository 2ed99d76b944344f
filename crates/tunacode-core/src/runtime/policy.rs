//! [`Policy`]: the one approval policy every front end shares. In order: tools the config lists in
//! `tool_ignore` never ask; yolo approves every call; a session allowance covering the call approves
//! it; with nobody to ask (a headless run) the call is refused and the model told why; otherwise the
//! user is asked through a [`Question`](crate::runtime::Question). The iteration-limit choice and plan
//! review are asked the same way (headless: stop).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::Value;
use tunacode_tools::shell::{dangerous_argv, dangerous_command};
use tunacode_tools::{ProtectedPaths, SandboxMode, ToolKind};

use crate::approval::{
    ApprovalDecision, ApprovalRequest, Approver, Gate, LimitDecision, LoopDecision, LoopQuestion,
    PlanDecision, ProgressReport,
};
use crate::mcp::McpManager;
use crate::permissions::{Permissions, Verdict};
use crate::runtime::events::{ApprovalQuestion, QuestionKind};
use crate::runtime::ops::{Answer, ApprovalAnswer};
use crate::runtime::protected::{self, Protected};
use crate::runtime::questions::Questions;
use crate::runtime::scope::{ScopeRules, SessionScope};

/// Told to the model when nobody can approve a write or a command.
pub const HEADLESS_DENIAL: &str = "this run is non-interactive and was not started with --yes, so \
    writes and commands are not allowed. Do not retry them; explain what you would change or run instead.";

/// The approval policy of one runtime.
#[derive(Debug)]
pub(crate) struct Policy {
    yolo: AtomicBool,
    interactive: AtomicBool,
    tool_ignore: HashSet<String>,
    allowances: Mutex<Vec<SessionScope>>,
    /// The MCP servers, whose config may allow some of their tools outright (`alwaysAllow`).
    mcp: Option<McpManager>,
    /// The sandbox commands run in, and whether this kernel can enforce it.
    sandbox: Mutex<SandboxState>,
    /// The config's permission rules.
    rules: Permissions,
    /// The working directory (rules' paths and dangerous deletes are judged against it).
    workspace: PathBuf,
    /// The files whose change is asked about every time.
    protected: Arc<ProtectedPaths>,
    pub(crate) questions: Questions,
}

impl Policy {
    pub(crate) fn new(
        questions: Questions,
        tool_ignore: &[String],
        yolo: bool,
        interactive: bool,
    ) -> Self {
        Policy {
            yolo: AtomicBool::new(yolo),
            interactive: AtomicBool::new(interactive),
            tool_ignore: tool_ignore.iter().cloned().collect(),
            allowances: Mutex::new(Vec::new()),
            mcp: None,
            sandbox: Mutex::new(SandboxState::default()),
            rules: Permissions::default(),
            workspace: PathBuf::new(),
            protected: Arc::default(),
            questions,
        }
    }

    /// The policy with the session's protected paths (by default only the names every workspace
    /// protects, without the agent's own files).
    pub(crate) fn with_protected(mut self, protected: Arc<ProtectedPaths>) -> Self {
        self.protected = protected;
        self
    }

    /// The policy with the config's permission rules, judged in `workspace`.
    pub(crate) fn with_rules(mut self, rules: Permissions, workspace: &Path) -> Self {
        self.rules = rules;
        self.workspace = workspace.to_path_buf();
        self
    }

    /// The rules, as written (for `/permissions`).
    pub(crate) fn describe_rules(&self) -> String {
        self.rules.describe()
    }

    /// Why this command is dangerous, if it is.
    fn dangerous(&self, request: &ApprovalRequest) -> Option<String> {
        let text = |key: &str| request.args.get(key).and_then(Value::as_str);
        match request.tool_name.as_str() {
            "bash" => dangerous_command(text("command")?, &self.workspace),
            "run_command" => {
                let mut argv = vec![text("command")?.to_string()];
                if let Some(Value::Array(items)) = request.args.get("args") {
                    argv.extend(items.iter().filter_map(Value::as_str).map(str::to_string));
                }
                dangerous_argv(&argv, &self.workspace)
            }
            _ => None,
        }
    }

    /// The sandbox as the policy sees it.
    pub(crate) fn sandbox_state(&self) -> SandboxState {
        *self.sandbox.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sets the sandbox commands run in (and whether the kernel enforces it).
    pub(crate) fn set_sandbox(&self, state: SandboxState) {
        *self.sandbox.lock().unwrap_or_else(|p| p.into_inner()) = state;
    }

    /// Why `request` must be asked about every time, never passed by yolo or a session allowance.
    fn always_ask(&self, request: &ApprovalRequest) -> Option<String> {
        if !matches!(request.tool_name.as_str(), "bash" | "run_command") {
            return None;
        }
        let sandbox = *self.sandbox.lock().unwrap_or_else(|p| p.into_inner());
        if sandbox.mode == SandboxMode::Off {
            return None;
        }
        let outside = request
            .args
            .as_object()
            .is_some_and(tunacode_tools::asks_outside_sandbox);
        if outside {
            return Some(format!(
                "the agent asks to run this command outside the {} sandbox",
                sandbox.mode.name()
            ));
        }
        (!sandbox.enforced).then(|| {
            "this kernel offers no Landlock sandbox, so every command runs unconfined".to_string()
        })
    }

    /// Asks about a call that only the user can allow, once (`hint` says how else it could run).
    async fn ask_once(
        &self,
        request: &ApprovalRequest,
        reason: String,
        hint: &str,
    ) -> ApprovalDecision {
        if !self.interactive() {
            return deny(format!(
                "refused: {reason}; that needs the user's approval at a terminal, and this run has \
                 none{hint}. Do the task without it."
            ));
        }
        let question = approval_question(request, reason, true);
        match self.questions.ask(QuestionKind::Approval(question)).await {
            Some(Answer::Approval(ApprovalAnswer::AllowOnce | ApprovalAnswer::AllowSession)) => {
                ApprovalDecision::Approve
            }
            Some(Answer::Approval(ApprovalAnswer::Deny { note })) => declined(note),
            Some(Answer::Approval(ApprovalAnswer::AllowHunks(selection))) => {
                hunks_decision(selection, request)
            }
            _ => deny(HEADLESS_DENIAL),
        }
    }

    /// The policy that also lets through the MCP tools the config allows.
    pub(crate) fn with_mcp(mut self, mcp: McpManager) -> Self {
        self.mcp = Some(mcp);
        self
    }

    pub(crate) fn set_yolo(&self, on: bool) {
        self.yolo.store(on, Ordering::Relaxed);
    }

    pub(crate) fn yolo(&self) -> bool {
        self.yolo.load(Ordering::Relaxed)
    }

    /// Whether someone answers questions. When not, open questions close and later ones get the
    /// headless answer.
    pub(crate) fn set_interactive(&self, on: bool) {
        self.interactive.store(on, Ordering::Relaxed);
        if !on {
            self.questions.close_all();
        }
    }

    /// Nobody will answer from now on (shutting down).
    pub(crate) fn stop_asking(&self) {
        self.set_interactive(false);
    }

    fn interactive(&self) -> bool {
        self.interactive.load(Ordering::Relaxed)
    }

    /// Forgets the session allowances (a new or resumed session).
    pub(crate) fn reset_session(&self) {
        self.allowances_mut().clear();
    }

    fn allowances_mut(&self) -> std::sync::MutexGuard<'_, Vec<SessionScope>> {
        self.allowances.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn allowed(&self, request: &ApprovalRequest) -> bool {
        self.tool_ignore.contains(&request.tool_name)
            || self.yolo()
            || self
                .mcp
                .as_ref()
                .is_some_and(|mcp| mcp.always_allowed(&request.tool_name))
            || self
                .allowances_mut()
                .iter()
                .any(|scope| scope.covers(&request.tool_name, &request.args))
    }
}

/// The sandbox as the policy sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SandboxState {
    /// The configured mode.
    pub mode: SandboxMode,
    /// Whether the kernel enforces it (Landlock present).
    pub enforced: bool,
}

impl Default for SandboxState {
    fn default() -> Self {
        SandboxState {
            mode: SandboxMode::Off,
            enforced: true,
        }
    }
}

/// The user said no, perhaps with a note for the model.
fn declined(note: Option<String>) -> ApprovalDecision {
    deny(
        note.filter(|n| !n.trim().is_empty())
            .map_or_else(|| "the user declined".to_string(), |n| n.trim().to_string()),
    )
}

fn deny(reason: impl Into<String>) -> ApprovalDecision {
    ApprovalDecision::Deny {
        reason: reason.into(),
    }
}

/// Why the user is asked about this call.
fn reason_for(request: &ApprovalRequest) -> String {
    if request.tool_name == "web_fetch" {
        return "web_fetch reaches the network and this domain has not been allowed for this session"
            .to_string();
    }
    if request.tool_name.starts_with(tunacode_mcp::PREFIX) {
        return "tools of MCP servers can do anything the server can; this one has not been \
            allowed for this session"
            .to_string();
    }
    match request.kind {
        ToolKind::Write => format!("{} changes files in the workspace", request.tool_name),
        ToolKind::Execute if matches!(request.tool_name.as_str(), "bash" | "run_command") => {
            "this command is not known to be read-only and has not been allowed for this session"
                .to_string()
        }
        _ => format!(
            "{} can act outside the workspace and has not been allowed for this session",
            request.tool_name
        ),
    }
}

/// How a command refused for the sandbox could run.
const SANDBOX_HINT: &str = " (`--sandbox off` runs commands without the sandbox)";

#[async_trait]
impl Approver for Policy {
    fn gate(&self, tool_name: &str, args: &Value) -> Gate {
        match self.rules.check(tool_name, args, &self.workspace) {
            Verdict::Deny(rule) => Gate::Refuse(format!(
                "Refused by the permission rule `{rule}` in the user's config; do not retry it."
            )),
            Verdict::Ask(_) => Gate::Ask,
            _ => Gate::Pass,
        }
    }

    async fn approve(&self, request: &ApprovalRequest) -> ApprovalDecision {
        if let Some(reason) = self.always_ask(request) {
            return self.ask_once(request, reason, SANDBOX_HINT).await;
        }
        if request.hook_asks {
            let reason = "a PreToolUse hook asks for your approval".to_string();
            return self.ask_once(request, reason, "").await;
        }
        match protected::judge(request, &self.protected, &self.rules, &self.workspace) {
            Some(Protected::Refuse(reason)) => return deny(reason),
            Some(Protected::Ask { reason, hint }) => {
                return self.ask_once(request, reason, &hint).await;
            }
            None => {}
        }
        let verdict = self
            .rules
            .check(&request.tool_name, &request.args, &self.workspace);
        match (&verdict, self.dangerous(request)) {
            (Verdict::Ask(rule), _) => {
                let reason = format!("the permission rule `{rule}` asks about it");
                return self.ask_once(request, reason, "").await;
            }
            (Verdict::Allow(_), _) => return ApprovalDecision::Approve,
            (_, Some(danger)) => {
                let hint = " (a rule in `permissions.allow` can allow it by name)";
                return self
                    .ask_once(request, format!("it is dangerous: {danger}"), hint)
                    .await;
            }
            _ => {}
        }
        if self.allowed(request) {
            return ApprovalDecision::Approve;
        }
        if !self.interactive() {
            return deny(HEADLESS_DENIAL);
        }
        let question = approval_question(request, reason_for(request), false);
        let scope = question.scope.clone();
        match self.questions.ask(QuestionKind::Approval(question)).await {
            Some(Answer::Approval(ApprovalAnswer::AllowOnce)) => ApprovalDecision::Approve,
            Some(Answer::Approval(ApprovalAnswer::AllowSession)) => {
                self.allowances_mut().push(scope);
                ApprovalDecision::Approve
            }
            Some(Answer::Approval(ApprovalAnswer::Deny { note })) => declined(note),
            Some(Answer::Approval(ApprovalAnswer::AllowHunks(selection))) => {
                hunks_decision(selection, request)
            }
            _ => deny(HEADLESS_DENIAL),
        }
    }

    async fn on_iteration_limit(&self, report: &ProgressReport) -> LimitDecision {
        if !self.interactive() {
            return LimitDecision::Stop;
        }
        match self
            .questions
            .ask(QuestionKind::IterationLimit(report.clone()))
            .await
        {
            Some(Answer::Limit(decision)) => decision,
            _ => LimitDecision::Stop,
        }
    }

    async fn on_budget(&self, question: &tunacode_protocol::runtime::BudgetQuestion) -> bool {
        if !self.interactive() {
            return false;
        }
        let asked = self
            .questions
            .ask(QuestionKind::Budget(question.clone()))
            .await;
        matches!(asked, Some(Answer::Budget { raise: true }))
    }

    async fn on_loop(&self, question: &LoopQuestion) -> LoopDecision {
        if !self.interactive() {
            return LoopDecision::Stop;
        }
        match self
            .questions
            .ask(QuestionKind::Loop(question.clone()))
            .await
        {
            Some(Answer::Loop(decision)) => decision,
            _ => LoopDecision::Stop,
        }
    }

    async fn review_plan(&self, plan: &str) -> PlanDecision {
        if self.yolo() {
            return PlanDecision::Approve;
        }
        if !self.interactive() {
            return PlanDecision::Stop;
        }
        let question = QuestionKind::PlanReview {
            plan: plan.to_string(),
        };
        match self.questions.ask(question).await {
            Some(Answer::Plan(decision)) => decision,
            _ => PlanDecision::Stop,
        }
    }
}

/// The question about `request`: why it asks, and whether only this one call can be allowed.
fn approval_question(
    request: &ApprovalRequest,
    reason: String,
    once_only: bool,
) -> ApprovalQuestion {
    ApprovalQuestion {
        tool_call_id: request.tool_call_id.clone(),
        tool_name: request.tool_name.clone(),
        args: request.args.clone(),
        kind: request.kind,
        preview: request.preview.clone(),
        reason,
        scope: SessionScope::of(&request.tool_name, &request.args),
        once_only,
        hunks: request.hunks,
        subagent: request.subagent.clone().map(Box::new),
    }
}

/// A hunk-by-hunk answer: the hunks to write, of the preview the user reviewed; refused (with the
/// user's note) when they kept none. It never allows calls for the session.
fn hunks_decision(
    selection: tunacode_protocol::HunkSelection,
    request: &ApprovalRequest,
) -> ApprovalDecision {
    if selection.writes_nothing() {
        let said = selection.note.map_or(String::new(), |n| format!(": {n}"));
        return deny(format!(
            "the user reviewed the edit hunk by hunk and rejected every hunk{said}"
        ));
    }
    ApprovalDecision::ApproveHunks {
        selection,
        reviewed: request.preview.clone().unwrap_or_default(),
    }
}

#[cfg(test)]
#[path = "policy_tests.rs"]
mod tests;
