//! `settings.loop_detection`: how the agent catches a model repeating itself. `false` turns it off;
//! an object tunes it, e.g. `{"repeated_calls": 4, "window": 30}` (unset keys keep their defaults).

use serde::Deserialize;

/// The loop detector's thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(from = "LoopDetectionForm")]
pub struct LoopDetectionConfig {
    /// Whether loops are watched for at all.
    pub enabled: bool,
    /// The same call (tool, arguments, result) this many times within the window is a loop.
    pub repeated_calls: u32,
    /// The same error from one tool this many times within the window, whatever the arguments.
    pub repeated_errors: u32,
    /// The same response text this many times in a request, or one line this many times over in
    /// one response (times 4: a long answer may repeat a short line a few times).
    pub repeated_text: u32,
    /// How many of the latest tool calls are compared.
    pub window: u32,
}

impl Default for LoopDetectionConfig {
    fn default() -> Self {
        LoopDetectionConfig {
            enabled: true,
            repeated_calls: 3,
            repeated_errors: 4,
            repeated_text: 3,
            window: 20,
        }
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum LoopDetectionForm {
    Switch(bool),
    Tuned(Tuned),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Tuned {
    enabled: Option<bool>,
    repeated_calls: Option<u32>,
    repeated_errors: Option<u32>,
    repeated_text: Option<u32>,
    window: Option<u32>,
}

impl From<LoopDetectionForm> for LoopDetectionConfig {
    fn from(form: LoopDetectionForm) -> Self {
        let d = LoopDetectionConfig::default();
        match form {
            LoopDetectionForm::Switch(enabled) => LoopDetectionConfig { enabled, ..d },
            LoopDetectionForm::Tuned(t) => LoopDetectionConfig {
                enabled: t.enabled.unwrap_or(d.enabled),
                repeated_calls: t.repeated_calls.unwrap_or(d.repeated_calls),
                repeated_errors: t.repeated_errors.unwrap_or(d.repeated_errors),
                repeated_text: t.repeated_text.unwrap_or(d.repeated_text),
                window: t.window.unwrap_or(d.window),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_switch_or_an_object_with_defaults_for_what_it_leaves_out() {
        let off: LoopDetectionConfig = serde_json::from_str("false").unwrap();
        assert!(!off.enabled);
        assert_eq!(off.repeated_calls, 3);
        let tuned: LoopDetectionConfig =
            serde_json::from_str(r#"{"repeated_calls": 5, "window": 40}"#).unwrap();
        assert!(tuned.enabled);
        assert_eq!((tuned.repeated_calls, tuned.window), (5, 40));
        assert_eq!(tuned.repeated_errors, 4);
    }

    #[test]
    fn a_misspelt_key_is_refused() {
        assert!(serde_json::from_str::<LoopDetectionConfig>(r#"{"repeat_calls": 5}"#).is_err());
    }
}
