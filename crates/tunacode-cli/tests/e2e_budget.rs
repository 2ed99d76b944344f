//! End-to-end: budgets checked before every model call. A `--max-cost` run clamps the call that only
//! fits shortened, stops before the call that would pass the cap (the provider never sees it), exits
//! with 5 and reports the spend; an unpriced model with a USD budget is refused with how to price it;
//! two concurrent runs under a daily cap never spend more than it together; a script driving the run
//! is asked whether to raise a cap, and raising it lets the request go on.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use serde_json::{Value, json};
use tunacode_testkit::{FakeProvider, Reply, ScriptedToolCall, ScriptedUsage, TestEnv, Turn};

/// $100 per million input tokens, $1,000 per million output, at most 4,000 output tokens a call.
fn priced_config(env: &TestEnv, budget: Value) {
    let config = json!({
        "models": {"openai:test-model": {"input": 100.0, "output": 1000.0, "max_output": 4000}},
        "settings": {"budget": budget},
    });
    std::fs::write(env.config_file(), config.to_string()).unwrap();
}

/// A reply that reads a file, reporting `prompt` input and `completion` output tokens.
fn reading(id: &str, prompt: u64, completion: u64) -> Turn {
    Turn::Reply(Reply {
        text: Some("Reading.".into()),
        tool_calls: vec![ScriptedToolCall {
            id: id.into(),
            name: "list_dir".into(),
            arguments: r#"{"directory": "."}"#.into(),
        }],
        usage: Some(ScriptedUsage {
            prompt_tokens: prompt,
            completion_tokens: completion,
            cached_tokens: 0,
        }),
        ..Reply::default()
    })
}

fn max_tokens(body: &Value) -> Option<u64> {
    body.get("max_tokens").and_then(Value::as_u64)
}

#[test]
fn a_max_cost_run_clamps_the_call_that_fits_shortened_and_never_sends_the_one_that_would_pass() {
    let env = TestEnv::new().unwrap();
    priced_config(&env, json!({}));
    // Call 1: $0.23 in + $3.00 out. Call 2 has ~$1.77 left: about 1,500 output tokens fit.
    // Call 3 would pass the cap even before it wrote anything.
    let fake = FakeProvider::start(vec![
        reading("c1", 2300, 3000),
        reading("c2", 2400, 1500),
        Turn::text("never sent"),
    ]);
    let run = run(&env, &fake, &["--max-cost", "5", "look around"]);
    assert_eq!(run.code, 5, "{}\n{}", run.stdout, run.stderr);
    let requests = fake.requests();
    assert_eq!(requests.len(), 2, "the third call was not sent");
    assert_eq!(
        max_tokens(&requests[0].body),
        None,
        "the first call fits whole"
    );
    let clamped = max_tokens(&requests[1].body).expect("the second call is clamped");
    assert!((1024..4000).contains(&clamped), "clamped to {clamped}");
    let result = run.result();
    assert_eq!(result["status"], "budget_exhausted");
    assert_eq!(result["error"]["kind"], "budget_exhausted");
    let message = result["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("run budget") && message.contains("$5.00"),
        "{message}"
    );
    // The result's usage is the session's total.
    let spent = result["usage"]["cost"].as_f64().unwrap();
    assert!((spent - 4.97).abs() < 1e-6, "spent {spent}");
    // The session keeps both answered calls.
    let session = env.only_session();
    assert_eq!(
        session["session_total_usage"]["cost"].as_f64().unwrap(),
        spent
    );
}

#[test]
fn a_usd_budget_for_an_unpriced_model_is_refused_with_how_to_price_it() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![Turn::text("never sent")]);
    let run = run(&env, &fake, &["--max-cost", "1", "hello"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(fake.requests().is_empty());
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(
        said.contains("price of openai:test-model is unknown") && said.contains("\"models\""),
        "{said}"
    );
}

#[test]
fn two_concurrent_runs_under_a_daily_cap_never_spend_more_than_it_together() {
    let env = TestEnv::new().unwrap();
    // $4 a day; every call's worst case is ~$4.25 unclamped, so each is clamped to what is left.
    priced_config(&env, json!({"day": {"usd": 4.0}}));
    let script = || {
        (0..6)
            .map(|i| reading(&format!("c{i}"), 2000, 1100))
            .chain([Turn::text("done")])
            .collect::<Vec<_>>()
    };
    let (fake_a, fake_b) = (FakeProvider::start(script()), FakeProvider::start(script()));
    let (a, b) = (
        spawn(&env, &fake_a, &["look around"], &[]),
        spawn(&env, &fake_b, &["look around"], &[]),
    );
    let (a, b) = (finish(a, None), finish(b, None));
    let spent = |r: &Run| r.result()["usage"]["cost"].as_f64().unwrap();
    let total = spent(&a) + spent(&b);
    assert!(total <= 4.0 + 1e-9, "spent {total} together");
    assert!(
        total >= 2.0,
        "the cap was used, not refused at once: {total}"
    );
    for r in [&a, &b] {
        assert_eq!(r.code, 5, "{}", r.stderr);
        assert_eq!(r.result()["status"], "budget_exhausted");
    }
}

#[test]
fn a_script_driving_the_run_is_asked_whether_to_raise_the_cap_and_raising_it_goes_on() {
    use std::io::Write;
    let env = TestEnv::new().unwrap();
    priced_config(&env, json!({}));
    // Call 1 ($0.23 in + $3.00 out) fits $4 only shortened; call 2 does not fit what is left.
    let fake = FakeProvider::start(vec![
        reading("c1", 2300, 3000),
        Turn::text("Looked around."),
    ]);
    let (mut child, mut out) = spawn_stream(&env, &fake, "openai:test-model", &["--max-cost", "4"]);
    let mut stdin = child.stdin.take().unwrap();
    let line = json!({"type": "user_message", "text": "look around"});
    writeln!(stdin, "{line}").unwrap();
    let asked = out
        .wait_for(std::time::Duration::from_secs(30), |l| {
            l.contains("\"type\":\"budget_requested\"")
        })
        .expect("the budget question");
    let asked: Value = serde_json::from_str(&asked).unwrap();
    assert_eq!(asked["scope"], "run");
    assert_eq!(asked["raise_to_usd"], 8.0);
    assert!(
        asked["message"]
            .as_str()
            .unwrap()
            .contains("run budget is exhausted")
    );
    assert_eq!(fake.requests().len(), 1, "the call waits for the answer");
    let answer = json!({"type": "budget_choice", "request_id": asked["request_id"], "raise": true});
    writeln!(stdin, "{answer}").unwrap();
    drop(stdin);
    let run = finish(child, Some(out));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.result()["status"], "answered");
    assert_eq!(run.result()["response"], "Looked around.");
    assert_eq!(fake.requests().len(), 2);
    let clamped = max_tokens(&fake.requests()[0].body).expect("the first call was shortened");
    assert!((1024..4000).contains(&clamped), "{clamped}");
}
