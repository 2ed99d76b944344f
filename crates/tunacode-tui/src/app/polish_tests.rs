//! What a new user tripped on in the transcript and the keys (issue 25): each test failed before
//! its fix.

use insta::assert_snapshot;
use serde_json::json;
use tunacode_protocol::{AgentEvent, ToolKind, ToolStatus};

use crate::app::state::App;
use crate::app::view_tests::{draw, test_app};

/// A finished call of `tool` with `result`.
fn finished_call(app: &mut App, id: &str, tool: &str, args: serde_json::Value, result: &str) {
    app.on_agent_event(AgentEvent::ToolCallStarted {
        tool_call_id: id.into(),
        tool_name: tool.into(),
        args: args.clone(),
        kind: ToolKind::ReadOnly,
    });
    app.on_agent_event(AgentEvent::ToolCallFinished {
        tool_call_id: id.into(),
        tool_name: tool.into(),
        args,
        result: result.into(),
        duration_ms: 3,
        status: ToolStatus::Completed,
        diff: None,
    });
}

#[tokio::test]
async fn tabs_keep_their_indentation_and_long_lines_are_cut_visibly_then_wrapped_on_ctrl_o() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _ch) = test_app(dir.path()).await;
    finished_call(
        &mut app,
        "r1",
        "read_file",
        json!({"file_path": "main.go"}),
        "     1\tfunc main() {\n     2\t\tif ok {\n     3\t\t\tfmt.Println(\"deep\")\n     4\t\t}\n     5\t}",
    );
    finished_call(
        &mut app,
        "b1",
        "bash",
        json!({"command": "cargo build"}),
        "error[E0308]: mismatched types: expected `u32`, found `String` in the call to `parse_count` at src/main.rs:14:22",
    );
    app.on_agent_event(AgentEvent::RequestFinished {
        reason: tunacode_protocol::FinishReason::Answered,
        iterations: 1,
        response: String::new(),
    });
    assert_snapshot!(
        "tool_results_tabs_and_long_lines_60x20",
        draw(&mut app, 60, 20)
    );
    app.view.expand_tools = true;
    assert_snapshot!("tool_results_expanded_wrap_60x20", draw(&mut app, 60, 20));
}
