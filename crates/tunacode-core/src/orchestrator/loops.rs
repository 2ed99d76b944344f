//! [`LoopGuard`]: the step that catches a model repeating itself. It feeds each response's text and
//! each finished tool call to a [`LoopWatch`]; the first sign sends the model a note to change
//! approach (and the user a warning), the second asks the user whether to go on, stop, or stop
//! watching for this session (a headless run stops: `loop_detected`).

use tunacode_protocol::{NoticeLevel, ToolCallPart, ToolKind};

use super::request::{Interrupt, Request};
use super::transcript::Transcript;
use crate::approval::{LoopDecision, LoopQuestion};
use crate::loop_watch::{LoopSign, LoopWatch, SeenCall};
use crate::registry::ToolCallStatus;

/// What the request does after a sign.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AfterLoop {
    /// It goes on.
    GoOn,
    /// It ends (`loop_detected`).
    Stop,
}

/// The request's loop watch, and whether the model was told already.
#[derive(Debug)]
pub(super) struct LoopGuard {
    watch: LoopWatch,
    noted: bool,
}

impl LoopGuard {
    /// A guard with the agent's thresholds.
    pub(super) fn new(config: tunacode_store::LoopDetectionConfig) -> Self {
        LoopGuard {
            watch: LoopWatch::new(config),
            noted: false,
        }
    }

    /// Notes a response's text (only while the request goes on: an answer that ends it is no loop).
    pub(super) fn text(&mut self, req: &Request, text: &str) -> Option<LoopSign> {
        if off(req) || text.trim().is_empty() {
            return None;
        }
        self.watch.text(text)
    }

    /// Notes a round's finished calls, as the registry recorded them; the first sign among them.
    pub(super) fn calls(&mut self, req: &Request, calls: &[ToolCallPart]) -> Option<LoopSign> {
        if off(req) {
            return None;
        }
        let session = req.agent.session.lock();
        let registry = &session.runtime.tool_registry;
        let mut first = None;
        for record in calls.iter().filter_map(|c| registry.get(&c.tool_call_id)) {
            let failed = record.status != ToolCallStatus::Completed;
            let result = match failed {
                true => record.error.as_deref(),
                false => record.result.as_deref(),
            };
            let changes = match (req.agent.tools.get(&record.tool_name), &record.args) {
                (Some(tool), serde_json::Value::Object(args)) => {
                    tool.classify(args) != ToolKind::ReadOnly
                }
                _ => true,
            };
            let seen = SeenCall {
                tool: &record.tool_name,
                args: &record.args,
                changes,
                failed,
                result: result.unwrap_or_default(),
            };
            let sign = self.watch.call(&seen);
            first = first.or(sign);
        }
        first
    }

    /// What a sign leads to: the first a note to the model, the next the user's choice.
    pub(super) async fn on_sign(
        &mut self,
        req: &Request<'_>,
        t: &mut Transcript,
        sign: LoopSign,
        iterations: u32,
    ) -> Result<AfterLoop, Interrupt> {
        let repeated = sign.describe();
        if !self.noted {
            self.noted = true;
            req.notice(
                NoticeLevel::Warning,
                format!("Loop: {repeated}. Telling the model to change approach."),
            );
            t.add_user_prompt(loop_note(&repeated));
            return Ok(AfterLoop::GoOn);
        }
        req.notice(
            NoticeLevel::Warning,
            format!("Loop again after the note: {repeated}."),
        );
        let question = LoopQuestion {
            repeated,
            iterations,
        };
        let decision = tokio::select! {
            d = req.agent.approver.on_loop(&question) => d,
            _ = req.cancel.cancelled() => return Err(Interrupt::Cancelled),
        };
        Ok(self.decided(req, decision))
    }

    fn decided(&mut self, req: &Request, decision: LoopDecision) -> AfterLoop {
        match decision {
            LoopDecision::Stop => return AfterLoop::Stop,
            LoopDecision::Continue => {
                req.notice(
                    NoticeLevel::Info,
                    "Continuing; the loop count starts again.".into(),
                );
            }
            LoopDecision::Disable => {
                req.agent.session.lock().loop_detection_off = true;
                req.notice(
                    NoticeLevel::Info,
                    "Continuing; loops are no longer watched for in this session.".into(),
                );
            }
        }
        self.watch.clear();
        self.noted = false;
        AfterLoop::GoOn
    }
}

fn off(req: &Request) -> bool {
    req.agent.session.lock().loop_detection_off
}

/// What the model is told at the first sign.
fn loop_note(repeated: &str) -> String {
    format!(
        "Loop detected: {repeated}. Doing it again will not give a different result. Change \
         approach: re-read the last error or output, question the assumption behind these calls, \
         and try a different tool, file or command. If you are blocked, say exactly what blocks \
         you instead of repeating the call."
    )
}
