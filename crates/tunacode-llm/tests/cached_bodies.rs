//! Every wire's body is the same bytes with the engine's message cache as without it, call after call
//! of a growing run (notes, retries, user prompts joining tool answers, an answer that does not name
//! its tool), and a kept message is really reused: it is not written again until the engine says it
//! changed, nor after a change to a later message, a new lead or while a retry holds the last body.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use bytes::Bytes;
use serde_json::json;
use tunacode_llm::anthropic::AnthropicBody;
use tunacode_llm::gemini::GeminiBody;
use tunacode_llm::openai_chat::{ChatBody, ChatDialect};
use tunacode_llm::openai_responses::ResponsesBody;
use tunacode_llm::{MessageCache, ModelRequest};
use tunacode_protocol::{COMPACTED_KEY, Message, Part, ToolSpec};

const WIRES: [&str; 4] = ["chat", "responses", "anthropic", "gemini"];

/// The body of `request` on `wire`, as the client sends it.
fn body(wire: &str, request: &ModelRequest) -> String {
    String::from_utf8(bytes(wire, request).to_vec()).unwrap()
}

/// The body's bytes (in the buffer the client would send).
fn bytes(wire: &str, request: &ModelRequest) -> Bytes {
    match wire {
        "chat" => ChatBody::new(request, ChatDialect::default()).to_bytes(),
        "responses" => ResponsesBody(request).to_bytes(),
        "anthropic" => AnthropicBody(request).to_bytes(),
        _ => GeminiBody(request).to_bytes(),
    }
}

/// The messages a run adds at its step `i`: a response calling a tool, then the tool's answer (every
/// third answer is a retry prompt, every fourth one does not name its tool, every fifth one comes
/// with a new prompt of the user).
fn step(i: usize) -> Vec<Message> {
    let id = format!("call_{i}");
    let response = Message::response(vec![
        Part::text(format!("Step {i}.")),
        Part::tool_call(
            &id,
            "read_file",
            json!({"file_path": format!("src/{i}.rs")}),
        ),
    ]);
    let mut answer = match i % 3 {
        0 => Part::retry_prompt(&id, "read_file", "no such file"),
        _ => Part::tool_return(&id, "read_file", format!("line {i}")),
    };
    if i.is_multiple_of(4)
        && let Part::ToolReturn(r) = &mut answer
    {
        r.tool_name = Default::default();
    }
    let mut parts = vec![answer];
    if i.is_multiple_of(5) {
        parts.push(Part::user_prompt(format!("also look at {i}")));
    }
    vec![response, Message::request(parts)]
}

fn request(
    messages: Vec<Message>,
    nudge: Option<String>,
    cache: Option<Arc<MessageCache>>,
) -> ModelRequest {
    ModelRequest {
        model: "m".into(),
        system: "be brief".into(),
        messages: Arc::new(messages),
        nudge,
        tools: vec![ToolSpec {
            name: "read_file".into(),
            description: "reads".into(),
            parameters: json!({"type": "object", "properties": {"file_path": {"type": "string"}}}),
        }]
        .into(),
        cache,
        ..ModelRequest::default()
    }
}

#[test]
fn every_wire_sends_the_same_bytes_with_the_cache_call_after_call() {
    for wire in WIRES {
        let cache = Arc::new(MessageCache::new());
        let mut history = vec![Message::user("check the repo")];
        for i in 0..12 {
            history.extend(step(i));
            let nudge = i
                .is_multiple_of(2)
                .then(|| format!("# Current todos\n- {i}"));
            let want = body(wire, &request(history.clone(), nudge.clone(), None));
            let got = body(wire, &request(history.clone(), nudge, Some(cache.clone())));
            assert_eq!(got, want, "{wire} at step {i}");
        }
    }
}

#[test]
fn a_cached_message_is_reused_on_every_wire_until_it_is_said_to_have_changed() {
    for wire in WIRES {
        let cache = Arc::new(MessageCache::new());
        let mut history = vec![Message::user("take a screenshot")];
        // Enough turns that the first is kept on every wire (not among Anthropic's marked two).
        for i in 1..4 {
            history.extend(step(i));
        }
        let body = |history: &Vec<Message>| {
            body(wire, &request(history.clone(), None, Some(cache.clone())))
        };
        assert!(body(&history).contains("take a screenshot"));
        history[0] = Message::user("take two screenshots");
        let stale = body(&history);
        assert!(stale.contains("take a screenshot"), "wire {wire}: {stale}");
        cache.invalidate_from(0);
        let fresh = body(&history);
        assert!(
            fresh.contains("take two screenshots"),
            "wire {wire}: {fresh}"
        );
    }
}

