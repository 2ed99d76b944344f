//! The application: state, input, actions, drawing, and the event loop that ties the terminal, the
//! engine's events and questions, and background work together. Drawing is event-driven: nothing is
//! drawn while nothing happens; streamed output is drawn at most once per [`FRAME`]; input is drawn at
//! once.

mod actions;
pub mod bridge;
pub mod commands;
pub mod dialogs;
mod input;
pub mod picker;
mod sessions;
pub mod state;
pub mod status;
pub mod transcript;
mod view;

#[cfg(test)]
mod behaviour_tests;
#[cfg(test)]
mod tests_support;
#[cfg(test)]
mod view_tests;

use std::collections::{BTreeMap, VecDeque};
use std::io::Write;
use std::time::{Duration, Instant};

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    EventStream, KeyboardEnhancementFlags, PopKeyboardEnhancementFlags,
    PushKeyboardEnhancementFlags,
};
use crossterm::execute;
use futures::StreamExt;
use tokio::sync::mpsc;
use tunacode_core::{EventSink, Session};

use crate::TuiConfig;
use crate::app::bridge::TuiApprover;
use crate::app::state::{App, Screen};
use crate::app::status::StatusState;
use crate::complete::{InputHistory, SharedFileIndex};
use crate::error::TuiError;
use crate::setup::{SetupChoice, SetupScreen};
use crate::theme::Theme;

pub use input::new_editor;

/// Shortest time between two frames.
pub const FRAME: Duration = Duration::from_millis(16);
/// Spinner speed while the agent works.
const SPINNER_TICK: Duration = Duration::from_millis(100);

/// Runs the UI until the user quits.
pub async fn run(config: TuiConfig) -> Result<(), TuiError> {
    let mut terminal = ratatui::try_init()?;
    let mut stdout = std::io::stdout();
    let enhanced = crossterm::terminal::supports_keyboard_enhancement().unwrap_or(false);
    execute!(stdout, EnableBracketedPaste, EnableMouseCapture)?;
    if enhanced {
        // Lets Shift+Enter be told apart from Enter where the terminal supports it.
        execute!(
            stdout,
            PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
        )?;
    }
    let result = event_loop(&mut terminal, config).await;
    if enhanced {
        let _ = execute!(stdout, PopKeyboardEnhancementFlags);
    }
    let _ = execute!(stdout, DisableBracketedPaste, DisableMouseCapture);
    ratatui::restore();
    result
}

/// Builds the app state for `config` (setup screen when no provider is usable).
pub fn build_app(config: TuiConfig) -> (App, Channels) {
    let (events, agent_rx) = EventSink::channel();
    let (ui_tx, ui_rx) = mpsc::unbounded_channel();
    let (msg_tx, msg_rx) = mpsc::unbounded_channel();
    let theme = Theme::named(&config.theme);
    let project = tunacode_store::project_id(&config.cwd);
    let history = InputHistory::load(
        &config.paths.sessions_dir.with_file_name("history"),
        &project,
    );
    let approver = TuiApprover::new(ui_tx.clone(), &config.tool_ignore);
    let mut app = App {
        input: new_editor(&theme),
        theme,
        screen: Screen::Chat,
        transcript: Default::default(),
        status: StatusState::new("", "", &config.cwd),
        dialog: None,
        picker: None,
        key_prompt: None,
        popup: None,
        history,
        files: SharedFileIndex::spawn(config.cwd.clone()),
        queue: VecDeque::new(),
        show_thoughts: config.show_thoughts,
        expand_tools: false,
        quit_armed: None,
        should_quit: false,
        todos: Vec::new(),
        usage_by_model: BTreeMap::new(),
        hint: None,
        agent: None,
        running: None,
        approver,
        resolve: config.resolve.clone(),
        registry: config.registry.clone(),
        paths: config.paths.clone(),
        msgs: msg_tx,
        events,
        ui_requests: ui_tx,
        cwd: config.cwd.clone(),
        pending_output: Vec::new(),
    };
    let resolved = if config.force_setup {
        Err(String::new())
    } else {
        (config.resolve)(None)
    };
    match resolved {
        Ok(settings) => {
            let window = settings.context_window;
            let session = config
                .session
                .unwrap_or_else(|| Session::new(&config.cwd, &settings.options.model));
            let messages = session.messages.clone();
            let agent = app.build_agent(settings, session);
            app.install_agent(agent, window);
            if !messages.is_empty() {
                app.replay(&messages);
            }
        }
        Err(_) => {
            app.screen = Screen::Setup(Box::new(SetupScreen::new(
                &config.registry,
                config.paths.config_file.clone(),
            )))
        }
    }
    (
        app,
        Channels {
            agent_rx,
            ui_rx,
            msg_rx,
        },
    )
}

