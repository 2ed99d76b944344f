//! Session modes and the model choice, as ACP shows them: `ask` (the default: every edit and command
//! is asked, like `tunacode run` without `--yes`), `plan` (read-only until a plan is approved) and
//! `yolo` (edits and commands run without asking); the model as a `model` config option.

use agent_client_protocol::v1::schema::{
    SessionConfigOption, SessionConfigOptionCategory, SessionConfigSelectOption, SessionMode,
    SessionModeState,
};
use tunacode_core::Op;
use tunacode_protocol::runtime::ModelCatalogue;

/// The default mode.
pub(crate) const ASK_MODE: &str = "ask";
/// Plan mode.
pub(crate) const PLAN_MODE: &str = "plan";
/// Approve everything.
pub(crate) const YOLO_MODE: &str = "yolo";
/// The id of the model option.
pub(crate) const MODEL_OPTION: &str = "model";
/// Most models offered in the model option (the current provider's, from the catalogue).
const MAX_MODELS: usize = 60;

/// The modes, with `current` selected.
pub(crate) fn mode_state(current: &str) -> SessionModeState {
    SessionModeState::new(
        current.to_string(),
        vec![
            SessionMode::new(ASK_MODE, "Ask").description(
                "Asks before every file edit and command (reads and searches run freely).",
            ),
            SessionMode::new(PLAN_MODE, "Plan")
                .description("Read-only: the agent explores and presents a plan for approval."),
            SessionMode::new(YOLO_MODE, "Yolo").description(
                "Edits and commands run without asking (dangerous commands and runs outside the \
                 sandbox are still asked).",
            ),
        ],
    )
}

/// The operations that switch to `mode`, or `None` for a mode that does not exist.
pub(crate) fn mode_ops(mode: &str) -> Option<(&'static str, [Op; 2])> {
    let (name, plan, yolo) = match mode {
        ASK_MODE => (ASK_MODE, false, false),
        PLAN_MODE => (PLAN_MODE, true, false),
        YOLO_MODE => (YOLO_MODE, false, true),
        _ => return None,
    };
    Some((
        name,
        [Op::SetYolo { on: yolo }, Op::SetPlanMode { active: plan }],
    ))
}

/// The models offered for a session on `current` (`provider:model`): it, then the catalogue's models of
/// the same provider.
pub(crate) fn offered_models(catalogue: &ModelCatalogue, current: &str) -> Vec<String> {
    let provider = current.split(':').next().unwrap_or_default();
    let mut models = vec![current.to_string()];
    for model in catalogue.of(Some(provider)) {
        let key = model.key();
        if !models.contains(&key) && models.len() < MAX_MODELS {
            models.push(key);
        }
    }
    models
}

/// The config options: the model, `current` selected among `models`.
pub(crate) fn model_options(models: &[String], current: &str) -> Vec<SessionConfigOption> {
    let mut models = models.to_vec();
    if !models.iter().any(|m| m == current) {
        models.insert(0, current.to_string());
    }
    let choices: Vec<SessionConfigSelectOption> = models
        .iter()
        .map(|m| SessionConfigSelectOption::new(m.clone(), m.clone()))
        .collect();
    vec![
        SessionConfigOption::select(MODEL_OPTION, "Model", current.to_string(), choices)
            .category(SessionConfigOptionCategory::Model),
    ]
}

/// The config option of the session's spend cap in USD.
pub(crate) const BUDGET_OPTION: &str = "session_budget";

/// The session caps an editor offers (USD), besides none.
const BUDGET_CHOICES: [&str; 4] = ["1", "5", "20", "100"];

/// The config options: the model, `current` selected among `models`, and the session's spend cap
/// (`budget`, USD).
pub(crate) fn config_options(
    models: &[String],
    current: &str,
    budget: Option<f64>,
) -> Vec<SessionConfigOption> {
    let mut options = model_options(models, current);
    let selected = budget.map_or_else(|| "none".to_string(), |usd| format!("{usd}"));
    let mut ids: Vec<String> = std::iter::once("none".to_string())
        .chain(BUDGET_CHOICES.iter().map(|c| c.to_string()))
        .collect();
    if !ids.contains(&selected) {
        ids.push(selected.clone());
    }
    let choices: Vec<SessionConfigSelectOption> = ids
        .into_iter()
        .map(|id| {
            let name = match id.as_str() {
                "none" => "No cap".to_string(),
                usd => format!("${usd} per session"),
            };
            SessionConfigSelectOption::new(id, name)
        })
        .collect();
    options.push(
        SessionConfigOption::select(BUDGET_OPTION, "Session budget", selected, choices)
            .category(SessionConfigOptionCategory::ModelConfig),
    );
    options
}

/// The cap a budget choice sets: `Some(None)` for none, `None` for no such choice.
pub(crate) fn budget_choice(id: &str) -> Option<Option<f64>> {
    match id {
        "none" => Some(None),
        usd => usd
            .parse::<f64>()
            .ok()
            .filter(|u| u.is_finite() && *u > 0.0)
            .map(Some),
    }
}
