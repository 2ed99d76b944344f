//! The session budget over the editor protocol: a config option (refused in USD for an unpriced
//! model), and `/budget`, which says the caps and their spend.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod editor;

use agent_client_protocol::v1::schema::{SetSessionConfigOptionRequest, StopReason};
use editor::{Editor, chunk_text, flags, setup};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_budget_is_a_config_option_and_budget_says_it() {
    let (env, fake) = setup(vec![]);
    let editor = Editor::connect(&env, flags(&fake)).await;
    let session = editor.new_session(&env.workspace()).await;
    let unpriced = editor
        .request(SetSessionConfigOptionRequest::new(
            session.clone(),
            "session_budget",
            "5",
        ))
        .await
        .unwrap_err();
    assert!(
        unpriced
            .message
            .contains("price of openai:test-model is unknown"),
        "{unpriced:?}"
    );
    drop(editor);

    let priced = serde_json::json!({"models": {"openai:test-model": {"input": 1, "output": 4}}});
    std::fs::write(env.config_file(), priced.to_string()).unwrap();
    let mut editor = Editor::connect(&env, flags(&fake)).await;
    let session = editor.new_session(&env.workspace()).await;
    let set = editor
        .request(SetSessionConfigOptionRequest::new(
            session.clone(),
            "session_budget",
            "5",
        ))
        .await
        .unwrap();
    let budget = set
        .config_options
        .iter()
        .map(|o| serde_json::to_value(o).unwrap())
        .find(|o| o["id"] == "session_budget")
        .expect("the budget option");
    assert_eq!(budget["currentValue"], "5");
    let response = editor.prompt(&session, "/budget").await;
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    let said: String = editor.drain().iter().filter_map(chunk_text).collect();
    assert!(said.contains("session: $0.00 of $5.00"), "{said}");
    assert!(fake.requests().is_empty(), "no model call for a setting");
}
