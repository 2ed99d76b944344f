//! The application: state, input, actions, drawing, and the event loop that ties the terminal, the
//! engine's events and questions, and background work together. Drawing is event-driven: nothing is
//! drawn while nothing happens; streamed output is drawn at most once per [`FRAME`]; input is drawn at
//! once.

mod actions;
mod agent_events;
pub mod cell;
mod checks;
mod clipboard_image;
pub mod commands;
pub mod dialogs;
mod events;
mod external_editor;
mod input;
pub mod input_state;
mod mcp;
pub mod overlays;
mod paste;
pub mod pasted;
pub mod picker;
mod rewind;
pub mod running_agents;
pub mod runtime_mirror;
mod sessions;
pub mod state;
pub mod status;
mod status_place;
mod subagents;
pub mod transcript;
pub mod transcript_view;
mod view;
pub mod view_state;

#[cfg(test)]
mod behaviour_tests;
#[cfg(test)]
mod input_tests;
#[cfg(test)]
mod polish_tests;
#[cfg(test)]
mod subagents_tests;
#[cfg(test)]
mod transcript_view_tests;
#[cfg(test)]
mod view_tests;

use std::collections::BTreeMap;
use std::io::Write;
use std::time::{Duration, Instant};

use crossterm::event::EventStream;
use futures::StreamExt;
use tokio::sync::mpsc;
use tunacode_core::{Op, Runtime, RuntimeEvent};

use crate::app::input_state::InputState;
use crate::app::overlays::Overlays;
use crate::app::runtime_mirror::RuntimeMirror;
use crate::app::state::{App, AppMsg, Screen};
use crate::app::status::StatusState;
use crate::app::view_state::ViewState;
use crate::complete::{InputHistory, SharedFileIndex};
use crate::config::TuiConfig;
use crate::error::TuiError;
use crate::setup::SetupChoice;
use crate::theme::Theme;

pub use input_state::new_editor;

/// Shortest time between two frames.
pub const FRAME: Duration = Duration::from_millis(16);
/// Spinner speed while the agent works.
const SPINNER_TICK: Duration = Duration::from_millis(100);

/// Runs the UI until the user quits. Returns the id of the session left, when it is saved (what to
/// resume).
pub async fn run(config: TuiConfig) -> Result<Option<String>, TuiError> {
    let mut terminal = ratatui::try_init()?;
    let enhanced = crossterm::terminal::supports_keyboard_enhancement().unwrap_or(false);
    external_editor::enter_modes(enhanced)?;
    let result = event_loop(&mut terminal, config).await;
    external_editor::leave_modes(enhanced);
    ratatui::restore();
    result
}

/// Builds the app for `config` and starts the runtime; the setup screen first when the runtime asks
/// for it (no model or key configured, or `--setup`). Other settings errors (a malformed config, a
/// session that does not exist) are errors.
pub async fn build_app(config: TuiConfig) -> Result<(App, Channels), TuiError> {
    let (msg_tx, msg_rx) = mpsc::unbounded_channel();
    let theme = Theme::named(&config.theme);
    let (history, branch) = read_start_files(&config).await?;
    let mut app = App {
        input: InputState {
            editor: new_editor(&theme),
            popup: None,
            history,
            files: SharedFileIndex::spawn(config.cwd.clone()),
            quit_armed: None,
            hint: None,
            images: Vec::new(),
            pasted: Default::default(),
        },
        view: ViewState {
            theme,
            transcript: Default::default(),
            status: StatusState::new("", "", &config.cwd, branch),
            show_thoughts: config.show_thoughts,
            expand_tools: false,
            todos: Vec::new(),
            usage_by_model: BTreeMap::new(),
            last_call: Default::default(),
            pending_output: Vec::new(),
        },
        screen: Screen::Chat,
        overlays: Overlays::default(),
        mirror: RuntimeMirror::new(config.catalogue),
        should_quit: false,
        msgs: msg_tx.clone(),
        cwd: config.cwd.clone(),
        pastes_dir: config.history_dir.with_file_name("pastes"),
    };
    let wake = msg_tx.clone();
    app.view.transcript.code.set_waker(Box::new(move || {
        let _ = wake.send(AppMsg::CodeHighlighted);
    }));
    connect(&mut app, config.launch, msg_tx).await?;
    Ok((app, Channels { msg_rx }))
}

