//! The runtime's questions as `session/request_permission`. An approval offers allow once, allow
//! always (for the session, over the scope the runtime gives, unless the call can only be allowed
//! once) and reject once, with the call's diff or command. The iteration limit, a budget that cannot
//! pay for the next call and a plan review are asked the same way, on a tool call of their own. The request is sent from a task, so the session
//! keeps streaming while the editor decides; the answer comes back through the session's queue.

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, SessionUpdate, ToolCall, ToolCallStatus, ToolCallUpdate,
    ToolCallUpdateFields, ToolKind,
};
use tunacode_core::runtime::ApprovalQuestion;
use tunacode_core::{
    Answer, ApprovalAnswer, LimitDecision, LoopDecision, Op, PlanDecision, Question, QuestionKind,
};

use crate::command::Command;
use crate::diffs::{Side, diff_content, text_content};
use crate::session::Session;
use crate::tool_calls;

const ALLOW_ONCE: &str = "allow_once";
/// The prefix of a question's own tool call.
const QUESTION_CALL: &str = "question-";
const ALLOW_ALWAYS: &str = "allow_always";
const REJECT_ONCE: &str = "reject_once";

/// What a question is, for mapping the editor's choice back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    Approval,
    Limit,
    Loop,
    Plan,
    Budget,
}

impl Session {
    /// Asks the editor `question`; the answer arrives later as [`Command::Answered`].
    pub(crate) async fn ask(&mut self, question: Question) -> Result<(), Error> {
        let (asked, tool_call, mut options) = match &question.kind {
            QuestionKind::Approval(approval) => {
                let call = approval_call(approval, &self.root, self.files.as_ref()).await;
                (Asked::Approval, call, approval_options(approval))
            }
            other => self.choice_question(&question.id, other)?,
        };
        let call_id = tool_call.tool_call_id.to_string();
        self.open_questions.insert(question.id.clone(), call_id);
        let hunks = match &question.kind {
            QuestionKind::Approval(a) if a.hunks > 0 && self.hunk_review => a.preview.as_deref(),
            _ => None,
        };
        if hunks.is_some() {
            // Before "Reject", the last option.
            options.insert(options.len() - 1, crate::hunks::option());
        }
        let request = RequestPermissionRequest::new(self.id.clone(), tool_call, options)
            .meta(hunks.map(crate::hunks::request_meta));
        // Sent now, in order with the updates; only the wait for the choice is a task of its own.
        let sent = self.cx.send_request(request);
        let (answers, id) = (self.answers.clone(), question.id);
        tokio::spawn(async move {
            let response = sent.block_task().await;
            let answer = answer(asked, response);
            if let Some(answers) = answers.and_then(|weak| weak.upgrade()) {
                let _ = answers.send(Command::Answered { id, answer });
            }
        });
        Ok(())
    }

    /// A question that is not about a tool call (the iteration limit, a budget, a loop, a plan
    /// review), on a tool call of its own with a yes and a no (and for a loop, a "yes, and stop
    /// watching").
    fn choice_question(
        &self,
        id: &str,
        kind: &QuestionKind,
    ) -> Result<(Asked, ToolCallUpdate, Vec<PermissionOption>), Error> {
        let (asked, title, tool_kind, body, options) = match kind {
            QuestionKind::IterationLimit(report) => (
                Asked::Limit,
                format!(
                    "Reached the limit of {} model calls: continue?",
                    report.max_iterations
                ),
                ToolKind::Other,
                report.summary.clone(),
                yes_no("Continue", "Stop"),
            ),
            QuestionKind::Budget(budget) => (
                Asked::Budget,
                format!(
                    "Raise the {} budget to {}?",
                    budget.scope.name(),
                    budget.raise_to()
                ),
                ToolKind::Other,
                budget.message.clone(),
                yes_no("Raise it", "Stop"),
            ),
            QuestionKind::Loop(lp) => (
                Asked::Loop,
                "The agent is repeating itself: continue?".to_string(),
                ToolKind::Other,
                format!(
                    "After being told to change approach, {} ({} model calls so far).",
                    lp.repeated, lp.iterations
                ),
                loop_options(),
            ),
            QuestionKind::PlanReview { plan } => (
                Asked::Plan,
                "Approve the plan?".to_string(),
                ToolKind::SwitchMode,
                plan.clone(),
                yes_no("Approve and start", "Keep planning"),
            ),
            QuestionKind::Approval(_) => unreachable!("approvals are asked on their own call"),
        };
        let call = self.question_call(id, title, tool_kind, &body)?;
        Ok((asked, call, options))
    }

    /// Announces a tool call for a question that is not about a tool call (the iteration limit, a plan
    /// review), so the editor has a call to show the choice on.
    fn question_call(
        &self,
        id: &str,
        title: String,
        kind: ToolKind,
        body: &str,
    ) -> Result<ToolCallUpdate, Error> {
        let call_id = format!("{QUESTION_CALL}{id}");
        self.send(SessionUpdate::ToolCall(
            ToolCall::new(call_id.clone(), title.clone())
                .kind(kind)
                .status(ToolCallStatus::Pending)
                .content(vec![text_content(body.to_string())]),
        ))?;
        Ok(ToolCallUpdate::new(
            call_id,
            ToolCallUpdateFields::new().title(title).kind(kind),
        ))
    }

