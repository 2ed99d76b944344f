//! End-to-end: images in the prompt reach each wire format as its own image input (`run --image`,
//! `@shot.png`, stream-json's inline images), stay in the session in pydantic-ai's shape, and a model
//! the catalogue says takes no images refuses them before anything is sent.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use common::*;
use serde_json::{Value, json};
use tunacode_testkit::{FakeOptions, FakeProvider, TestEnv, Turn};

/// A 1×1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
    0x42, 0x60, 0x82,
];

fn b64() -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(PNG)
}

/// Where each wire carries an image of the user's: the part holding the base64 data.
fn image_part(wire: &str, body: &Value) -> Value {
    let data = b64();
    let found = match wire {
        "openai-chat" => body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
            .find(|p| p["type"] == "image_url"),
        "openai-responses" => body["input"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
            .find(|p| p["type"] == "input_image"),
        "anthropic" => body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
            .find(|p| p["type"] == "image"),
        _ => body["contents"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["parts"].as_array().cloned().unwrap_or_default())
            .find(|p| p.get("inlineData").is_some()),
    };
    let part = found.unwrap_or_else(|| panic!("{wire}: no image part in {body}"));
    assert!(part.to_string().contains(&data), "{wire}: {part}");
    part
}

#[test]
fn an_image_given_with_the_task_reaches_every_wire_as_its_image_input() {
    for (wire, format) in wire_formats() {
        let env = TestEnv::new().unwrap();
        std::fs::write(env.workspace().join("shot.png"), PNG).unwrap();
        let fake = FakeProvider::start_with(
            Arc::clone(&format),
            vec![Turn::text("A red dot.")],
            FakeOptions::default(),
        );
        let run = run_on_wire(&env, &fake, wire, &["--image", "shot.png", "what is this?"]);
        assert_eq!(run.code, 0, "{wire}: {}", run.stderr);
        image_part(wire, &fake.requests()[0].body);
        // Kept in the session as pydantic-ai's BinaryContent, after the text.
        let session = env.only_session();
        let prompt = &session["messages"][0]["parts"][0]["content"];
        assert_eq!(prompt[0], "what is this?", "{wire}: {prompt}");
        assert_eq!(prompt[1]["kind"], "binary");
        assert_eq!(prompt[1]["media_type"], "image/png");
    }
}

#[test]
fn an_image_mentioned_with_at_is_attached_as_an_image() {
    let env = TestEnv::new().unwrap();
    std::fs::write(env.workspace().join("shot.png"), PNG).unwrap();
    let fake = FakeProvider::start(vec![Turn::text("A dot.")]);
    let run = run(&env, &fake, &["describe @shot.png"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let body = &fake.requests()[0].body;
    image_part("openai-chat", body);
    assert!(!body.to_string().contains("<file path=\"shot.png\">"));
}

#[test]
fn a_model_that_takes_no_images_refuses_them_before_anything_is_sent() {
    let env = TestEnv::new().unwrap();
    std::fs::write(env.workspace().join("shot.png"), PNG).unwrap();
    let fake = FakeProvider::start(vec![Turn::text("never")]);
    write_local_config(
        &env,
        &fake,
        json!({"models": {"local:test-model": {"vision": false}}}),
    );
    let out = env
        .command(&bin())
        .args([
            "run",
            "--output",
            "stream-json",
            "--image",
            "shot.png",
            "what is this?",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stdout.contains("\"kind\":\"images_unsupported\""),
        "{stdout}"
    );
    assert!(stdout.contains("does not take images"), "{stdout}");
    assert!(fake.requests().is_empty());
    // Not an image at all: a clear error, nothing sent.
    std::fs::write(env.workspace().join("fake.png"), "not a picture").unwrap();
    let out = env
        .command(&bin())
        .args(["run", "--image", "fake.png", "what is this?"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not a PNG, JPEG, GIF or WebP image"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(fake.requests().is_empty());
}

#[test]
fn stream_json_sends_inline_images_and_claude_image_blocks() {
    let env = TestEnv::new().unwrap();
    let fake = FakeProvider::start(vec![Turn::text("one"), Turn::text("two")]);
    let run = stream_session(
        &env,
        &fake,
        &[
            json!({"type": "user_message", "text": "first",
                   "images": [{"media_type": "image/png", "data": b64()}]}),
            json!({"type": "user", "message": {"role": "user", "content": [
                {"type": "text", "text": "second"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64()}}]}}),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let requests = fake.requests();
    image_part("openai-chat", &requests[0].body);
    let second = &requests[1].body;
    let last = second["messages"].as_array().unwrap().last().unwrap();
    assert!(last.to_string().contains("image_url"), "{last}");
}
