//! What the actor does with undo, rewind, redo, the prompt list, fork and export: the busy rule,
//! the handler, then the changed session installed (a rewound conversation is announced again, so
//! front ends redraw it) or the forked one switched to.

use tunacode_protocol::runtime::ExportFormat;

use crate::rewind::turns;
use crate::runtime::actor::Actor;
use crate::runtime::events::{RuntimeEvent, SessionNotice};
use crate::runtime::ops::Op;
use crate::runtime::rewind_ops::Step;

impl Actor {
    pub(super) async fn on_rewind_op(&mut self, op: Op) {
        let step = match op {
            Op::ListTurns => {
                let list = turns(&self.agent.session().lock());
                return self.parts.events.send(RuntimeEvent::Turns(list));
            }
            Op::Fork { at } => return self.on_fork(at).await,
            Op::Undo { to } => Step::Undo(to.unwrap_or(1).max(1)),
            Op::Rewind { to, mode } => Step::Rewind(to, mode),
            Op::Redo => Step::Redo,
            _ => return,
        };
        if self.busy("rewind") {
            return;
        }
        let session = self.agent.session().clone();
        match self.rewind.step(&session, step).await {
            Ok((changed, rewound)) => {
                let redraw = rewound.kind == "redo" || rewound.mode.conversation();
                *session.lock() = changed;
                if redraw {
                    self.announce_session(true, None);
                }
                self.parts.events.send(RuntimeEvent::Rewound(rewound));
            }
            Err(failure) => self.fail(failure),
        }
    }

    async fn on_fork(&mut self, at: Option<usize>) {
        if self.busy("fork the session") {
            return;
        }
        let session = self.agent.session().clone();
        match self.rewind.fork(&session, at).await {
            Ok((forked, done)) => {
                self.session_ending("resume").await;
                let notice = SessionNotice::info(format!(
                    "Forked from session {} after prompt {}; the original is unchanged (/resume \
                     opens it).",
                    &done.parent[..done.parent.len().min(8)],
                    done.prompt
                ));
                self.parts.events.send(RuntimeEvent::Forked(done));
                self.install_session(forked, true, Some(notice));
                self.session_started("resume").await;
            }
            Err(failure) => self.fail(failure),
        }
    }

    pub(super) async fn on_export(&mut self, format: ExportFormat, path: Option<String>) {
        let session = self.agent.session().lock().clone();
        let cwd = self.parts.settings.cwd.clone();
        let exports = self.parts.settings.paths.data_dir().join("exports");
        let written = crate::runtime::blocking::off_thread("export", move || {
            crate::rewind::export_to_file(&session, format, path.as_deref(), (&cwd, &exports))
                .map_err(|e| crate::runtime::events::OpFailure::Invalid(e.to_string()))
        })
        .await;
        self.report(written.map(|path| Some(RuntimeEvent::Exported { path })));
    }
}
