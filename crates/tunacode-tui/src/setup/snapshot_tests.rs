//! Each setup step drawn at 80×24 and at a narrow 50×16; a pasted key never reaches the screen.

use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::flow_tests::{clear_field, press, screen, type_text};
use super::*;
use crate::theme::Theme;

const KEY: &str = "sk-proj-SECRETabcdef0123456789";

const SIZES: [(u16, u16); 2] = [(80, 24), (50, 16)];

fn draw(width: u16, height: u16, f: impl Fn(&mut ratatui::Frame)) -> TestBackend {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| f(frame)).unwrap();
    terminal.backend().clone()
}

fn text_of(backend: &TestBackend) -> String {
    let buffer = backend.buffer();
    buffer.content().iter().map(|c| c.symbol()).collect()
}

/// Snapshots the screen at both sizes and checks the key is nowhere on it.
fn snap(name: &str, s: &SetupScreen) {
    for (w, h) in SIZES {
        let backend = draw(w, h, |frame| s.render(frame, frame.area(), &Theme::dark()));
        let text = text_of(&backend);
        for secret in [KEY, "SECRET", "sk-proj", "0123"] {
            assert!(!text.contains(secret), "{name}: `{secret}` is on screen");
        }
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), backend);
    }
}

/// OpenAI chosen, key pasted.
fn openai_at_model() -> SetupScreen {
    let mut s = screen();
    press(&mut s, KeyCode::Enter);
    s.handle_paste(KEY);
    press(&mut s, KeyCode::Enter);
    s
}

#[test]
fn provider_step() {
    let mut s = screen();
    press(&mut s, KeyCode::Down);
    snap("provider", &s);
}

#[test]
fn compatible_server_steps() {
    let mut s = screen();
    press(&mut s, KeyCode::End);
    press(&mut s, KeyCode::Enter);
    snap("base_url", &s);
    clear_field(&mut s);
    type_text(&mut s, "localhost:8080");
    press(&mut s, KeyCode::Enter);
    snap("base_url_error", &s);
    press(&mut s, KeyCode::Home);
    type_text(&mut s, "http://");
    press(&mut s, KeyCode::Enter);
    snap("provider_name", &s);
    press(&mut s, KeyCode::Enter);
    snap("key_optional", &s);
    press(&mut s, KeyCode::Enter);
    type_text(&mut s, "qwen3:8b");
    snap("model_typed", &s);
    press(&mut s, KeyCode::Enter);
    s.on_check_result(Err(
        "Could not connect to http://localhost:8080: connection refused".into(),
    ));
    snap("check_failed", &s);
}

#[test]
fn key_step_never_shows_the_key() {
    let mut s = screen();
    press(&mut s, KeyCode::Enter);
    press(&mut s, KeyCode::Enter);
    snap("key_missing", &s);
    s.handle_paste(KEY);
    snap("key_pasted", &s);
}

#[test]
fn model_steps() {
    let mut s = openai_at_model();
    snap("model_list", &s);
    type_text(&mut s, "gpt-4");
    press(&mut s, KeyCode::Down);
    snap("model_filtered", &s);
}

#[test]
fn check_steps() {
    let mut s = openai_at_model();
    press(&mut s, KeyCode::Enter);
    snap("check_running", &s);
    s.on_check_result(Err(
        "The key was rejected (HTTP 401): Incorrect API key provided: sk-****. \
         You can find your API key at https://platform.openai.com/account/api-keys."
            .into(),
    ));
    snap("check_rejected", &s);
    press(&mut s, KeyCode::Enter);
    s.on_check_result(Ok(()));
    snap("check_ok", &s);
}

#[test]
fn key_prompt_dialog() {
    let mut p = KeyPrompt::new("anthropic", "ANTHROPIC_API_KEY");
    p.handle_paste(KEY);
    for (w, h) in SIZES {
        let backend = draw(w, h, |frame| p.render(frame, frame.area(), &Theme::dark()));
        assert!(!text_of(&backend).contains("SECRET"));
        insta::assert_snapshot!(format!("key_prompt_{w}x{h}"), backend);
    }
    let backend = draw(50, 16, |frame| {
        KeyPrompt::new("google", "GEMINI_API_KEY").render(frame, frame.area(), &Theme::plain())
    });
    insta::assert_snapshot!("key_prompt_empty_50x16", backend);
}

#[test]
fn tiny_areas_do_not_panic() {
    let s = openai_at_model();
    for (w, h) in [(1, 1), (5, 3), (20, 6), (30, 10)] {
        draw(w, h, |frame| s.render(frame, frame.area(), &Theme::plain()));
        draw(w, h, |frame| {
            KeyPrompt::new("x", "X_API_KEY").render(frame, frame.area(), &Theme::plain())
        });
    }
}

#[test]
fn a_long_model_list_scrolls_to_the_selection() {
    use tunacode_protocol::runtime::{CatalogueModel, ModelCatalogue};
    let models = (0..30)
        .map(|i| CatalogueModel {
            provider: "openrouter".into(),
            id: format!("vendor/model-{i:02}"),
            context_window: 8192,
            input_price: 0.0,
            output_price: 0.0,
        })
        .collect();
    let catalogue = ModelCatalogue {
        models,
        providers: super::flow_tests::catalogue().providers,
    };
    let mut s = SetupScreen::new(&catalogue, "/tmp/tunacode.json".into());
    press(&mut s, KeyCode::Char('4'));
    type_text(&mut s, "sk-or");
    press(&mut s, KeyCode::Enter);
    press(&mut s, KeyCode::PageDown);
    press(&mut s, KeyCode::PageDown);
    press(&mut s, KeyCode::Down);
    for (w, h) in SIZES {
        let backend = draw(w, h, |frame| s.render(frame, frame.area(), &Theme::dark()));
        let text = text_of(&backend);
        assert!(text.contains("› vendor/model-21"), "{backend}");
        assert!(!text.contains("vendor/model-00"), "{backend}");
    }
    press(&mut s, KeyCode::PageDown);
    press(&mut s, KeyCode::PageDown);
    let SetupAction::Check(choice) = press(&mut s, KeyCode::Enter) else {
        panic!("no check");
    };
    assert_eq!(choice.model_id(), "openrouter:vendor/model-29");
}
