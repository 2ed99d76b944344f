//! In-process TUI measurements for `bench/run.sh`: markdown rendering (whole and streamed), fuzzy file
//! search over 50,000 paths, key-to-frame latency while an answer streams fast (event handling plus
//! drawing a 120×40 frame; terminal I/O excluded — `bench/run.sh` measures that under tmux), typing
//! after a 1 MB paste, and opening a session of ~50,000 transcript lines.

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tunacode_core::SettingsFlags;
use tunacode_llm::models::ModelRegistry;
use tunacode_protocol::AgentEvent;
use tunacode_tui::app::state::App;
use tunacode_tui::complete::FileIndex;
use tunacode_tui::render::{StreamingMarkdown, render_markdown};
use tunacode_tui::{Theme, TuiConfig};

const DOC: &str = "## Section\n\nSome *emphasis*, `code` and a [link](https://example.com).\n\n- item one\n- item two\n  - nested\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```rust\nfn main() {\n    println!(\"hello\");\n}\n```\n\n";

fn percentile(mut v: Vec<Duration>, p: f64) -> Duration {
    v.sort();
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

#[tokio::main]
async fn main() {
    let theme = Theme::dark();
    // 1. Markdown.
    let mut doc = String::new();
    while doc.lines().count() < 2000 {
        doc.push_str(DOC);
    }
    let _ = render_markdown(DOC, 100, &theme);
    let start = Instant::now();
    let lines = render_markdown(&doc, 100, &theme);
    let whole = start.elapsed();
    let mut stream = StreamingMarkdown::new();
    let mut frames = 0u32;
    let start = Instant::now();
    for chunk in doc.as_bytes().chunks(64) {
        stream.push(std::str::from_utf8(chunk).unwrap_or_default());
        let _ = stream.lines(100, &theme);
        frames += 1;
    }
    let streamed = start.elapsed();
    println!(
        "markdown: 2000-line document -> {} lines rendered whole in {whole:.2?}; streamed in {frames} frames, {:.1?}/frame",
        lines.len(),
        streamed / frames
    );

    // 2. Fuzzy file completion.
    let index = FileIndex::from_entries((0..50_000).map(|i| {
        format!(
            "crates/module_{}/src/sub_{}/file_{i}_handler.rs",
            i % 97,
            i % 13
        )
    }));
    let mut times = Vec::new();
    for q in [
        "handler",
        "mod5sub3",
        "f123",
        "zzzz",
        "crates/module_12/src/",
    ] {
        let start = Instant::now();
        let _ = index.fuzzy(q, 50);
        times.push(start.elapsed());
    }
    println!(
        "fuzzy @-completion over 50,000 paths: median {:.2?}, max {:.2?}",
        percentile(times.clone(), 0.5),
        percentile(times, 1.0)
    );

    // 3. Key-to-frame while an answer streams.
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("ws");
    std::fs::create_dir_all(&cwd).unwrap();
    let paths = tunacode_core::Paths {
        config_file: dir.path().join("tunacode.json"),
        sessions_dir: dir.path().join("sessions"),
        log_dir: dir.path().join("log"),
        models_cache: dir.path().join("models.json"),
        mcp_approvals: dir.path().join("mcp_approvals.json"),
    };
    let history_dir = paths.sessions_dir.with_file_name("history");
    let flags = SettingsFlags {
        model: Some("openai:gpt-4.1".into()),
        base_url: Some("http://127.0.0.1:9/v1".into()),
        cwd: Some(cwd.clone()),
        ..SettingsFlags::default()
    };
    let config = TuiConfig {
        cwd: cwd.clone(),
        launch: tunacode_core::LaunchOptions::new(paths, flags),
        catalogue: tunacode_core::setup::catalogue_of(&ModelRegistry::bundled()),
        history_dir,
        project: "bench".into(),
        theme: "dark".into(),
        show_thoughts: false,
    };
    let (mut app, _ch) = tunacode_tui::app::build_app(config).await.unwrap();
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    let key = Event::Key(KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE));
    let mut latencies = Vec::new();
    let mut draws = Vec::new();
    let mut tokens = 0usize;
    for round in 0..400 {
        // Five deltas (~40 chars each) arrive between two keypresses: a fast stream.
        for _ in 0..5 {
            let text = if round % 7 == 0 {
                "\n\n```rust\nlet x = 1;\n```\n\n".to_string()
            } else {
                format!("word{round} and more streamed text, ")
            };
            tokens += text.len() / 4;
            app.on_agent_event(AgentEvent::TextDelta { text });
        }
        let start = Instant::now();
        app.on_terminal_event(key.clone());
        terminal.draw(|f| app.draw(f)).unwrap();
        latencies.push(start.elapsed());
        let start = Instant::now();
        terminal.draw(|f| app.draw(f)).unwrap();
        draws.push(start.elapsed());
    }
    println!(
        "key-to-frame while streaming ({tokens} tokens streamed): p50 {:.2?}, p99 {:.2?}, max {:.2?}; a frame alone: p50 {:.2?}, p99 {:.2?}",
        percentile(latencies.clone(), 0.5),
        percentile(latencies.clone(), 0.99),
        percentile(latencies, 1.0),
        percentile(draws.clone(), 0.5),
        percentile(draws, 0.99)
    );

    paste_then_type(&mut app, &mut terminal);
    big_session(&mut app, &mut terminal);
}