/// The files the UI starts with (the input history, the git branch), read off the async threads.
async fn read_start_files(config: &TuiConfig) -> Result<(InputHistory, Option<String>), TuiError> {
    let (dir, project, cwd) = (
        config.history_dir.clone(),
        config.project.clone(),
        config.cwd.clone(),
    );
    tokio::task::spawn_blocking(move || {
        let history = InputHistory::load(&dir, &project);
        (history, crate::app::status::git_branch(&cwd))
    })
    .await
    .map_err(|e| TuiError::Settings(format!("internal error: {e}")))
}

/// Launches the runtime and forwards its events to the loop; the setup screen first when the runtime
/// asks for it, anything else waits in order for the loop.
async fn connect(
    app: &mut App,
    launch: tunacode_core::LaunchOptions,
    msg_tx: mpsc::UnboundedSender<AppMsg>,
) -> Result<(), TuiError> {
    let (runtime, mut events) = Runtime::launch(launch)
        .await
        .map_err(|e| TuiError::Settings(e.to_string()))?;
    app.mirror.handle = Some(runtime);
    match events.recv().await {
        Some(RuntimeEvent::SetupNeeded(info)) => app.open_setup(info.config_file),
        Some(event) => {
            let _ = msg_tx.send(AppMsg::Runtime(Box::new(event)));
        }
        None => return Err(TuiError::Settings("the runtime did not start".into())),
    }
    tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            if msg_tx.send(AppMsg::Runtime(Box::new(event))).is_err() {
                break;
            }
        }
    });
    Ok(())
}

/// A dialog was just drawn: keys that arrived before it (typed ahead, or pushed into the terminal by
/// anything) must not answer it. Throws away what the terminal holds unread and the keys already
/// read but not handled; other events (a resize, the mouse) are handled. Returns whether to redraw.
fn discard_typed_ahead(input: &mut EventStream, app: &mut App) -> bool {
    use futures::FutureExt;
    let _ = nix::sys::termios::tcflush(std::io::stdin(), nix::sys::termios::FlushArg::TCIFLUSH);
    let mut changed = false;
    while let Some(Some(Ok(event))) = input.next().now_or_never() {
        if !matches!(
            event,
            crossterm::event::Event::Key(_) | crossterm::event::Event::Paste(_)
        ) {
            changed |= app.on_terminal_event(event);
        }
    }
    changed
}

/// Writes what the app queued for the terminal itself (the OSC 52 of `/copy`).
fn write_pending_output(app: &mut App) {
    if app.view.pending_output.is_empty() {
        return;
    }
    let mut out = std::io::stdout();
    for seq in app.view.pending_output.drain(..) {
        let _ = out.write_all(seq.as_bytes());
    }
    let _ = out.flush();
}

/// The receiving end the event loop listens on (runtime events and background results).
#[derive(Debug)]
pub struct Channels {
    /// Background results and runtime events.
    pub msg_rx: mpsc::UnboundedReceiver<AppMsg>,
}

async fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    config: TuiConfig,
) -> Result<Option<String>, TuiError> {
    let (mut app, mut ch) = build_app(config).await?;
    // Whatever ends the loop (a quit, a terminal error), the session and the history are saved.
    let result = run_loop(terminal, &mut app, &mut ch).await;
    app.shutdown(&mut ch).await;
    result?;
    Ok(app
        .mirror
        .session_saved
        .then(|| app.view.status.session_id.clone())
        .filter(|id| !id.is_empty()))
}

