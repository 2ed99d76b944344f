//! Tests of history preparation: pruning, the clean-up loop, trailing prompts, the invariants.

use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

/// [`prepare_history`] of a plain list, as a plain list.
fn prepare(history: &[Message], prune: &PruneConfig) -> Vec<Message> {
    prepare_history(&Arc::new(history.to_vec()), prune).to_vec()
}

#[test]
fn a_prepared_history_is_shared_not_copied_and_one_to_prepare_is_copied() {
    let prepared = Arc::new(vec![
        Message::user("go"),
        Message::response(vec![call("a")]),
        Message::request(vec![Part::tool_return("a", "read_file", "x")]),
        Message::response(vec![Part::text("done")]),
    ]);
    assert!(Arc::ptr_eq(
        &prepare_history(&prepared, &NO_PRUNE),
        &prepared
    ));
    let mut unanswered = prepared.to_vec();
    unanswered.push(Message::user("never answered"));
    let unanswered = Arc::new(unanswered);
    let out = prepare_history(&unanswered, &NO_PRUNE);
    assert!(!Arc::ptr_eq(&out, &unanswered));
    assert_eq!(out, prepared);
    // What preparing makes needs no preparing again.
    assert!(Arc::ptr_eq(&prepare_history(&out, &NO_PRUNE), &out));
}

#[test]
fn preparing_copies_only_the_messages_it_changes() {
    let mut with_system = Message::user("go");
    with_system
        .parts
        .insert(0, Part::system_prompt("old system prompt"));
    let session = Arc::new(vec![
        with_system,
        Message::response(vec![call("a")]),
        Message::request(vec![Part::tool_return("a", "read_file", "x")]),
        Message::response(vec![Part::text("done")]),
    ]);
    let out = prepare_history(&session, &NO_PRUNE);
    assert_eq!(out[0].parts, vec![Part::user_prompt("go")]);
    let same =
        |a: &Message, b: &Message| std::ptr::eq::<tunacode_protocol::MessageBody>(&**a, &**b);
    assert!(
        !same(&out[0], &session[0]),
        "the stripped message is a copy"
    );
    for i in 1..4 {
        assert!(
            same(&out[i], &session[i]),
            "message {i} is shared, not copied"
        );
    }
    assert_eq!(
        session[0].parts.len(),
        2,
        "the session's own message is unchanged"
    );
}

#[test]
fn a_stray_or_repeated_answer_or_an_empty_message_is_still_cleaned_up() {
    let answered = |answers: Vec<Part>| {
        vec![
            Message::user("go"),
            Message::response(vec![call("a")]),
            Message::request(answers),
            Message::response(vec![Part::text("done")]),
        ]
    };
    let clean = answered(vec![Part::tool_return("a", "read_file", "x")]);
    let mut with_empty = clean.clone();
    with_empty.insert(3, Message::response(vec![Part::text("  ")]));
    for broken in [
        answered(vec![
            Part::tool_return("a", "read_file", "x"),
            Part::tool_return("zzz", "read_file", "stray"),
        ]),
        answered(vec![
            Part::tool_return("a", "read_file", "x"),
            Part::tool_return("a", "read_file", "again"),
        ]),
        with_empty,
    ] {
        let broken = Arc::new(broken);
        let out = prepare_history(&broken, &NO_PRUNE);
        assert!(!Arc::ptr_eq(&out, &broken), "{broken:?}");
        assert_eq!(*out, clean);
    }
}

const NO_PRUNE: PruneConfig = PruneConfig {
    protect_tokens: u64::MAX,
    minimum_tokens: 0,
};

fn call(id: &str) -> Part {
    Part::tool_call(id, "read_file", json!({"file_path": "a"}))
}

#[test]
fn removes_dangling_calls_orphans_and_the_empty_response_left_behind() {
    let history = vec![
        Message::user("go"),
        Message::response(vec![call("a")]),
        Message::request(vec![Part::tool_return("zzz", "read_file", "orphan")]),
        Message::response(vec![Part::text("done")]),
    ];
    let out = prepare(&history, &NO_PRUNE);
    assert_eq!(
        out,
        vec![
            Message::user("go"),
            Message::response(vec![Part::text("done")])
        ]
    );
    check_invariants(&out).unwrap();
}

#[test]
fn keeps_paired_calls_including_retry_prompt_answers() {
    let history = vec![
        Message::user("go"),
        Message::response(vec![Part::text("reading"), call("a"), call("b")]),
        Message::request(vec![
            Part::tool_return("a", "read_file", "x"),
            Part::retry_prompt("b", "read_file", "missing"),
        ]),
        Message::response(vec![Part::text("ok")]),
    ];
    assert_eq!(prepare(&history, &NO_PRUNE), history);
}

#[test]
fn merges_consecutive_requests_and_strips_system_prompts() {
    let history = vec![
        Message::request(vec![Part::system_prompt("sys"), Part::user_prompt("one")]),
        Message::user("two"),
        Message::response(vec![Part::text("hi")]),
    ];
    let out = prepare(&history, &NO_PRUNE);
    assert_eq!(
        out,
        vec![
            Message::request(vec![Part::user_prompt("one"), Part::user_prompt("two")]),
            Message::response(vec![Part::text("hi")]),
        ]
    );
}

