//! The setup state machine driven by key events through whole flows.

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use pretty_assertions::assert_eq;
use tunacode_protocol::runtime::{CatalogueModel, ModelCatalogue, ProviderInfo};

use super::steps::Step;
use super::*;

/// A small fixed catalogue, so the tests do not follow the bundled table.
pub(super) fn catalogue() -> ModelCatalogue {
    let model = |provider: &str, id: &str| CatalogueModel {
        provider: provider.into(),
        id: id.into(),
        context_window: 128_000,
        input_price: 0.0,
        output_price: 0.0,
    };
    let provider = |name: &str, base_url: &str, key_env: &str| ProviderInfo {
        name: name.into(),
        base_url: base_url.into(),
        key_env: Some(key_env.into()),
    };
    ModelCatalogue {
        models: vec![
            model("openai", "chatgpt-4o-latest"),
            model("openai", "gpt-4.1"),
            model("openai", "gpt-4.1-mini"),
            model("openai", "gpt-4o"),
            model("openai", "gpt-5"),
            model("openai", "o3"),
            model("anthropic", "claude-sonnet-4-5"),
            model("anthropic", "claude-opus-4-1"),
            model("google", "gemini-2.5-pro"),
            model("openrouter", "anthropic/claude-sonnet-4"),
        ],
        providers: vec![
            provider("openai", "https://api.openai.com/v1", "OPENAI_API_KEY"),
            provider(
                "anthropic",
                "https://api.anthropic.com/v1",
                "ANTHROPIC_API_KEY",
            ),
            provider(
                "google",
                "https://generativelanguage.googleapis.com/v1beta",
                "GEMINI_API_KEY",
            ),
            provider(
                "openrouter",
                "https://openrouter.ai/api/v1",
                "OPENROUTER_API_KEY",
            ),
        ],
    }
}

pub(super) fn screen() -> SetupScreen {
    SetupScreen::new(
        &catalogue(),
        PathBuf::from("/home/me/.config/tunacode.json"),
    )
}

pub(super) fn press(screen: &mut SetupScreen, code: KeyCode) -> SetupAction {
    screen.handle_key(KeyEvent::new(code, KeyModifiers::NONE))
}

pub(super) fn type_text(screen: &mut SetupScreen, text: &str) {
    for c in text.chars() {
        assert_eq!(press(screen, KeyCode::Char(c)), SetupAction::None);
    }
}

pub(super) fn clear_field(screen: &mut SetupScreen) {
    screen.handle_key(KeyEvent::new(KeyCode::End, KeyModifiers::NONE));
    screen.handle_key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
}

fn local_choice() -> SetupChoice {
    SetupChoice {
        provider: "gpu".into(),
        model: "qwen3:8b".into(),
        base_url: Some("http://gpu-box:8000/v1".into()),
        wire_api: Some("openai-chat".into()),
        key_env: None,
        api_key: None,
    }
}