/// Runs the user's editor on `text` for the open dialog. The key reader is dropped while the editor
/// has the terminal (else it would take the editor's keys); a new one is returned.
async fn edit_for_dialog(
    terminal: &mut ratatui::DefaultTerminal,
    app: &mut App,
    input: EventStream,
    text: String,
) -> Result<EventStream, TuiError> {
    drop(input);
    let edited = external_editor::edit(terminal, text).await?;
    if let Some(dialog) = &mut app.overlays.dialog {
        dialog.take_edit(edited);
    }
    Ok(EventStream::new())
}

/// Draws and handles events until the user quits or the terminal fails.
async fn run_loop(
    terminal: &mut ratatui::DefaultTerminal,
    app: &mut App,
    ch: &mut Channels,
) -> Result<(), TuiError> {
    let mut input = EventStream::new();
    let mut spinner = tokio::time::interval(SPINNER_TICK);
    spinner.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut dirty = true;
    // Input draws at once; only streamed output is held to the frame cap.
    let mut urgent = false;
    let mut last_draw = Instant::now() - FRAME;
    loop {
        if dirty && (urgent || last_draw.elapsed() >= FRAME) {
            urgent = false;
            terminal.draw(|f| app.draw(f))?;
            last_draw = Instant::now();
            // Drawn; only a dialog shown for the first time may leave something to draw again.
            dirty = std::mem::take(&mut app.overlays.dialog_undrawn)
                && app.overlays.dialog.is_some()
                && discard_typed_ahead(&mut input, app);
        }
        write_pending_output(app);
        if app.should_quit {
            break;
        }
        if let Some(text) = app.overlays.pending_edit.take() {
            input = edit_for_dialog(terminal, app, input, text).await?;
            dirty = true;
            continue;
        }
        let next_frame = tokio::time::Instant::from_std(last_draw + FRAME);
        tokio::select! {
            event = input.next() => match event {
                Some(Ok(event)) => {
                    let changed = app.on_terminal_event(event);
                    dirty |= changed;
                    urgent |= changed;
                }
                Some(Err(e)) => return Err(TuiError::Terminal(e)),
                None => break,
            },
            Some(msg) = ch.msg_rx.recv() => {
                app.on_msg(msg);
                // Take whatever else already arrived before drawing once.
                while let Ok(msg) = ch.msg_rx.try_recv() {
                    app.on_msg(msg);
                }
                dirty = true;
            }
            _ = tokio::time::sleep_until(next_frame), if dirty => {}
            _ = spinner.tick(), if app.busy() || app.view.transcript.shell_running() => {
                app.view.status.frame = app.view.status.frame.wrapping_add(1);
                dirty = true;
            }
        }
    }
    Ok(())
}

/// How long quitting waits for the runtime to save the session of a request in flight.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

impl App {
    /// Stops the runtime through the engine's abort path and waits until it saved the session (and
    /// the input history is written).
    pub async fn shutdown(&mut self, ch: &mut Channels) {
        self.stop_runtime(ch).await;
        let history = self.input.history.clone();
        let flushed = tokio::task::spawn_blocking(move || history.flush());
        let _ = tokio::time::timeout(SHUTDOWN_GRACE, flushed).await;
    }

    /// Stops the runtime through the engine's abort path and waits (bounded) until it stopped.
    async fn stop_runtime(&mut self, ch: &mut Channels) {
        if let Some(dialog) = self.overlays.dialog.take() {
            let answer = dialog.dismissed();
            self.answer(dialog.question_id().to_string(), answer);
        }
        let Some(runtime) = self.mirror.handle.take() else {
            return;
        };
        runtime.submit(Op::Shutdown);
        let stopped = async {
            while let Some(msg) = ch.msg_rx.recv().await {
                if matches!(&msg, AppMsg::Runtime(event) if matches!(**event, RuntimeEvent::Stopped))
                {
                    break;
                }
            }
        };
        let _ = tokio::time::timeout(SHUTDOWN_GRACE, stopped).await;
    }

    /// Setup is done: the runtime saves the choice to the user's config and opens the session on
    /// it (`SessionOpened` leaves the setup screen; a failure comes back as `SetupChecked`).
    pub fn finish_setup(&mut self, choice: SetupChoice) {
        self.submit_op(Op::SaveSetup(choice));
    }
}
