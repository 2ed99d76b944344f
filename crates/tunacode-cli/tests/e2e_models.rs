//! End-to-end: the model registry, its refresh, and pricing of calls the provider does not price.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{Read, Write};
use std::net::TcpListener;

use common::*;
use serde_json::Value;
use tunacode_testkit::{FakeProvider, Reply, ScriptedUsage, TestEnv, Turn};

/// Serves one GET with `body` on 127.0.0.1 and returns the catalogue URL.
fn serve_once(body: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/api.json", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        if let Ok((mut stream, _)) = listener.accept() {
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    url
}

fn models(env: &TestEnv, args: &[&str], envs: &[(&str, &str)]) -> (i32, Vec<Value>, String) {
    let mut cmd = env.command(&bin());
    cmd.arg("models").args(args).arg("--json");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let list: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap_or_default();
    (
        out.status.code().unwrap_or(-1),
        list,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn lists_bundled_models_by_provider() {
    let env = TestEnv::new().unwrap();
    let (code, list, _) = models(&env, &["--provider", "anthropic"], &[]);
    assert_eq!(code, 0);
    assert!(list.len() >= 3);
    assert!(list.iter().all(|m| m["provider"] == "anthropic"));
    let sonnet = list
        .iter()
        .find(|m| m["id"] == "claude-sonnet-4-5")
        .unwrap();
    assert_eq!(sonnet["context_window"], 200000);
    assert_eq!(sonnet["input"], 3.0);
    let text = env
        .command(&bin())
        .args(["models", "--provider", "gemini"])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&text.stdout);
    assert!(
        table.starts_with("MODEL") && table.contains("google:gemini-2.5-pro"),
        "{table}"
    );
}

#[test]
fn refresh_updates_the_catalogue_and_a_failed_refresh_keeps_the_table() {
    let env = TestEnv::new().unwrap();
    let url = serve_once(
        r#"{"openai": {"id": "openai", "models": {"gpt-9": {"id": "gpt-9", "reasoning": true,
            "limit": {"context": 2000000, "output": 200000}, "cost": {"input": 9, "output": 90}}}}}"#,
    );
    let (code, list, err) = models(
        &env,
        &["--refresh", "--provider", "openai"],
        &[("TUNACODE_MODELS_URL", &url)],
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("refreshed 1 models"), "{err}");
    let gpt9 = list
        .iter()
        .find(|m| m["id"] == "gpt-9")
        .expect("refreshed model listed");
    assert_eq!(gpt9["context_window"], 2000000);
    assert!(
        list.iter().any(|m| m["id"] == "gpt-4.1"),
        "bundled models kept"
    );
    // The cache persists: a plain listing still knows gpt-9.
    let (_, again, _) = models(&env, &["--provider", "openai"], &[]);
    assert!(again.iter().any(|m| m["id"] == "gpt-9"));
    // No network: a warning, and the table stays as it was.
    let (code, list, err) = models(
        &env,
        &["--refresh", "--provider", "openai"],
        &[("TUNACODE_MODELS_URL", "http://127.0.0.1:9/api.json")],
    );
    assert_eq!(code, 0);
    assert!(
        err.contains("could not refresh") && err.contains("keeping the current table"),
        "{err}"
    );
    assert!(list.iter().any(|m| m["id"] == "gpt-9"));
}

#[test]
fn calls_are_priced_from_the_registry_when_the_provider_gives_no_cost() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![Turn::Reply(Reply {
        text: Some("ok".into()),
        usage: Some(ScriptedUsage {
            prompt_tokens: 1000,
            completion_tokens: 500,
            cached_tokens: 0,
        }),
        ..Reply::default()
    })]);
    let out = env
        .command(&bin())
        .args([
            "run",
            "--model",
            "openai:gpt-4.1",
            "--base-url",
            &fake.base_url(),
            "--output",
            "json",
            "hi",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cost = result["usage"]["cost"].as_f64().unwrap();
    assert!(
        (cost - (1000.0 * 2.0 + 500.0 * 8.0) / 1e6).abs() < 1e-12,
        "{cost}"
    );
    let session = env.only_session();
    assert!((session["session_total_usage"]["cost"].as_f64().unwrap() - cost).abs() < 1e-12);
}
