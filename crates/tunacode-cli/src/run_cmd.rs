//! `tunacode run`: a thin front end over the core's runtime. It resolves settings through the core,
//! starts a runtime, submits the task (or, with `--input-format stream-json`, every operation read from
//! stdin), renders the runtime's events, answers questions at the terminal when there is one, turns
//! Ctrl+C / SIGTERM into a shutdown through the engine's cancellation path, and exits with the last
//! request's code.

use std::io::{IsTerminal, Read};

use anyhow::Context;
use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::sync::mpsc;
use tunacode_core::{
    LaunchOptions, Op, Paths, Runtime, RuntimeEvent, RuntimeHandle, SessionChoice, SettingsFlags,
};

use crate::approval_prompt::{TtyApprover, answer_at_tty};
use crate::args::{InputFormat, OutputFormat, RunArgs};
use crate::input::feed_stdin;
use crate::output::{EXIT_INTERRUPTED, EXIT_OK, Renderer, UsageError};

pub use crate::output::EXIT_ERROR;

/// Runs `tunacode run`; returns the exit code.
pub async fn run(args: RunArgs) -> anyhow::Result<u8> {
    let streaming_input = args.input_format == InputFormat::StreamJson;
    if streaming_input && args.output != OutputFormat::StreamJson {
        return Err(
            UsageError("--input-format stream-json needs --output stream-json".into()).into(),
        );
    }
    let prompt = match streaming_input {
        true if args.prompt.is_empty() => None,
        true => Some(args.prompt.join(" ")),
        false => Some(read_prompt(&args.prompt)?),
    };
    let paths = Paths::from_env()?;
    crate::logging::init_private(&paths).await;
    let mut renderer = Renderer::new(args.output, std::io::stdout(), std::io::stderr());
    // With --yes a terminal still answers what --yes never covers: dangerous commands, runs outside
    // the sandbox (and the iteration-limit choice).
    let tty = !streaming_input && TtyApprover::available();
    // Handlers are installed before anything runs, so an early Ctrl+C is never the default "die".
    let signals = Signals::install()?;
    let mut options = LaunchOptions::new(paths, flags(&args));
    options.session = match (&args.session, args.continue_last) {
        (Some(id), _) => SessionChoice::Resume(id.clone()),
        (None, true) => SessionChoice::ContinueLatest,
        (None, false) => SessionChoice::New,
    };
    options.interactive = streaming_input || tty;
    options.yolo = args.yes;
    options.plan_mode = args.plan;
    if let Some(note) = options.headless_note() {
        renderer.note(&format!("note: {note}"));
    }
    let (runtime, events) = Runtime::launch(options).await?;
    if let Some(prompt) = prompt {
        let images = args
            .image
            .iter()
            .map(|path| tunacode_protocol::runtime::ImageInput::File {
                path: std::path::absolute(path).unwrap_or_else(|_| path.clone()),
            })
            .collect();
        runtime.submit(Op::user_message_with_images(prompt, images));
    } else if !args.image.is_empty() {
        return Err(UsageError("--image goes with a task given on the command line".into()).into());
    }
    let (input_errors_tx, input_errors) = mpsc::unbounded_channel();
    if streaming_input {
        tokio::spawn(feed_stdin(runtime.clone(), input_errors_tx));
    } else {
        drop(input_errors_tx);
        runtime.submit(Op::Finish);
    }
    let signals = tokio::spawn(signals.watch(runtime.clone()));
    let code = drive(&runtime, events, input_errors, &mut renderer, tty).await;
    let interrupted = signals.is_finished();
    signals.abort();
    Ok(if interrupted { EXIT_INTERRUPTED } else { code })
}

fn flags(args: &RunArgs) -> SettingsFlags {
    SettingsFlags {
        model: args.provider.model.clone(),
        base_url: args.provider.base_url.clone(),
        wire_api: args.provider.wire_api.clone(),
        cwd: args.cwd.clone(),
        max_iterations: args.max_iterations,
        timeout: args.timeout,
        sandbox: args.sandbox.clone(),
        max_cost: args.max_cost,
    }
}

/// Renders events until the runtime stops; returns the last request's exit code.
async fn drive(
    runtime: &RuntimeHandle,
    mut events: mpsc::UnboundedReceiver<RuntimeEvent>,
    mut input_errors: mpsc::UnboundedReceiver<String>,
    renderer: &mut Renderer<std::io::Stdout, std::io::Stderr>,
    tty: bool,
) -> u8 {
    let mut code = EXIT_OK;
    loop {
        // Biased: an input error is reported before the runtime's reaction to later lines.
        let event = tokio::select! {
            biased;
            Some(message) = input_errors.recv() => {
                renderer.input_error(&message);
                continue;
            }
            event = events.recv() => event,
        };
        match event {
            None | Some(RuntimeEvent::Stopped) => break,
            Some(RuntimeEvent::RequestEnded(end)) => code = renderer.finish(&end),
            Some(RuntimeEvent::Question(question)) if tty => {
                renderer.runtime_event(&RuntimeEvent::Question(question.clone()));
                let runtime = runtime.clone();
                tokio::spawn(async move {
                    let answer = answer_at_tty(&question).await;
                    runtime.submit(Op::Answer {
                        id: question.id,
                        answer,
                    });
                });
            }
            Some(event) => renderer.runtime_event(&event),
        }
    }
    code
}

/// The prompt from the arguments, or from stdin for `-` or when stdin is piped.
fn read_prompt(words: &[String]) -> anyhow::Result<String> {
    let from_stdin = words == ["-"] || (words.is_empty() && !std::io::stdin().is_terminal());
    let prompt = if from_stdin {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read the prompt from stdin")?;
        text
    } else {
        words.join(" ")
    };
    if prompt.trim().is_empty() {
        return Err(UsageError("no task given: tunacode run \"what to do\"".into()).into());
    }
    Ok(prompt)
}

/// Ctrl+C and SIGTERM, installed up front.
struct Signals {
    interrupt: Signal,
    terminate: Signal,
}

impl Signals {
    fn install() -> anyhow::Result<Self> {
        Ok(Signals {
            interrupt: signal(SignalKind::interrupt()).context("cannot watch Ctrl+C")?,
            terminate: signal(SignalKind::terminate()).context("cannot watch SIGTERM")?,
        })
    }

    /// Ctrl+C or SIGTERM shuts the runtime down through the engine (the running request is
    /// interrupted and saved); a second Ctrl+C exits at once. Returns after the first signal.
    async fn watch(mut self, runtime: RuntimeHandle) {
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
        }
        runtime.submit(Op::Shutdown);
        tokio::spawn(async move {
            if self.interrupt.recv().await.is_some() {
                std::process::exit(i32::from(EXIT_INTERRUPTED));
            }
        });
    }
}