#[test]
fn compatible_server_without_key_checks_then_saves() {
    let mut s = screen();
    press(&mut s, KeyCode::Up); // wraps to the last entry: the compatible server
    press(&mut s, KeyCode::Enter);
    assert_eq!(s.step, Step::BaseUrl);
    assert_eq!(s.base_url.text(), "http://localhost:11434/v1");
    clear_field(&mut s);
    type_text(&mut s, "gpu-box:8000/v1/");
    press(&mut s, KeyCode::Enter);
    assert_eq!(s.step, Step::BaseUrl, "a URL without a scheme is refused");
    assert!(s.error.as_deref().unwrap_or_default().contains("http://"));
    press(&mut s, KeyCode::Home);
    type_text(&mut s, "http://");
    assert_eq!(s.error, None);
    press(&mut s, KeyCode::Enter);
    assert_eq!(s.step, Step::ProviderName);
    assert_eq!(s.provider_name.text(), "local");
    clear_field(&mut s);
    type_text(&mut s, "GPU");
    press(&mut s, KeyCode::Enter);
    assert_eq!(s.step, Step::Key);
    press(&mut s, KeyCode::Enter); // no key
    assert_eq!(s.step, Step::Model);
    assert_eq!(press(&mut s, KeyCode::Enter), SetupAction::None);
    assert!(s.error.is_some(), "an empty model name is refused");
    type_text(&mut s, "qwen3:8b");
    let expected = local_choice();
    assert_eq!(
        press(&mut s, KeyCode::Enter),
        SetupAction::Check(expected.clone())
    );
    assert!(s.is_checking());
    assert_eq!(
        press(&mut s, KeyCode::Enter),
        SetupAction::None,
        "nothing to save yet"
    );
    s.on_check_result(Ok(()));
    assert!(!s.is_checking());
    assert_eq!(
        press(&mut s, KeyCode::Enter),
        SetupAction::Save(expected.clone())
    );
    // The runtime could not save it: the screen says so, and Enter checks again.
    s.on_check_result(Err("Could not save the configuration: disk full".into()));
    assert!(
        matches!(&s.check, super::steps::CheckState::Failed(m) if m.contains("disk full")),
        "{:?}",
        s.check
    );
    assert_eq!(
        press(&mut s, KeyCode::Enter),
        SetupAction::Check(expected.clone())
    );
    // Offline: a failed check can be skipped, and the choice saved unchecked.
    assert_eq!(
        press(&mut s, KeyCode::Char('s')),
        SetupAction::None,
        "still running"
    );
    s.on_check_result(Err("cannot reach the server: network is unreachable".into()));
    assert_eq!(
        press(&mut s, KeyCode::Char('s')),
        SetupAction::Save(expected.clone())
    );
}

#[test]
fn compatible_server_with_key_saves_it_under_name_api_key() {
    let mut s = screen();
    press(&mut s, KeyCode::Char('5'));
    press(&mut s, KeyCode::Enter); // default URL
    clear_field(&mut s);
    type_text(&mut s, "my-box");
    press(&mut s, KeyCode::Enter);
    s.handle_paste("  sk-local-123\n");
    press(&mut s, KeyCode::Enter);
    type_text(&mut s, "llama");
    let SetupAction::Check(choice) = press(&mut s, KeyCode::Enter) else {
        panic!("no check");
    };
    assert_eq!(choice.key_env.as_deref(), Some("MY_BOX_API_KEY"));
    assert_eq!(choice.api_key.as_deref(), Some("sk-local-123"));
    assert!(!format!("{choice:?}").contains("sk-local"));
}

#[test]
fn known_provider_needs_a_key_and_filters_its_models() {
    let mut s = screen();
    press(&mut s, KeyCode::Enter); // OpenAI
    assert_eq!(s.step, Step::Key);
    press(&mut s, KeyCode::Enter);
    assert_eq!(s.step, Step::Key, "OpenAI needs a key");
    assert!(
        s.error
            .as_deref()
            .unwrap_or_default()
            .contains("needs a key")
    );
    type_text(&mut s, "sk-openai");
    press(&mut s, KeyCode::Enter);
    assert_eq!(s.step, Step::Model);
    assert_eq!(s.model_items().len(), 6);
    type_text(&mut s, "4.1");
    let names: Vec<String> = s
        .model_items()
        .iter()
        .map(|i| i.name().to_string())
        .collect();
    assert_eq!(names, ["gpt-4.1", "gpt-4.1-mini", "4.1"]);
    clear_field(&mut s);
    type_text(&mut s, "gpt-4o");
    let names: Vec<String> = s
        .model_items()
        .iter()
        .map(|i| i.name().to_string())
        .collect();
    assert_eq!(
        names,
        ["gpt-4o", "chatgpt-4o-latest"],
        "an exact name comes first"
    );
    clear_field(&mut s);
    type_text(&mut s, "4.1");
    press(&mut s, KeyCode::PageDown);
    press(&mut s, KeyCode::Up);
    let SetupAction::Check(choice) = press(&mut s, KeyCode::Enter) else {
        panic!("no check");
    };
    assert_eq!(
        choice,
        SetupChoice {
            provider: "openai".into(),
            model: "gpt-4.1-mini".into(),
            base_url: None,
            wire_api: None,
            key_env: Some("OPENAI_API_KEY".into()),
            api_key: Some("sk-openai".into()),
        }
    );
    assert_eq!(choice.model_id(), "openai:gpt-4.1-mini");

    // A failed check can be retried; a result arriving after Esc is ignored.
    s.on_check_result(Err("The key was rejected (HTTP 401): nope".into()));
    assert!(!s.is_checking());
    assert_eq!(press(&mut s, KeyCode::Enter), SetupAction::Check(choice));
    press(&mut s, KeyCode::Esc);
    assert_eq!(s.step, Step::Model);
    s.on_check_result(Ok(()));
    assert_eq!(s.step, Step::Model);
}

