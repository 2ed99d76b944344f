//! The real 0.2.3 files in `tests/fixtures/tunacode-0.2/` convert into canonical, paired histories.

use std::path::PathBuf;

use pretty_assertions::assert_eq;
use tunacode_protocol::{MessageKind, Part};

use crate::session_store::parse_session;

fn fixture(name: &str) -> crate::SessionFile {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tunacode-0.2")
        .join(name);
    parse_session(&std::fs::read(&path).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Every message as `(kind, part kinds)`, for shape checks.
fn shape(file: &crate::SessionFile) -> Vec<(MessageKind, Vec<String>)> {
    file.messages
        .iter()
        .map(|m| {
            assert!(m.legacy.is_none(), "converted: {m:?}");
            (
                m.kind,
                m.parts.iter().map(|p| p.part_kind().to_string()).collect(),
            )
        })
        .collect()
}

fn kinds(list: &[(&str, &[&str])]) -> Vec<(MessageKind, Vec<String>)> {
    list.iter()
        .map(|(k, parts)| {
            let kind = if *k == "req" {
                MessageKind::Request
            } else {
                MessageKind::Response
            };
            (kind, parts.iter().map(|p| p.to_string()).collect())
        })
        .collect()
}

#[test]
fn every_fixture_loads_with_its_usage() {
    for name in [
        "text_only.json",
        "tool_call.json",
        "tool_error.json",
        "parallel_tools.json",
        "provider_error.json",
        "compaction.json",
        "empty.json",
    ] {
        let file = fixture(name);
        assert_eq!(file.current_model, "openai:gpt-4.1", "{name}");
        if name != "empty.json" {
            assert!(file.session_total_usage.request_tokens > 0, "{name}");
        }
    }
}

#[test]
fn a_tool_call_and_its_result_become_a_paired_response_and_request() {
    let file = fixture("tool_call.json");
    assert_eq!(
        shape(&file),
        kinds(&[
            ("req", &["user-prompt"]),
            ("resp", &["text", "tool-call"]),
            ("req", &["tool-return"]),
            ("resp", &["text"]),
            ("req", &["user-prompt"]),
            ("resp", &["thinking", "text"]),
        ])
    );
    let Part::ToolCall(call) = &file.messages[1].parts[1] else {
        panic!()
    };
    let Part::ToolReturn(ret) = &file.messages[2].parts[0] else {
        panic!()
    };
    assert_eq!(call.tool_call_id, ret.tool_call_id);
    assert_eq!(call.tool_name, "read_file");
    assert!(
        call.args.to_value()["filepath"]
            .as_str()
            .unwrap()
            .ends_with("notes.txt")
    );
    assert!(ret.content.as_str().unwrap().contains("hello from notes"));
}

#[test]
fn parallel_results_share_one_request_and_errors_stay_as_results() {
    let file = fixture("parallel_tools.json");
    let answers = file
        .messages
        .iter()
        .find(|m| m.is_request() && m.parts.iter().all(Part::is_tool_answer))
        .unwrap();
    assert_eq!(answers.parts.len(), 2);
    let failed = fixture("tool_error.json");
    let text = serde_json::to_string(&failed.messages).unwrap();
    assert!(text.contains("File not found"), "{text}");
}

#[test]
fn failed_provider_calls_are_left_out_and_compaction_summaries_lead() {
    let file = fixture("provider_error.json");
    let responses: Vec<_> = file.messages.iter().filter(|m| m.is_response()).collect();
    assert!(responses.iter().all(|m| !m.parts.is_empty()));
    assert_eq!(responses.len(), 1, "the 401 is not a response");
    let file = fixture("compaction.json");
    let Part::UserPrompt(first) = &file.messages[0].parts[0] else {
        panic!("{:?}", file.messages[0])
    };
    let first = tunacode_protocol::content_to_text(&first.content);
    assert!(
        first.starts_with("[Compaction summary]\n\nThe user is working on a project called Nimbus")
    );
    assert_eq!(file.messages.len(), 3);
}
