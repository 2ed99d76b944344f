//! What opens over the chat and takes the keys while open: a question from the runtime, a picker,
//! the prompt for a provider's key.

use crate::app::dialogs::QuestionDialog;
use crate::app::picker::Picker;
use crate::setup::KeyPrompt;

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
}