#[test]
fn trailing_prompt_request_is_dropped_but_trailing_tool_answers_are_kept() {
    let unanswered = vec![
        Message::user("a"),
        Message::response(vec![Part::text("b")]),
        Message::user("never answered"),
    ];
    assert_eq!(prepare(&unanswered, &NO_PRUNE).len(), 2);
    let interrupted = vec![
        Message::user("a"),
        Message::response(vec![call("c")]),
        Message::request(vec![Part::tool_return(
            "c",
            "read_file",
            "Cancelled by the user",
        )]),
    ];
    assert_eq!(prepare(&interrupted, &NO_PRUNE), interrupted);
}

#[test]
fn legacy_messages_are_kept_in_place_and_looked_through() {
    let legacy = Message::from_value(json!({"thought": "old"})).unwrap();
    let history = vec![
        Message::user("go"),
        Message::response(vec![call("a")]),
        legacy.clone(),
        Message::request(vec![Part::tool_return("a", "read_file", "x")]),
        Message::response(vec![Part::text("ok")]),
    ];
    let out = prepare(&history, &NO_PRUNE);
    assert_eq!(out, history);
    assert!(out[2].is_legacy());
}

#[test]
fn prunes_old_outputs_beyond_the_budget_only_when_worth_it() {
    let big = "x".repeat(4000); // 1000 tokens
    let mut history = vec![Message::user("go")];
    for id in ["a", "b", "c"] {
        history.push(Message::response(vec![call(id)]));
        history.push(Message::request(vec![Part::tool_return(
            id,
            "read_file",
            big.clone(),
        )]));
    }
    history.push(Message::response(vec![Part::text("done")]));
    let keep_two = PruneConfig {
        protect_tokens: 2000,
        minimum_tokens: 500,
    };
    let mut pruned = history.clone();
    assert_eq!(prune_old_tool_outputs(&mut pruned, &keep_two), 1000);
    let contents: Vec<String> = pruned
        .iter()
        .flat_map(|m| m.parts.iter())
        .filter_map(|p| match p {
            Part::ToolReturn(r) => Some(tunacode_protocol::content_to_text(&r.content)),
            _ => None,
        })
        .collect();
    assert_eq!(
        contents,
        vec![PRUNED_PLACEHOLDER.to_string(), big.clone(), big.clone()]
    );
    let not_worth_it = PruneConfig {
        protect_tokens: 2000,
        minimum_tokens: 5000,
    };
    let mut untouched = history.clone();
    assert_eq!(prune_old_tool_outputs(&mut untouched, &not_worth_it), 0);
    assert_eq!(untouched, history);
}

#[test]
fn invariant_check_catches_each_violation() {
    assert!(check_invariants(&[Message::user("a"), Message::user("b")]).is_err());
    assert!(check_invariants(&[Message::user("a"), Message::response(vec![call("x")])]).is_err());
    assert!(check_invariants(&[Message::request(vec![Part::system_prompt("s")])]).is_err());
    assert!(
        check_invariants(&[Message::user("a"), Message::response(vec![Part::text("b")])]).is_ok()
    );
}

#[test]
fn a_batch_of_many_calls_is_checked_as_a_few_are() {
    for n in [3, FEW_IDS + 1, 40] {
        let ids: Vec<String> = (0..n).map(|i| format!("c{i}")).collect();
        let answer = |id: &str| Part::tool_return(id, "read_file", "x");
        let batch = |answers: Vec<Part>| {
            vec![
                Message::user("go"),
                Message::response(ids.iter().map(|id| call(id)).collect()),
                Message::request(answers),
                Message::response(vec![Part::text("done")]),
            ]
        };
        let all: Vec<Part> = ids.iter().map(|id| answer(id)).collect();
        let clean = batch(all.clone());
        assert!(check_invariants(&clean).is_ok(), "{n}");
        assert!(!has_empty_or_stray_answers(&clean), "{n}");
        let missing = batch(all[1..].to_vec());
        assert!(
            check_invariants(&missing).is_err(),
            "{n}: the first call has no answer"
        );
        let mut repeated = all.clone();
        repeated.push(answer(&ids[n - 1]));
        assert!(
            has_empty_or_stray_answers(&batch(repeated)),
            "{n}: the last answer twice"
        );
        let mut stray = all;
        stray.push(answer("elsewhere"));
        assert!(
            has_empty_or_stray_answers(&batch(stray)),
            "{n}: an answer to no call"
        );
    }
}

#[test]
fn ids_move_from_a_list_to_a_set_and_keep_every_id() {
    let mut ids = Ids::of(std::iter::empty());
    let names: Vec<String> = (0..3 * FEW_IDS).map(|i| format!("id{i}")).collect();
    for name in &names {
        assert!(ids.insert(name), "{name}");
        assert!(!ids.insert(name), "{name} twice");
    }
    assert!(matches!(ids, Ids::Many(_)));
    assert!(names.iter().all(|n| ids.contains(n)) && !ids.contains("id-none"));
}