/// A resumed session of 1,300 exchanges (~50,000 transcript lines, most of them code): the first
/// frame, Home to the oldest line, and PgUp from there.
fn big_session(app: &mut App, terminal: &mut Terminal<TestBackend>) {
    use tunacode_protocol::{Message, Part};
    let code: String = (0..27)
        .map(|l| {
            format!("    let entry_{l} = store.entries.get(key).cloned().unwrap_or_default();\n")
        })
        .collect();
    let prose =
        "The handler reads the key from the request, checks the stored version, merges the \
                 changed fields and writes the entry back; it fails when the header is missing. "
            .repeat(2);
    let mut messages = Vec::new();
    for i in 0..1_300 {
        messages.push(Message::user(format!("Explain handler {i}.")));
        let text = format!("{prose}\n\n```rust\n{code}```\n\nThat keeps writes ordered ({i}).");
        messages.push(Message::response(vec![Part::text(text)]));
    }
    app.on_terminal_event(Event::Key(KeyEvent::new(
        KeyCode::Char('u'),
        KeyModifiers::CONTROL,
    )));
    app.view.transcript.clear();
    let start = Instant::now();
    app.replay(&messages);
    terminal.draw(|f| app.draw(f)).unwrap();
    let first = start.elapsed();
    let start = Instant::now();
    app.on_terminal_event(Event::Key(KeyEvent::new(KeyCode::Home, KeyModifiers::NONE)));
    terminal.draw(|f| app.draw(f)).unwrap();
    let home = start.elapsed();
    // At the top, the lines below the view plus the view: every line of the transcript.
    let rows = app.view.transcript.scroll_back + usize::from(app.view.transcript.viewport_height);
    let mut pages = Vec::new();
    for _ in 0..40 {
        let start = Instant::now();
        app.on_terminal_event(Event::Key(KeyEvent::new(
            KeyCode::PageDown,
            KeyModifiers::NONE,
        )));
        terminal.draw(|f| app.draw(f)).unwrap();
        pages.push(start.elapsed());
    }
    println!(
        "a resumed session of {} messages ({rows} transcript lines): replayed and first frame in {first:.2?}; \
         Home in {home:.2?}; PgDn from there p50 {:.2?}, max {:.2?}",
        messages.len(),
        percentile(pages.clone(), 0.5),
        percentile(pages, 1.0)
    );
}

/// The median key-to-frame of 200 keys typed into the input.
fn typing(app: &mut App, terminal: &mut Terminal<TestBackend>) -> Duration {
    let key = Event::Key(KeyEvent::new(KeyCode::Char('y'), KeyModifiers::NONE));
    let mut times = Vec::new();
    for _ in 0..200 {
        let start = Instant::now();
        app.on_terminal_event(key.clone());
        terminal.draw(|f| app.draw(f)).unwrap();
        times.push(start.elapsed());
    }
    percentile(times, 0.5)
}

/// Key-to-frame typing in an idle input, then after a 1 MB paste (what a key costs with that much
/// text in the input).
fn paste_then_type(app: &mut App, terminal: &mut Terminal<TestBackend>) {
    let ctrl_u = Event::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
    app.on_terminal_event(ctrl_u);
    let idle = typing(app, terminal);
    let line = "let value = compute(alpha, beta, gamma); // a pasted line of code, about 80\n";
    let pasted = line.repeat(1024 * 1024 / line.len());
    let start = Instant::now();
    app.on_terminal_event(Event::Paste(pasted.clone()));
    terminal.draw(|f| app.draw(f)).unwrap();
    let settle = start.elapsed();
    let after = typing(app, terminal);
    let key = Event::Key(KeyEvent::new(KeyCode::Char('z'), KeyModifiers::NONE));
    let start = Instant::now();
    for _ in 0..20 {
        app.on_terminal_event(key.clone());
    }
    let handling = start.elapsed() / 20;
    let start = Instant::now();
    for _ in 0..20 {
        terminal.draw(|f| app.draw(f)).unwrap();
    }
    let drawing = start.elapsed() / 20;
    println!("  of which: handling a key {handling:.2?}, drawing a frame {drawing:.2?}");
    println!(
        "key-to-frame typing: idle p50 {idle:.2?}; after a {} KB paste ({} lines, settled in {settle:.2?}) p50 {after:.2?}",
        pasted.len() / 1024,
        pasted.lines().count()
    );
}