/// Messages a run adds at its step `i` that join turns on the wires that group them: an answer, then
/// the user's prompt as a message of its own; a response split in two messages; a response with
/// nothing to send (it must not split a turn).
fn joining_step(i: usize) -> Vec<Message> {
    let id = format!("call_{i}");
    let mut out = vec![Message::response(vec![Part::text(format!("Step {i}."))])];
    if i.is_multiple_of(2) {
        out.push(Message::response(vec![Part::text("")]));
    }
    out.push(Message::response(vec![Part::tool_call(
        &id,
        "read_file",
        json!({"file_path": format!("src/{i}.rs")}),
    )]));
    out.push(Message::request(vec![Part::tool_return(
        &id,
        "read_file",
        format!("line {i}"),
    )]));
    if i % 3 == 1 {
        out.push(Message::user(format!("and then {i}")));
    }
    if i % 4 == 2 {
        // A compacted request (out of the conversation) and an empty one (no blocks on Anthropic):
        // neither splits a turn, and a history that ends with them gets the note as a turn of its
        // own on Anthropic.
        let mut gone = Message::user(format!("compacted {i}"));
        gone.extra.insert(COMPACTED_KEY.into(), json!(true));
        out.push(gone);
        out.push(Message::user(""));
    }
    out
}

#[test]
fn turn_wires_send_the_same_bytes_with_the_cache_when_messages_join_turns() {
    for wire in ["anthropic", "gemini"] {
        let cache = Arc::new(MessageCache::new());
        let mut history = vec![Message::user("check the repo")];
        for i in 0..12 {
            history.extend(joining_step(i));
            if i % 5 == 4 {
                // The model answered, and an empty prompt followed: on Anthropic the history's last
                // turn is the model's, so the note is a user turn of its own.
                history.push(Message::response(vec![Part::text(format!(
                    "Done with {i}."
                ))]));
                history.push(Message::user(""));
            }
            let nudge = (i % 3 == 0 || i % 5 == 4).then(|| format!("# Current todos\n- {i}"));
            let want = body(wire, &request(history.clone(), nudge.clone(), None));
            let got = body(wire, &request(history.clone(), nudge, Some(cache.clone())));
            assert_eq!(got, want, "{wire} at step {i}");
            if wire == "anthropic" && i % 5 == 4 {
                let note = format!(
                    r##"{{"role":"user","content":[{{"type":"text","text":"# Current todos\n- {i}"}}]}}]"##
                );
                assert!(got.contains(&note), "the note is a turn of its own: {got}");
            }
        }
    }
}

#[test]
fn a_turn_wire_body_is_written_afresh_when_a_changed_message_would_join_a_kept_turn() {
    for wire in ["anthropic", "gemini"] {
        let cache = Arc::new(MessageCache::new());
        let mut history = vec![Message::user("check the repo")];
        for i in 0..6 {
            history.extend(step(i));
            let _ = bytes(wire, &request(history.clone(), None, Some(cache.clone())));
        }
        // Everything from message `cut` on is replaced (and the engine says so): by a summary, a
        // request as compaction writes it, or by a response. Where a kept body ends with a turn of
        // the same side, the new message would join it.
        let summaries = [
            Message::user("summary of the rest"),
            Message::response(vec![Part::text("summary of the rest")]),
        ];
        for (cut, summary) in (1..history.len()).flat_map(|c| summaries.iter().map(move |s| (c, s)))
        {
            let mut rewritten = history[..cut].to_vec();
            rewritten.push(summary.clone());
            rewritten.extend(step(9));
            cache.invalidate_from(cut);
            let want = body(wire, &request(rewritten.clone(), None, None));
            let got = body(wire, &request(rewritten.clone(), None, Some(cache.clone())));
            assert_eq!(got, want, "{wire} cut at {cut}");
            // Back to the whole history (said to have changed from the cut), for the next round.
            cache.invalidate_from(cut);
            let _ = bytes(wire, &request(history.clone(), None, Some(cache.clone())));
        }
    }
}

#[test]
fn a_turn_wire_body_is_written_afresh_when_the_history_loses_its_newest_turns() {
    for wire in ["anthropic", "gemini"] {
        let cache = Arc::new(MessageCache::new());
        let mut history = vec![Message::user("check the repo")];
        for i in 0..6 {
            history.extend(joining_step(i));
            let _ = bytes(wire, &request(history.clone(), None, Some(cache.clone())));
        }
        // The newest messages go from `cut` on (the engine says so): Anthropic's breakpoints move
        // back onto turns a kept body holds unmarked.
        for cut in 1..history.len() {
            cache.invalidate_from(cut);
            let shorter = history[..cut].to_vec();
            let want = body(wire, &request(shorter.clone(), None, None));
            let got = body(wire, &request(shorter, None, Some(cache.clone())));
            assert_eq!(got, want, "{wire} cut at {cut}");
            let _ = bytes(wire, &request(history.clone(), None, Some(cache.clone())));
        }
    }
}

/// A history of a first prompt and seven steps: every wire keeps its first message in the body.
fn seven_steps() -> Vec<Message> {
    let mut history = vec![Message::user("first prompt")];
    for i in 1..8 {
        history.extend(step(i));
    }
    history
}

