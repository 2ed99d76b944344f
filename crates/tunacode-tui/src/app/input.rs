//! Keys and mouse: the editor (Enter sends, Shift+Enter or Alt+Enter or Ctrl+J adds a line, paste keeps
//! newlines), history (Up/Down at the first/last line), `@` and `/` completion, Esc interrupts, Ctrl+C
//! clears the input and twice quits, PgUp/PgDn/wheel/Home/End scroll, Ctrl+O expands tool output.

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEventKind};

use tunacode_core::Op;

use crate::app::dialogs::DialogOutcome;
use crate::app::picker::{PickerKind, PickerOutcome};
use crate::app::state::{App, AppMsg, Screen};
use crate::complete::{CompletionContext, apply_completion};
use crate::setup::{KeyPromptAction, SetupAction};

/// The input border's title while an interrupt is on its way.
pub(crate) const STOPPING: &str = "stopping…";

impl App {
    /// Handles one terminal event. Returns whether the screen needs a redraw.
    pub fn on_terminal_event(&mut self, event: Event) -> bool {
        match event {
            Event::Key(key) if key.kind != KeyEventKind::Release => {
                self.on_key(key);
                true
            }
            Event::Paste(text) => {
                if let Screen::Setup(screen) = &mut self.screen {
                    screen.handle_paste(&text);
                } else if let Some((prompt, _)) = &mut self.overlays.key_prompt {
                    prompt.handle_paste(&text);
                } else if self.overlays.dialog.is_none() && self.overlays.picker.is_none() {
                    // A dropped screenshot's path goes as an `@` mention: sent as an image.
                    let text = crate::app::paste::image_mention(&text, &self.cwd).unwrap_or(text);
                    self.input.paste(&text);
                    self.update_completion();
                }
                true
            }
            Event::Mouse(mouse) => match mouse.kind {
                MouseEventKind::ScrollUp => {
                    self.view.transcript.scroll(3);
                    true
                }
                MouseEventKind::ScrollDown => {
                    self.view.transcript.scroll(-3);
                    true
                }
                _ => false,
            },
            Event::Resize(_, _) => true,
            _ => false,
        }
    }

