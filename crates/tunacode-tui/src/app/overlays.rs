//! What opens over the chat and takes the keys while open: a question from the runtime, a picker,
//! the prompt for a provider's key.

use ratatui::Frame;
use ratatui::layout::Rect;

use crate::app::dialogs::QuestionDialog;
use crate::app::picker::Picker;
use crate::setup::KeyPrompt;
use crate::theme::Theme;

/// The modal things over the chat.
#[derive(Default)]
pub struct Overlays {
    /// A question from the runtime.
    pub dialog: Option<Box<dyn QuestionDialog>>,
    /// The dialog opened since the last frame: keys typed before it is drawn do not answer it.
    pub dialog_undrawn: bool,
    /// An open picker.
    pub picker: Option<Picker>,
    /// Asking for a key before switching models: the prompt and the model id.
    pub key_prompt: Option<(KeyPrompt, String)>,
    /// Text the open dialog asked to have rewritten in the user's editor (the loop runs it).
    pub pending_edit: Option<String>,
}

impl Overlays {
    /// Opens `dialog` (not drawn yet), returning the one it replaces, whose question still needs an
    /// answer.
    pub fn open_dialog(
        &mut self,
        dialog: Box<dyn QuestionDialog>,
    ) -> Option<Box<dyn QuestionDialog>> {
        self.dialog_undrawn = true;
        self.dialog.replace(dialog)
    }

    /// Closes the picker, or else the key prompt. Returns whether one was open.
    pub fn close_picker_or_prompt(&mut self) -> bool {
        self.picker.take().is_some() || self.key_prompt.take().is_some()
    }

    /// What is open over the chat: the picker and the key prompt over `chat` (above the input box),
    /// the question down to the status line (it replaces the input box).
    pub fn render(&self, frame: &mut Frame, (chat, status_area): (Rect, Rect), theme: &Theme) {
        let area = chat;
        if let Some(picker) = &self.picker {
            picker.render(frame, area, theme);
        }
        if let Some((prompt, _)) = &self.key_prompt {
            prompt.render(frame, area, theme);
        }
        if let Some(dialog) = &self.dialog {
            let above_status = Rect {
                height: status_area.y.saturating_sub(chat.y),
                ..chat
            };
            dialog.render(frame, above_status, theme);
        }
    }
}
