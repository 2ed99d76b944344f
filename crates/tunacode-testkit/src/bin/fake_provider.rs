//! `tunacode-fake-provider`: serves a JSON script of [`Turn`]s on 127.0.0.1 until stdin reaches EOF
//! or the process gets SIGTERM/SIGINT.

use std::fs;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use tunacode_testkit::{
    AnthropicMessages, FakeOptions, FakeProvider, Gemini, OpenAiChat, OpenAiResponses,
    RecordedRequest, TestkitError, Turn, WireFormat,
};

const USAGE: &str = "usage: tunacode-fake-provider --script FILE.json [--port N] [--cycle] \
[--print-requests FILE] [--no-stdin] [--format WIRE] [--unchecked]

Serves the JSON array of turns in FILE.json on 127.0.0.1, prints the base URL
(http://127.0.0.1:PORT/v1) on one stdout line, and runs until stdin reaches EOF
(unless --no-stdin) or SIGTERM/SIGINT. --print-requests writes the recorded
requests as JSON lines on shutdown. WIRE is the wire format served: openai-chat
(the default), openai-responses, anthropic or gemini. --unchecked (for benchmarks)
answers without checking requests or keeping them.";

struct Args {
    script: PathBuf,
    port: u16,
    cycle: bool,
    print_requests: Option<PathBuf>,
    watch_stdin: bool,
    format: Arc<dyn WireFormat>,
    unchecked: bool,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut script = None;
    let mut port = 0;
    let mut cycle = false;
    let mut print_requests = None;
    let mut watch_stdin = true;
    let mut unchecked = false;
    let mut format: Arc<dyn WireFormat> = Arc::new(OpenAiChat);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--script" => script = Some(PathBuf::from(value("--script")?)),
            "--port" => {
                let v = value("--port")?;
                port = v.parse().map_err(|_| format!("invalid port: {v}"))?;
            }
            "--cycle" => cycle = true,
            "--print-requests" => print_requests = Some(PathBuf::from(value("--print-requests")?)),
            "--no-stdin" => watch_stdin = false,
            "--unchecked" => unchecked = true,
            "--format" => match value("--format")?.as_str() {
                "openai-chat" => format = Arc::new(OpenAiChat),
                "openai-responses" => format = Arc::new(OpenAiResponses),
                "anthropic" => format = Arc::new(AnthropicMessages),
                "gemini" => format = Arc::new(Gemini),
                other => return Err(format!("unknown format: {other}")),
            },
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unexpected argument: {other}")),
        }
    }
    Ok(Args {
        script: script.ok_or("--script is required")?,
        port,
        cycle,
        print_requests,
        watch_stdin,
        format,
        unchecked,
    })
}

fn load_script(path: &PathBuf) -> Result<Vec<Turn>, TestkitError> {
    Ok(serde_json::from_str(&fs::read_to_string(path)?)?)
}

/// Blocks until stdin reaches EOF (if watched), SIGTERM or SIGINT.
fn wait_for_shutdown(watch_stdin: bool) -> Result<(), TestkitError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let stdin_eof = async {
            if !watch_stdin {
                return futures::future::pending().await;
            }
            // std's blocking stdin on a detached thread; the process exits without joining it.
            let (tx, rx) = tokio::sync::oneshot::channel::<()>();
            let spawned = std::thread::Builder::new()
                .name("stdin-watch".into())
                .spawn(move || {
                    let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
                    let _ = tx.send(());
                });
            if spawned.is_err() || rx.await.is_err() {
                futures::future::pending::<()>().await;
            }
        };
        let interrupt = async {
            if tokio::signal::ctrl_c().await.is_err() {
                futures::future::pending::<()>().await;
            }
        };
        let terminate = async {
            #[cfg(unix)]
            {
                use tokio::signal::unix::{SignalKind, signal};
                if let Ok(mut sigterm) = signal(SignalKind::terminate()) {
                    sigterm.recv().await;
                    return;
                }
            }
            futures::future::pending::<()>().await;
        };
        tokio::select! {
            () = stdin_eof => {}
            () = interrupt => {}
            () = terminate => {}
        }
    });
    Ok(())
}

fn write_requests(path: &PathBuf, requests: &[RecordedRequest]) -> Result<(), TestkitError> {
    let mut out = String::new();
    for r in requests {
        let line = serde_json::json!({
            "method": r.method,
            "path": r.path,
            "connection_id": r.connection_id,
            "body": r.body,
        });
        out.push_str(&line.to_string());
        out.push('\n');
    }
    fs::write(path, out)?;
    Ok(())
}

#[allow(clippy::print_stdout, clippy::print_stderr)]
fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("tunacode-fake-provider: {message}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let script = match load_script(&args.script) {
        Ok(script) => script,
        Err(e) => {
            eprintln!(
                "tunacode-fake-provider: script {}: {e}",
                args.script.display()
            );
            return ExitCode::FAILURE;
        }
    };
    let options = FakeOptions {
        cycle: args.cycle,
        port: args.port,
        summary: None,
        served_models: Vec::new(),
        routes: Vec::new(),
        gather: None,
        unchecked: args.unchecked,
    };
    let provider = match FakeProvider::try_start_with(Arc::clone(&args.format), script, options) {
        Ok(provider) => provider,
        Err(e) => {
            eprintln!("tunacode-fake-provider: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("{}", provider.base_url());
    let _ = std::io::stdout().flush();

    let waited = wait_for_shutdown(args.watch_stdin);
    let requests = provider.requests();
    drop(provider);
    if let Err(e) = waited {
        eprintln!("tunacode-fake-provider: {e}");
        return ExitCode::FAILURE;
    }
    if let Some(path) = &args.print_requests
        && let Err(e) = write_requests(path, &requests)
    {
        eprintln!("tunacode-fake-provider: writing {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