/// The receiving ends the event loop listens on.
#[derive(Debug)]
pub struct Channels {
    /// Engine events.
    pub agent_rx: mpsc::UnboundedReceiver<tunacode_protocol::AgentEvent>,
    /// Engine questions.
    pub ui_rx: mpsc::UnboundedReceiver<bridge::UiRequest>,
    /// Background results.
    pub msg_rx: mpsc::UnboundedReceiver<state::AppMsg>,
}

async fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    config: TuiConfig,
) -> Result<(), TuiError> {
    let (mut app, mut ch) = build_app(config);
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
            dirty = false;
        }
        if !app.pending_output.is_empty() {
            let mut out = std::io::stdout();
            for seq in app.pending_output.drain(..) {
                let _ = out.write_all(seq.as_bytes());
            }
            let _ = out.flush();
        }
        if app.should_quit {
            break;
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
            Some(event) = ch.agent_rx.recv() => {
                app.on_agent_event(event);
                // Take whatever else already arrived before drawing once.
                while let Ok(event) = ch.agent_rx.try_recv() {
                    app.on_agent_event(event);
                }
                dirty = true;
            }
            Some(request) = ch.ui_rx.recv() => {
                app.on_ui_request(request);
                dirty = true;
            }
            Some(msg) = ch.msg_rx.recv() => {
                app.on_msg(msg);
                dirty = true;
            }
            _ = tokio::time::sleep_until(next_frame), if dirty => {}
            _ = spinner.tick(), if app.busy() => {
                app.status.frame = app.status.frame.wrapping_add(1);
                dirty = true;
            }
        }
    }
    app.shutdown().await;
    Ok(())
}

impl App {
    /// Stops a request in flight through the engine's abort path and waits for it to save the session.
    pub async fn shutdown(&mut self) {
        if let Some(mut dialog) = self.dialog.take() {
            dialog.cancel();
        }
        if let Some(running) = self.running.take() {
            running.cancel.cancel();
            let _ = tokio::time::timeout(Duration::from_secs(10), running.task).await;
        }
    }

    /// Setup is done: saves the choice to the user's config, then opens the chat.
    pub fn finish_setup(&mut self, choice: &SetupChoice, update: tunacode_store::SetupUpdate) {
        if let Err(e) = tunacode_store::save_setup(&self.paths.config_file, &update) {
            if let Screen::Setup(screen) = &mut self.screen {
                screen.on_check_result(Err(format!("Could not save the configuration: {e}")));
            }
            return;
        }
        match (self.resolve)(Some(&choice.model_id())) {
            Ok(settings) => {
                let window = settings.context_window;
                let session = Session::new(&self.cwd, &settings.options.model);
                let agent = self.build_agent(settings, session);
                self.install_agent(agent, window);
                self.screen = Screen::Chat;
                self.transcript.push(transcript::CellKind::Info(format!(
                    "Ready: {}. Saved to {}. Type a task, /help for commands.",
                    choice.model_id(),
                    self.paths.config_file.display()
                )));
            }
            Err(e) => {
                if let Screen::Setup(screen) = &mut self.screen {
                    screen.on_check_result(Err(e));
                }
            }
        }
    }
}