    fn on_key(&mut self, key: KeyEvent) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        // The setup screen handles its own Ctrl+C (one press quits, as its hint says).
        if ctrl
            && key.code == KeyCode::Char('c')
            && !matches!(self.screen, Screen::Setup(_))
            && self.on_ctrl_c()
        {
            return;
        }
        if let Screen::Setup(screen) = &mut self.screen {
            match screen.handle_key(key) {
                SetupAction::None => {}
                SetupAction::Quit => self.should_quit = true,
                SetupAction::Check(choice) => self.check_setup(choice),
                SetupAction::Save(choice) => self.finish_setup(choice),
            }
            return;
        }
        if let Some(dialog) = &mut self.overlays.dialog {
            let id = dialog.question_id().to_string();
            match dialog.handle_key(key) {
                DialogOutcome::Open => {}
                DialogOutcome::Answered(answer) => {
                    self.answer(id, answer);
                    self.close_dialog();
                }
                DialogOutcome::Stop => {
                    self.close_dialog();
                    self.stop_request();
                }
                DialogOutcome::Edit(text) => self.overlays.pending_edit = Some(text),
            }
            return;
        }
        if let Some((prompt, _)) = &mut self.overlays.key_prompt {
            match prompt.handle_key(key) {
                KeyPromptAction::None => {}
                KeyPromptAction::Cancel => self.overlays.key_prompt = None,
                KeyPromptAction::Submit(k) => self.submit_key(k),
            }
            return;
        }
        if self.overlays.picker.is_some() {
            self.on_picker_key(key);
            return;
        }
        self.on_editor_key(key);
    }

    /// Ctrl+C: closes what is open, else clears the input, else arms quitting; a second press quits.
    /// Returns whether it was handled.
    fn on_ctrl_c(&mut self) -> bool {
        if let Some(dialog) = self.overlays.dialog.take() {
            let answer = dialog.dismissed();
            self.answer(dialog.question_id().to_string(), answer);
            self.close_dialog();
            return true;
        }
        if self.overlays.close_picker_or_prompt() {
            return true;
        }
        // With the completion popup open the input is cleared too (the next text starts afresh).
        let had_popup = self.input.popup.take().is_some();
        if matches!(self.screen, Screen::Chat) && !self.input.editor.is_empty() {
            self.input.clear(&self.view.theme);
            self.input.pasted.clear();
            return true;
        }
        if had_popup {
            return true;
        }
        if self.input.press_quit() {
            self.should_quit = true;
        }
        true
    }

    /// Reads the clipboard's image off the event loop; it comes back as `ClipboardImage`.
    fn paste_clipboard_image(&mut self) {
        let (dir, msgs) = (self.pastes_dir.clone(), self.msgs.clone());
        tokio::spawn(async move {
            let read =
                tokio::task::spawn_blocking(move || crate::app::clipboard_image::paste_image(&dir))
                    .await
                    .unwrap_or_else(|e| Err(format!("internal error: {e}")));
            let _ = msgs.send(AppMsg::ClipboardImage(read));
        });
    }

    /// Esc while something runs: interrupts it, and the messages queued behind it come back to the
    /// input (the runtime drops its queue) instead of vanishing.
    fn stop_request(&mut self) {
        self.interrupt();
        self.input.hint = Some(STOPPING.into());
        let queued = std::mem::take(&mut self.mirror.queued_texts);
        if queued.is_empty() {
            return;
        }
        let count = queued.len();
        let mut texts = queued;
        let draft = self.input.full_text();
        if !draft.trim().is_empty() {
            texts.push(draft);
        }
        self.input.set_text(&texts.join("\n"), &self.view.theme);
        self.view
            .transcript
            .push(crate::app::transcript::CellKind::Notice(
                tunacode_protocol::NoticeLevel::Info,
                format!("{count} queued message(s) not sent: they are back in the input."),
            ));
    }

    /// Checks a setup choice: the runtime sends one cheap real request with the settings the run
    /// will use (nothing is written yet) and answers with `SetupChecked`.
    pub(crate) fn check_setup(&self, choice: crate::setup::SetupChoice) {
        self.submit_op(Op::CheckSetup(choice));
    }

    pub(crate) fn close_dialog(&mut self) {
        self.overlays.dialog = None;
        if self.busy() {
            self.resume_activity();
        }
    }

    /// What the status line says once nothing waits on the user: the tool still running, if any.
    pub(crate) fn resume_activity(&mut self) {
        let activity = self
            .view
            .transcript
            .running_tool()
            .map_or(crate::app::status::Activity::Thinking, |name| {
                crate::app::status::Activity::Tool(name)
            });
        self.view.status.set_activity(activity);
    }

    fn on_picker_key(&mut self, key: KeyEvent) {
        let Some(picker) = &mut self.overlays.picker else {
            return;
        };
        let kind = picker.kind;
        match picker.handle_key(key) {
            PickerOutcome::Open => {}
            PickerOutcome::Closed => self.overlays.picker = None,
            PickerOutcome::Picked(id) => {
                self.overlays.picker = None;
                match kind {
                    PickerKind::Model => self.switch_model(&id),
                    PickerKind::Resume => self.submit_op(Op::ResumeSession { id }),
                    PickerKind::Theme => self.set_theme(&id),
                    PickerKind::Rewind => self.on_rewind_prompt_picked(&id),
                    PickerKind::RewindMode => self.on_rewind_mode_picked(&id),
                }
            }
        }
    }

    fn on_editor_key(&mut self, key: KeyEvent) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        self.input.quit_armed = None;
        if self.input.popup.is_some() && self.on_popup_key(key) {
            return;
        }
        match key.code {
            KeyCode::Enter if shift || alt => self.input.editor.insert_newline(),
            KeyCode::Char('j') if ctrl => self.input.editor.insert_newline(),
            KeyCode::Enter => {
                let text = self.input.take_text(&self.view.theme);
                self.input.popup = None;
                self.input.hint = None;
                self.submit(text);
            }
            KeyCode::Esc => {
                if self.busy() || self.view.transcript.shell_running() {
                    self.stop_request();
                } else {
                    self.on_idle_esc(alt);
                }
            }
            // An image from the clipboard (a terminal pastes only text).
            KeyCode::Char('v') if ctrl => self.paste_clipboard_image(),
            // Readline's Ctrl+U: delete from the cursor to the start of the line.
            KeyCode::Char('u') if ctrl => {
                self.input.editor.delete_line_by_head();
                self.update_completion();
            }
            KeyCode::Char('o') if ctrl => {
                self.view.expand_tools = !self.view.expand_tools;
            }
            KeyCode::Char('l') if ctrl => {}
            KeyCode::PageUp => self.view.transcript.scroll_pages(1),
            KeyCode::PageDown => self.view.transcript.scroll_pages(-1),
            KeyCode::Home if self.input.editor.is_empty() || ctrl => {
                self.view.transcript.scroll_to_top()
            }
            KeyCode::End if self.input.editor.is_empty() || ctrl => {
                self.view.transcript.scroll_to_bottom()
            }
            KeyCode::Up if self.input.editor.cursor().0 == 0 => {
                self.input.history_up(&self.view.theme)
            }
            KeyCode::Down
                if self.input.editor.cursor().0 + 1 >= self.input.editor.lines().len() =>
            {
                self.input.history_down(&self.view.theme)
            }
            _ => {
                self.input.editor.input(key);
                self.update_completion();
            }
        }
    }

    /// Keys while the completion popup is open. Returns whether the key was used.
    fn on_popup_key(&mut self, key: KeyEvent) -> bool {
        let Some((popup, ctx)) = &mut self.input.popup else {
            return false;
        };
        match key.code {
            KeyCode::Up => popup.select_prev(),
            KeyCode::Down => popup.select_next(),
            KeyCode::Esc => self.input.popup = None,
            KeyCode::Tab | KeyCode::Enter => {
                let chosen = popup.selected_item().map(|i| i.value.clone());
                let ctx = ctx.clone();
                self.input.popup = None;
                if let Some(value) = chosen {
                    let text = self.input.text();
                    let (new_text, cursor) = apply_completion(&text, &ctx, &value);
                    self.input
                        .set_text_with_cursor(&new_text, cursor, &self.view.theme);
                    self.update_completion();
                    if key.code == KeyCode::Enter
                        && matches!(ctx, CompletionContext::Command { .. })
                        && !new_text.trim_end().contains(' ')
                    {
                        let text = self.input.take_text(&self.view.theme);
                        self.submit(text);
                    }
                }
            }
            _ => return false,
        }
        true
    }

    /// Opens, updates or closes the completion popup from the text before the cursor.
    pub fn update_completion(&mut self) {
        let mirror = &self.mirror;
        self.input.update_completion(|| mirror.all_commands());
    }
}