#[test]
fn typed_model_names_are_used_when_not_listed() {
    let mut s = screen();
    press(&mut s, KeyCode::Char('4')); // OpenRouter
    type_text(&mut s, "sk-or");
    press(&mut s, KeyCode::Enter);
    type_text(&mut s, "qwen/qwen3-coder");
    let SetupAction::Check(choice) = press(&mut s, KeyCode::Enter) else {
        panic!("no check");
    };
    assert_eq!(choice.model_id(), "openrouter:qwen/qwen3-coder");
    assert_eq!(choice.key_env.as_deref(), Some("OPENROUTER_API_KEY"));
}

#[test]
fn esc_goes_back_a_step_and_ctrl_c_quits() {
    let mut s = screen();
    press(&mut s, KeyCode::Esc);
    assert_eq!(s.step, Step::Provider, "Esc on the first step stays");
    press(&mut s, KeyCode::End);
    press(&mut s, KeyCode::Enter);
    press(&mut s, KeyCode::Enter);
    press(&mut s, KeyCode::Enter);
    type_text(&mut s, "secret");
    press(&mut s, KeyCode::Enter);
    assert_eq!(s.step, Step::Model);
    let back = [
        Step::Key,
        Step::ProviderName,
        Step::BaseUrl,
        Step::Provider,
        Step::Provider,
    ];
    for step in back {
        press(&mut s, KeyCode::Esc);
        assert_eq!(s.step, step);
    }
    // Answers are kept while the provider stays the same …
    press(&mut s, KeyCode::Enter);
    press(&mut s, KeyCode::Enter);
    press(&mut s, KeyCode::Enter);
    assert_eq!(s.key.text(), "secret");
    // … and dropped when another provider is chosen.
    for _ in 0..4 {
        press(&mut s, KeyCode::Esc);
    }
    press(&mut s, KeyCode::Home);
    press(&mut s, KeyCode::Enter);
    assert_eq!((s.step, s.key.len()), (Step::Key, 0));
    press(&mut s, KeyCode::Esc);
    assert_eq!(s.step, Step::Provider);

    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(s.handle_key(ctrl_c), SetupAction::Quit);
    let mut release = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
    release.kind = KeyEventKind::Release;
    assert_eq!(s.handle_key(release), SetupAction::None);
    assert_eq!(s.step, Step::Provider);
}

#[test]
fn invalid_provider_names_are_refused() {
    let mut s = screen();
    press(&mut s, KeyCode::Char('5'));
    press(&mut s, KeyCode::Enter);
    clear_field(&mut s);
    type_text(&mut s, "my box");
    press(&mut s, KeyCode::Enter);
    assert_eq!(s.step, Step::ProviderName);
    assert!(s.error.is_some());
}

#[test]
fn key_prompt_masks_submits_and_cancels() {
    let mut p = KeyPrompt::new("anthropic", "ANTHROPIC_API_KEY");
    let key = |code| KeyEvent::new(code, KeyModifiers::NONE);
    assert_eq!(p.handle_key(key(KeyCode::Enter)), KeyPromptAction::None);
    p.handle_paste(" sk-ant-1\n");
    p.handle_key(key(KeyCode::Char('2')));
    assert_eq!(
        p.handle_key(key(KeyCode::Enter)),
        KeyPromptAction::Submit("sk-ant-12".into())
    );
    assert_eq!(p.key_env(), "ANTHROPIC_API_KEY");
    assert!(!format!("{p:?} {:?}", KeyPromptAction::Submit("sk-ant-12".into())).contains("sk-ant"));
    assert_eq!(p.handle_key(key(KeyCode::Esc)), KeyPromptAction::Cancel);
}
