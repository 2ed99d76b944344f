//! The model says it is done: the checks that have not run since the last edit run (those
//! covering the edited files; every one when only commands changed things; a failed one again when
//! a command ran since); while some fail the
//! model gets their output and goes on, up to `max_rounds`; then the verdict.

use tunacode_protocol::{CheckPhase, CheckStatus, Verification, VerificationStatus};

use super::proof::{Proof, covers, run_one};
use super::request::{Interrupt, Request};
use super::transcript::Transcript;
use crate::checks::{CheckRun, claims_tests_pass};

/// What a claim of being done leads to.
#[derive(Debug)]
pub(super) enum Completion {
    /// The request ends with this proof.
    Done(Verification),
    /// Checks fail: the model was told and goes on.
    FixRound,
}

impl Proof {
    /// Runs what is left to prove, and decides.
    pub(super) async fn at_completion(
        &mut self,
        req: &Request<'_>,
        t: &mut Transcript,
        response: &str,
    ) -> Result<Completion, Interrupt> {
        let config = &req.agent.options.checks;
        if config.list.is_empty() || !self.edited {
            return Ok(Completion::Done(self.verdict(req, response)));
        }
        for index in self.in_scope(req) {
            // A failure since the last edit stands unless a command ran since (it may have fixed it).
            let current = self.since_edit.get(&index);
            if current.is_some_and(|r| r.passed() || !self.commands_since) {
                continue;
            }
            let run = run_one(req, &config.list[index], CheckPhase::Completion).await?;
            self.since_edit.insert(index, run);
        }
        self.commands_since = false;
        // A check that could not run (a timeout, no sandbox) is no failure to fix: no round for it.
        let failing: Vec<&CheckRun> = self
            .runs()
            .filter(|r| r.report.status == CheckStatus::Failed)
            .collect();
        if failing.is_empty() || self.rounds >= config.max_rounds {
            return Ok(Completion::Done(self.verdict(req, response)));
        }
        let prompt = fix_prompt(&failing, self.rounds + 1, config.max_rounds);
        self.rounds += 1;
        t.add_user_prompt(prompt);
        Ok(Completion::FixRound)
    }

    /// The verdict as things stand: `verified` when every check covering the edits passed since
    /// the last edit, `failing` when one of them fails, else `unverified` (no checks, no edit, or
    /// not all of them ran). An answer that claims the tests pass without that proof gets a note.
    pub(super) fn verdict(&self, req: &Request, response: &str) -> Verification {
        let scope = self.in_scope(req);
        let runs: Vec<&CheckRun> = scope
            .iter()
            .filter_map(|i| self.since_edit.get(i))
            .collect();
        let status = if !self.edited || scope.is_empty() {
            VerificationStatus::Unverified
        } else if runs.iter().any(|r| r.report.status == CheckStatus::Failed) {
            VerificationStatus::Failing
        } else if runs.len() == scope.len() && runs.iter().all(|r| r.passed()) {
            VerificationStatus::Verified
        } else {
            VerificationStatus::Unverified
        };
        let note =
            (status != VerificationStatus::Verified && claims_tests_pass(response)).then(|| {
                match status {
                VerificationStatus::Failing => {
                    "The answer says the checks pass, but they still fail.".to_string()
                }
                _ => "The answer says the tests pass, but no check proved it after the last edit."
                    .to_string(),
            }
            });
        Verification {
            status,
            checks: self.runs().map(|r| r.report.clone()).collect(),
            note,
        }
    }

    /// The checks that must pass for the request's changes: those covering the edited files, or
    /// every one when only commands changed things.
    fn in_scope(&self, req: &Request) -> Vec<usize> {
        let list = &req.agent.options.checks.list;
        let root = req.agent.workspace.root();
        (0..list.len())
            .filter(|&i| self.files.is_empty() || covers(&list[i], root, &self.files))
            .collect()
    }

    /// The runs since the last edit, in the checks' order.
    fn runs(&self) -> impl Iterator<Item = &CheckRun> {
        let mut indexes: Vec<&usize> = self.since_edit.keys().collect();
        indexes.sort();
        indexes.into_iter().filter_map(|i| self.since_edit.get(i))
    }
}

/// What the model is told when checks fail at completion.
fn fix_prompt(failing: &[&CheckRun], round: u32, max: u32) -> String {
    let mut text = format!(
        "You said you are done, but the project's checks fail after your changes (round {round} of \
         {max}). Fix what they report, then say you are done again.\n"
    );
    for run in failing {
        text.push_str(&format!(
            "\n[check `{}` ({}): {}]\n{}\n",
            run.report.name,
            run.report.kind,
            run.report.status.name(),
            run.report.output_tail
        ));
    }
    text
}
