//! How a request proved its work: the project's checks, each with how it ended, and the verdict
//! (`verified`, `unverified`, `failing`).

use serde::{Deserialize, Serialize};

/// The verdict on a request's changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerificationStatus {
    /// Every check passed after the last edit.
    Verified,
    /// Nothing proves it: no checks, or no edit to check.
    #[default]
    Unverified,
    /// Checks still fail after the last edit.
    Failing,
}

impl VerificationStatus {
    /// Its public name.
    pub fn name(self) -> &'static str {
        match self {
            VerificationStatus::Verified => "verified",
            VerificationStatus::Unverified => "unverified",
            VerificationStatus::Failing => "failing",
        }
    }
}

/// How one check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    /// It exited 0.
    Passed,
    /// It exited with another code.
    Failed,
    /// It ran out of time, or could not be started.
    Error,
}

impl CheckStatus {
    /// Its public name.
    pub fn name(self) -> &'static str {
        match self {
            CheckStatus::Passed => "passed",
            CheckStatus::Failed => "failed",
            CheckStatus::Error => "error",
        }
    }
}

/// One run of a check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckReport {
    /// The check's name.
    pub name: String,
    /// `lint`, `typecheck` or `test`.
    pub kind: String,
    /// How it ended.
    pub status: CheckStatus,
    /// How long it ran.
    pub duration_ms: u64,
    /// The end of its output.
    pub output_tail: String,
}

/// A request's proof.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Verification {
    /// The verdict.
    pub status: VerificationStatus,
    /// The last run of each check that ran after the last edit.
    pub checks: Vec<CheckReport>,
    /// Why the verdict deserves a second look (an answer that claims the tests pass while none ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Why a check ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckPhase {
    /// Before the request's first edit: what already failed is not blamed on the agent.
    Baseline,
    /// After an edit of a file it covers.
    AfterEdit,
    /// When the model said it was done.
    Completion,
}

impl CheckPhase {
    /// Its public name.
    pub fn name(self) -> &'static str {
        match self {
            CheckPhase::Baseline => "baseline",
            CheckPhase::AfterEdit => "after_edit",
            CheckPhase::Completion => "completion",
        }
    }
}
