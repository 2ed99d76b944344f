use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

#[test]
fn the_compaction_mark_is_a_name_read_without_an_allocation() {
    assert!(matches!(
        crate::field_name(COMPACTED_KEY),
        std::borrow::Cow::Borrowed(COMPACTED_KEY)
    ));
}

/// A long session holds ~10,000 messages and ~15,000 parts: their inline size is most of the
/// memory it takes once read (a part was 200 bytes and a message 192 with a `Map` each; a part
/// was 152 with a `Value` for its content, 104 and a message 64 with a `Vec` for their extras).
#[test]
fn messages_and_parts_stay_small() {
    let (part, body) = (
        std::mem::size_of::<Part>(),
        std::mem::size_of::<MessageBody>(),
    );
    assert!(part <= 88, "a part is {part} bytes");
    assert!(body <= 48, "a message is {body} bytes");
    // With its estimate and the two counts of its `Arc`: 72 bytes fit malloc's 80-byte chunk.
    assert!(std::mem::size_of::<Shared>() <= 56);
    let read: Message =
        serde_json::from_str(r#"{"kind": "response", "parts": [], "finish_reason": "stop"}"#)
            .unwrap();
    assert_eq!((read.extra.len(), read.extra.capacity()), (1, 1));
}

#[test]
fn seed_wire_format_round_trips_byte_for_byte() {
    let text = r#"[{"kind":"request","parts":[{"part_kind":"user-prompt","content":"list files","timestamp":"2026-01-31T21:25:27Z"}]},{"kind":"response","parts":[{"part_kind":"text","content":"..."},{"part_kind":"tool-call","tool_call_id":"tc_1","tool_name":"bash","args":{"command":"ls"}}],"model_name":"gpt-4.1"},{"kind":"request","parts":[{"part_kind":"tool-return","tool_call_id":"tc_1","tool_name":"bash","content":"..."}]}]"#;
    let messages: Vec<Message> = serde_json::from_str(text).unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(
        messages[1].tool_calls().next().unwrap().tool_call_id,
        "tc_1"
    );
    assert_eq!(messages[2].parts[0].tool_call_id(), Some("tc_1"));
    assert_eq!(serde_json::to_string(&messages).unwrap(), text);
}

#[test]
fn a_clone_shares_the_message_and_a_change_copies_it_first() {
    let original = Message::user("hi");
    let mut copy = original.clone();
    assert!(Arc::ptr_eq(&original.0, &copy.0));
    copy.parts.push(Part::text("more"));
    assert!(!Arc::ptr_eq(&original.0, &copy.0));
    assert_eq!(original.parts, vec![Part::user_prompt("hi")]);
    assert_eq!(copy.parts.len(), 2);
    assert_ne!(original, copy);
    // Taken apart, a message still shared is copied, one no one else holds is moved.
    let shared = original.clone();
    let buffer = shared.parts.as_ptr();
    let copied = original.into_body();
    assert_eq!(copied.parts, shared.parts);
    assert_ne!(copied.parts.as_ptr(), buffer);
    assert_eq!(shared.into_body().parts.as_ptr(), buffer);
}

#[test]
fn an_estimate_is_worked_out_once_shared_and_forgotten_when_the_message_changes() {
    let calls = std::cell::Cell::new(0);
    let estimate = |m: &Message| {
        calls.set(calls.get() + 1);
        m.parts.len() as u64 * 10
    };
    let original = Message::user("hi");
    let shared = original.clone();
    assert_eq!(original.estimated_tokens(estimate), 10);
    assert_eq!(shared.estimated_tokens(estimate), 10);
    assert_eq!(calls.get(), 1, "worked out once for every holder");
    let mut changed = shared.clone();
    changed.parts.push(Part::text("more"));
    assert_eq!(changed.estimated_tokens(estimate), 20);
    assert_eq!(original.estimated_tokens(estimate), 10);
    // A change in place of a message no one else holds forgets the estimate too.
    let mut alone = Message::user("x");
    assert_eq!(alone.estimated_tokens(estimate), 10);
    alone.parts.push(Part::text("y"));
    assert_eq!(alone.estimated_tokens(estimate), 20);
    // Taken apart and put back, a message is estimated afresh.
    let rebuilt = Message::from(changed.into_body());
    assert_eq!(rebuilt.estimated_tokens(estimate), 20);
    assert_eq!(calls.get(), 5);
}

#[test]
fn legacy_dicts_load_and_are_written_back_unchanged() {
    let input = json!([{"content": "hello there", "role": "user"}, {"thought": "I should look"}]);
    let messages: Vec<Message> = serde_json::from_value(input.clone()).unwrap();
    assert!(messages[0].is_request() && messages[0].is_legacy());
    assert_eq!(messages[0].parts, vec![Part::user_prompt("hello there")]);
    assert!(messages[1].is_response());
    assert_eq!(
        messages[1].parts,
        vec![Part::thinking("I should look", None)]
    );
    assert_eq!(serde_json::to_value(&messages).unwrap(), input);
}

#[test]
fn unknown_shapes_are_errors_not_silently_dropped() {
    let err = serde_json::from_value::<Message>(json!({"foo": 1})).unwrap_err();
    assert!(err.to_string().contains("unrecognised message"), "{err}");
    assert!(serde_json::from_value::<Message>(json!("text")).is_err());
}

#[test]
fn messages_read_from_text_and_from_a_tree_alike_with_the_same_errors() {
    let canonical = json!({"parts": [{"part_kind": "text", "content": "hi"}],
                           "model_name": "m", "kind": "response"});
    let legacy = json!({"thought": "hm"});
    for value in [canonical, legacy] {
        let from_text: Message = serde_json::from_str(&value.to_string()).unwrap();
        let from_tree: Message = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(from_text, from_tree);
        assert_eq!(serde_json::to_value(&from_text).unwrap(), value);
    }
    for broken in [
        json!({"kind": "response"}),
        json!({"kind": "sideways", "parts": []}),
        json!({"parts": [], "content": "x"}),
    ] {
        let err = serde_json::from_str::<Message>(&broken.to_string()).unwrap_err();
        assert!(
            err.to_string().contains("invalid message"),
            "{broken}: {err}"
        );
    }
    assert!(serde_json::from_str::<Message>("[1]").is_err());
    assert!(serde_json::from_str::<Message>("null").is_err());
}

#[test]
fn empty_response_detection() {
    assert!(Message::response(vec![]).is_empty_response());
    assert!(Message::response(vec![Part::text("  \n")]).is_empty_response());
    assert!(Message::response(vec![Part::thinking("hm", None)]).is_empty_response());
    assert!(!Message::response(vec![Part::text("ok")]).is_empty_response());
    let call = Part::tool_call("a", "bash", json!({}));
    assert!(!Message::response(vec![call]).is_empty_response());
    assert!(!Message::user("").is_empty_response());
}