    /// The editor answered: the runtime gets the answer (unless the question was withdrawn
    /// meanwhile), and the call it is about moves on (an allowed call runs; a question's own call is
    /// done).
    pub(crate) fn on_answered(&mut self, id: String, answer: Answer) -> Result<(), Error> {
        let Some(call_id) = self.open_questions.remove(&id) else {
            return Ok(());
        };
        let status = match &answer {
            Answer::Approval(ApprovalAnswer::Deny { .. }) => None,
            Answer::Approval(_) => Some(ToolCallStatus::InProgress),
            Answer::Limit(_) | Answer::Plan(_) | Answer::Budget { .. } | Answer::Loop(_) => {
                Some(ToolCallStatus::Completed)
            }
        };
        self.submit(Op::Answer { id, answer });
        match status {
            Some(status) => self.set_call_status(&call_id, status),
            None => Ok(()),
        }
    }

    /// The runtime withdrew a question (its request was interrupted): a question's own call fails.
    pub(crate) fn on_question_closed(&mut self, id: &str) -> Result<(), Error> {
        match self.open_questions.remove(id) {
            Some(call_id) if call_id.starts_with(QUESTION_CALL) => {
                self.set_call_status(&call_id, ToolCallStatus::Failed)
            }
            _ => Ok(()),
        }
    }

    /// Forgets every open question (a cancel): a question's own call fails.
    pub(crate) fn drop_questions(&mut self) -> Result<(), Error> {
        let open: Vec<String> = self.open_questions.keys().cloned().collect();
        for id in open {
            self.on_question_closed(&id)?;
        }
        Ok(())
    }

    /// Moves a tool call to `status`.
    fn set_call_status(&self, call_id: &str, status: ToolCallStatus) -> Result<(), Error> {
        self.send(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
            call_id.to_string(),
            ToolCallUpdateFields::new().status(status),
        )))
    }
}

/// A question's two options: go on (`yes`) or not (`no`).
fn yes_no(yes: &str, no: &str) -> Vec<PermissionOption> {
    vec![
        PermissionOption::new(ALLOW_ONCE, yes, PermissionOptionKind::AllowOnce),
        PermissionOption::new(REJECT_ONCE, no, PermissionOptionKind::RejectOnce),
    ]
}

/// The loop question's options: continue, continue unwatched, stop.
fn loop_options() -> Vec<PermissionOption> {
    vec![
        PermissionOption::new(ALLOW_ONCE, "Continue", PermissionOptionKind::AllowOnce),
        PermissionOption::new(
            ALLOW_ALWAYS,
            "Continue, and stop watching for loops in this session",
            PermissionOptionKind::AllowAlways,
        ),
        PermissionOption::new(REJECT_ONCE, "Stop", PermissionOptionKind::RejectOnce),
    ]
}

/// The tool call an approval is about: its title and kind, and what it would do (the edit's diff or
/// the command).
async fn approval_call(
    approval: &ApprovalQuestion,
    root: &std::path::Path,
    files: Option<&std::sync::Arc<dyn tunacode_core::EditorFiles>>,
) -> ToolCallUpdate {
    // Only the built-in editing tools preview a diff; other writers (an MCP tool) show text.
    let mut content = match (
        &approval.preview,
        tool_calls::kind(&approval.tool_name, None),
    ) {
        (Some(diff), ToolKind::Edit) => diff_content(diff, Side::Before, root, files).await,
        (Some(preview), _) => vec![text_content(format!("```\n{preview}\n```"))],
        (None, _) => Vec::new(),
    };
    content.push(text_content(approval.reason.clone()));
    let mut title = tool_calls::title(&approval.tool_name, &approval.args);
    if let Some(label) = &approval.subagent {
        title = format!("Sub-agent {label}: {title}");
    }
    let fields = ToolCallUpdateFields::new()
        .title(title)
        .kind(tool_calls::kind(&approval.tool_name, Some(approval.kind)))
        .status(ToolCallStatus::Pending)
        .content(content);
    ToolCallUpdate::new(approval.tool_call_id.clone(), fields)
}

/// The options of an approval.
fn approval_options(approval: &ApprovalQuestion) -> Vec<PermissionOption> {
    let mut options = vec![PermissionOption::new(
        ALLOW_ONCE,
        "Allow",
        PermissionOptionKind::AllowOnce,
    )];
    if !approval.once_only {
        options.push(PermissionOption::new(
            ALLOW_ALWAYS,
            format!("Always allow: {} this session", approval.scope),
            PermissionOptionKind::AllowAlways,
        ));
    }
    options.push(PermissionOption::new(
        REJECT_ONCE,
        "Reject",
        PermissionOptionKind::RejectOnce,
    ));
    options
}

