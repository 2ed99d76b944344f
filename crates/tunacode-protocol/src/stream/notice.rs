//! Notices in the public stream-json schema: the `notice` line's optional `kind` and its details,
//! for notices a script may want to act on (adding a kind is compatible; a notice without one has
//! only `level` and `message`).

use crate::event::NoticeLevel;
use crate::runtime::{SessionNotice, SessionView};
use crate::stream::output::OutputEvent;
use crate::stream::values::{NoticeDetail, RecoveryOut};

/// The public name of a notice level.
pub fn level_name(level: NoticeLevel) -> &'static str {
    match level {
        NoticeLevel::Info => "info",
        NoticeLevel::Warning => "warning",
    }
}

impl OutputEvent {
    /// A notice without a kind.
    pub fn notice(level: &'static str, message: String) -> Self {
        OutputEvent::Notice {
            level,
            message,
            detail: None,
        }
    }
}

/// The notice line that follows `session_opened` when the session's opening has something to say.
pub fn session_notice(view: &SessionView) -> Option<OutputEvent> {
    let SessionNotice {
        level,
        message,
        recovery,
    } = view.notice.as_ref()?;
    Some(OutputEvent::Notice {
        level: level_name(*level),
        message: message.clone(),
        detail: recovery.as_ref().map(|r| NoticeDetail::JournalRecovery {
            recovery: RecoveryOut {
                recovered: r.recovered,
                kept_aside: r.kept_aside,
                kept_file: r.kept_file.as_ref().map(|p| p.display().to_string()),
            },
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::{JournalRecovery, ModelView};
    use crate::stream::line::Line;
    use serde_json::json;

    fn view(notice: Option<SessionNotice>) -> SessionView {
        SessionView {
            session_id: "s".into(),
            workspace: "/w".into(),
            messages: Default::default(),
            model: ModelView {
                model: "openai:m".into(),
                context_window: None,
            },
            plan_mode: false,
            usage: Default::default(),
            todos: Vec::new(),
            resumed: true,
            notice,
        }
    }

    #[test]
    fn a_recovery_notice_has_its_kind_and_figures_and_a_plain_one_has_neither() {
        let recovery = SessionNotice {
            level: NoticeLevel::Warning,
            message: "m".into(),
            recovery: Some(JournalRecovery {
                recovered: 3,
                kept_aside: 1,
                kept_file: Some("/d/s.jsonl.corrupt-x".into()),
            }),
        };
        let line = session_notice(&view(Some(recovery))).map(Line::new);
        assert_eq!(
            serde_json::to_value(&line).unwrap(),
            json!({"schema_version": 6, "type": "notice", "level": "warning",
                "message": "m", "kind": "journal_recovery",
                "recovery": {"recovered": 3, "kept_aside": 1, "kept_file": "/d/s.jsonl.corrupt-x"}})
        );
        let plain = session_notice(&view(Some(SessionNotice::info("m")))).map(Line::new);
        assert_eq!(
            serde_json::to_value(&plain).unwrap(),
            json!({"schema_version": 6, "type": "notice", "level": "info", "message": "m"})
        );
        assert!(session_notice(&view(None)).is_none());
    }
}
