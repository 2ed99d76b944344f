//! [`AgentOptions`]: how an engine runs requests (its model, limits, prompt, steering, context
//! budget, checks and hooks), resolved by the settings.

use std::time::Duration;

use crate::history::PruneConfig;

/// How the engine runs requests.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentOptions {
    /// `provider:model` (recorded in the session).
    pub model: String,
    /// The model's name at the provider.
    pub provider_model: String,
    /// Model calls per request.
    pub max_iterations: u32,
    /// Whole-request time limit.
    pub request_timeout: Option<Duration>,
    /// Retries of a tool that failed for a passing reason.
    pub tool_max_retries: u32,
    /// Parallel read-only calls.
    pub max_parallel: usize,
    /// History pruning budget.
    pub prune: PruneConfig,
    /// The system prompt.
    pub system_prompt: String,
    /// Upper bound on output tokens per call.
    pub max_output_tokens: Option<u32>,
    /// Reasoning effort (`low`, `medium`, `high`) for reasoning models; `None`: the provider's default.
    pub reasoning_effort: Option<String>,
    /// Whether the model takes images (from the catalogue; `None`: not known).
    pub vision: Option<bool>,
    /// The model's prices, to cost calls the provider does not price itself.
    pub pricing: Option<tunacode_llm::models::Pricing>,
    /// How the loop steers (self-evaluation, no-progress alert, fallback response).
    pub guidance: crate::guidance::GuidanceOptions,
    /// The context budget: window, output reserve and when to compact.
    pub context: crate::compaction::ContextBudget,
    /// The project's checks in force (the user's, and an approved project file's).
    pub checks: tunacode_store::ChecksConfig,
    /// The lifecycle hooks in force (the user's, and an approved project file's).
    pub hooks: std::sync::Arc<crate::hooks::HookSet>,
}