/// The editor's choice as the runtime's answer; a cancelled or failed request refuses (and stops at
/// the iteration limit).
fn answer(asked: Asked, response: Result<RequestPermissionResponse, Error>) -> Answer {
    let (chosen, meta) = match response.map(|r| r.outcome) {
        Ok(RequestPermissionOutcome::Selected(selected)) => {
            (Some(selected.option_id.to_string()), selected.meta)
        }
        _ => (None, None),
    };
    match (asked, chosen.as_deref()) {
        (Asked::Approval, Some(crate::hunks::ALLOW_HUNKS)) => {
            Answer::Approval(crate::hunks::answer(meta.as_ref()))
        }
        (Asked::Approval, Some(ALLOW_ONCE)) => Answer::Approval(ApprovalAnswer::AllowOnce),
        (Asked::Approval, Some(ALLOW_ALWAYS)) => Answer::Approval(ApprovalAnswer::AllowSession),
        (Asked::Approval, _) => Answer::Approval(ApprovalAnswer::Deny { note: None }),
        (Asked::Limit, Some(ALLOW_ONCE)) => Answer::Limit(LimitDecision::Continue),
        (Asked::Limit, _) => Answer::Limit(LimitDecision::Stop),
        (Asked::Budget, Some(ALLOW_ONCE)) => Answer::Budget { raise: true },
        (Asked::Budget, _) => Answer::Budget { raise: false },
        (Asked::Loop, Some(ALLOW_ONCE)) => Answer::Loop(LoopDecision::Continue),
        (Asked::Loop, Some(ALLOW_ALWAYS)) => Answer::Loop(LoopDecision::Disable),
        (Asked::Loop, _) => Answer::Loop(LoopDecision::Stop),
        (Asked::Plan, Some(ALLOW_ONCE)) => Answer::Plan(PlanDecision::Approve),
        (Asked::Plan, Some(_)) => Answer::Plan(PlanDecision::Reject {
            feedback: "The user wants to keep planning: refine the plan.".into(),
        }),
        (Asked::Plan, None) => Answer::Plan(PlanDecision::Stop),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::SelectedPermissionOutcome;

    fn chose(option: &str) -> Result<RequestPermissionResponse, Error> {
        Ok(RequestPermissionResponse::new(
            RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(option.to_string())),
        ))
    }

    #[test]
    fn choices_map_to_the_runtimes_answers() {
        assert_eq!(
            answer(Asked::Approval, chose(ALLOW_ONCE)),
            Answer::Approval(ApprovalAnswer::AllowOnce)
        );
        assert_eq!(
            answer(Asked::Approval, chose(ALLOW_ALWAYS)),
            Answer::Approval(ApprovalAnswer::AllowSession)
        );
        assert_eq!(
            answer(Asked::Approval, chose(REJECT_ONCE)),
            Answer::Approval(ApprovalAnswer::Deny { note: None })
        );
        let cancelled = Ok(RequestPermissionResponse::new(
            RequestPermissionOutcome::Cancelled,
        ));
        assert_eq!(
            answer(Asked::Approval, cancelled),
            Answer::Approval(ApprovalAnswer::Deny { note: None })
        );
        assert_eq!(
            answer(Asked::Limit, chose(ALLOW_ONCE)),
            Answer::Limit(LimitDecision::Continue)
        );
        assert_eq!(
            answer(Asked::Limit, Err(Error::internal_error())),
            Answer::Limit(LimitDecision::Stop)
        );
        assert_eq!(
            answer(Asked::Loop, chose(ALLOW_ALWAYS)),
            Answer::Loop(LoopDecision::Disable)
        );
        assert_eq!(
            answer(Asked::Loop, Err(Error::internal_error())),
            Answer::Loop(LoopDecision::Stop)
        );
        assert_eq!(
            answer(Asked::Plan, chose(ALLOW_ONCE)),
            Answer::Plan(PlanDecision::Approve)
        );
    }

    #[tokio::test]
    async fn a_sub_agent_s_approval_is_titled_with_the_sub_agent() {
        let approval = ApprovalQuestion {
            tool_call_id: "c1".into(),
            tool_name: "bash".into(),
            args: serde_json::json!({"command": "cargo test"}),
            kind: tunacode_protocol::ToolKind::Execute,
            preview: None,
            reason: "it runs a command".into(),
            scope: tunacode_protocol::runtime::SessionScope::ExactCommand("cargo test".into()),
            once_only: false,
            hunks: 0,
            subagent: Some(Box::new(tunacode_protocol::runtime::SubagentLabel {
                parent_tool_call_id: "t1".into(),
                agent_type: "general".into(),
                description: "run tests".into(),
            })),
        };
        let call = approval_call(&approval, std::path::Path::new("/w"), None).await;
        assert_eq!(
            call.fields.title.as_deref(),
            Some("Sub-agent general: run tests: `cargo test`")
        );
    }
}
