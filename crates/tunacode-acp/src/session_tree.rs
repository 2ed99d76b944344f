//! How rewinds and the prompt list read in an editor: the report as text, and what an editor's
//! view cannot show (it keeps the messages a conversation rewind set aside).

use agent_client_protocol::Error;
use tunacode_core::RuntimeEvent;
use tunacode_protocol::runtime::{Rewound, TurnView};

use crate::prompt::ReplyKind;
use crate::session::Session;

impl Session {
    /// A rewind's report, the prompt list or an export's file, as the reply of the command that
    /// asked. (A fork is asked for with `/fork` only in the terminal and from scripts.)
    pub(crate) fn on_tree_event(&mut self, event: RuntimeEvent) -> Result<(), Error> {
        match event {
            RuntimeEvent::Rewound(rewound) => {
                self.on_reply(ReplyKind::Rewound, rewound_text(&rewound))
            }
            RuntimeEvent::Turns(turns) => self.on_reply(ReplyKind::Turns, turns_text(&turns)),
            RuntimeEvent::Exported { path } => self.on_reply(
                ReplyKind::Exported,
                format!("Exported the session to {}", path.display()),
            ),
            _ => Ok(()),
        }
    }
}

/// A rewind's report, with what it means for the editor's view.
pub(crate) fn rewound_text(rewound: &Rewound) -> String {
    let mut text = rewound.describe();
    if rewound.mode.conversation() && rewound.kind != "redo" {
        text.push_str(&format!(
            "\n\nThe editor still shows the later messages; the agent no longer sees them. \
             The rewound prompt was:\n\n{}",
            rewound.text
        ));
    }
    text
}

/// This session's prompts, for `/rewind N`.
pub(crate) fn turns_text(turns: &[TurnView]) -> String {
    if turns.is_empty() {
        return "No prompt to rewind to yet in this session.".into();
    }
    let mut text = String::from("Prompts of this session (`/rewind N [all|conversation|code]`):\n");
    for turn in turns {
        let first = turn.text.lines().next().unwrap_or("");
        let files = match turn.files.len() {
            0 => String::new(),
            n => format!(" — {n} file(s): {}", turn.files.join(", ")),
        };
        text.push_str(&format!(
            "\n{}. {first} ({}){files}",
            turn.number, turn.time
        ));
    }
    text
}