/// `history` with its first message changed without a word to the cache: a body that still says
/// "first prompt" copied the kept bytes instead of writing that message again.
fn changed_unsaid(history: &[Message]) -> Vec<Message> {
    let mut changed = history.to_vec();
    changed[0] = Message::user("stale prompt");
    changed
}

#[test]
fn a_change_in_place_cuts_the_kept_body_back_before_it_on_every_wire() {
    for wire in WIRES {
        for changed in [5, 9, 12] {
            let cache = Arc::new(MessageCache::new());
            let history = seven_steps();
            body(wire, &request(history.clone(), None, Some(cache.clone())));
            let mut now = changed_unsaid(&history);
            let mut fresh = history.clone();
            for h in [&mut now, &mut fresh] {
                h[changed].parts.push(Part::text("rewritten"));
            }
            cache.invalidate_from(changed);
            let got = body(wire, &request(now, None, Some(cache.clone())));
            assert!(
                got.contains("first prompt"),
                "{wire} {changed}: not cut back"
            );
            assert!(got.contains("rewritten"), "{wire} {changed}");
            assert_eq!(
                got,
                body(wire, &request(fresh, None, None)),
                "{wire} {changed}"
            );
        }
    }
}

#[test]
fn a_new_system_prompt_or_tools_keep_the_written_messages_on_every_wire() {
    for wire in WIRES {
        let cache = Arc::new(MessageCache::new());
        let mut history = seven_steps();
        let first = request(history.clone(), None, Some(cache.clone()));
        body(wire, &first);
        // No system prompt, then one again (Chat's lead loses and regains its system message),
        // then other tools.
        for (n, system) in ["", "be thorough", "be thorough", "be brief"]
            .into_iter()
            .enumerate()
        {
            history.extend(step(10 + n));
            let mut call = request(changed_unsaid(&history), None, Some(cache.clone()));
            let mut alone = request(history.clone(), None, None);
            for r in [&mut call, &mut alone] {
                r.system = system.into();
                if n == 2 {
                    r.tools = Arc::from([]);
                }
            }
            let got = body(wire, &call);
            assert!(got.contains("first prompt"), "{wire} {n}: written again");
            assert_eq!(got, body(wire, &alone), "{wire} {n}");
        }
    }
}

#[test]
fn a_body_still_held_by_a_retry_is_copied_not_written_again_on_every_wire() {
    for wire in WIRES {
        let cache = Arc::new(MessageCache::new());
        let mut history = seven_steps();
        let held = bytes(wire, &request(history.clone(), None, Some(cache.clone())));
        history.extend(step(8));
        let got = bytes(
            wire,
            &request(changed_unsaid(&history), None, Some(cache.clone())),
        );
        assert_ne!(
            got.as_ptr(),
            held.as_ptr(),
            "{wire}: the held buffer was changed"
        );
        let text = String::from_utf8(got.to_vec()).unwrap();
        assert!(text.contains("first prompt"), "{wire}: written again");
        assert_eq!(text, body(wire, &request(history, None, None)), "{wire}");
        assert!(String::from_utf8(held.to_vec()).unwrap().ends_with("]}"));
    }
}

#[test]
fn a_refused_continuation_steps_back_a_few_turns_instead_of_writing_it_all_on_every_wire() {
    for wire in WIRES {
        let cache = Arc::new(MessageCache::new());
        let history = seven_steps();
        body(wire, &request(history.clone(), None, Some(cache.clone())));
        // The tail after a response is replaced by another response (it joins that response's
        // turn on the turn wires) and one user turn (too few for Anthropic's two marks).
        let mut next = history[..8].to_vec();
        assert!(next[7].is_response());
        next.push(Message::response(vec![Part::text("summary")]));
        next.push(Message::user("next"));
        cache.invalidate_from(8);
        let got = body(
            wire,
            &request(changed_unsaid(&next), None, Some(cache.clone())),
        );
        assert!(got.contains("first prompt"), "{wire}: written again");
        assert_eq!(got, body(wire, &request(next, None, None)), "{wire}");
    }
}

#[test]
fn a_change_to_a_message_without_elements_cuts_back_just_before_it_on_every_wire() {
    for wire in WIRES {
        let cache = Arc::new(MessageCache::new());
        let mut history = seven_steps();
        // Out of the conversation: nothing of it is in the body.
        let mut gone = Message::user("compacted away");
        gone.mark_compacted();
        history.insert(1, gone);
        body(wire, &request(history.clone(), None, Some(cache.clone())));
        let mut now = changed_unsaid(&history);
        let mut fresh = history.clone();
        for h in [&mut now, &mut fresh] {
            h[1] = Message::user("still compacted");
            h[1].mark_compacted();
        }
        cache.invalidate_from(1);
        let got = body(wire, &request(now, None, Some(cache.clone())));
        assert!(
            got.contains("first prompt"),
            "{wire}: cut back past the first message"
        );
        assert_eq!(got, body(wire, &request(fresh, None, None)), "{wire}");
    }
}
