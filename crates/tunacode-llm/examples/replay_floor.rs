//! The floor of a scripted run for `bench/run.sh`: sends the request bodies a `tunacode run` sent
//! (recorded by the fake provider's `--print-requests`) to the same fake provider, one after the
//! other on one pooled connection, reading each streamed answer to its end; with a commands file,
//! after each answer but the last it also runs that turn's command (one per line, split on spaces,
//! run in DIR), the work each tool call did. What the run costs above this is TunaCode's own work.
//!
//! Usage: `replay_floor REQUESTS.jsonl BASE_URL [COMMANDS DIR]` (the base URL without `/v1`).

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (requests, base) = (&args[1], args[2].trim_end_matches('/'));
    let bodies: Vec<(String, Vec<u8>)> = std::fs::read_to_string(requests)
        .expect("the requests file")
        .lines()
        .map(|line| {
            let request: serde_json::Value = serde_json::from_str(line).expect("a request");
            let path = request["path"].as_str().expect("a path").to_string();
            (path, serde_json::to_vec(&request["body"]).expect("a body"))
        })
        .collect();
    let _ = rustls::crypto::ring::default_provider().install_default();
    let commands: Vec<Vec<String>> = match args.get(3) {
        Some(file) => std::fs::read_to_string(file)
            .expect("the commands file")
            .lines()
            .map(|l| l.split(' ').map(str::to_string).collect())
            .collect(),
        None => Vec::new(),
    };
    let dir = args.get(4).cloned().unwrap_or_else(|| ".".into());
    let client = reqwest::Client::builder()
        .tcp_nodelay(true)
        .tls_certs_only(std::iter::empty())
        .build()
        .expect("a client");
    let start = Instant::now();
    let mut received = 0;
    for (turn, (path, body)) in bodies.iter().enumerate() {
        let response = client
            .post(format!("{base}{path}"))
            .header("content-type", "application/json")
            .body(body.clone())
            .send()
            .await
            .expect("an answer");
        received += response.bytes().await.expect("the whole answer").len();
        if let Some(command) = commands.get(turn % commands.len().max(1))
            && turn + 1 < bodies.len()
        {
            let status = tokio::process::Command::new(&command[0])
                .args(&command[1..])
                .current_dir(&dir)
                .stdout(std::process::Stdio::null())
                .status()
                .await
                .expect("a command");
            assert!(status.success(), "{command:?}");
        }
    }
    println!(
        "replayed {} requests ({} KB sent, {} KB received), {} commands, in {:.1?}",
        bodies.len(),
        bodies.iter().map(|(_, b)| b.len()).sum::<usize>() / 1024,
        received / 1024,
        if commands.is_empty() {
            0
        } else {
            bodies.len() - 1
        },
        start.elapsed()
    );
}
