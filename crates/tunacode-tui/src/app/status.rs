//! The status line: model, context used against the model's window (a gauge), tokens in/out, cost,
//! session, working directory and git branch, modes (yolo, plan), and what the agent is doing right now
//! with a spinner and the elapsed time. Segments drop from the right when the terminal is narrow; the
//! working directory is shortened (`…/parent/dir`, `…/dir`, then cut) before it drops.

use std::path::Path;
use std::time::{Duration, Instant};

use ratatui::text::{Line, Span};
use tunacode_protocol::Usage;
use unicode_width::UnicodeWidthStr;

pub use crate::app::status_place::{git_branch, short_path};
use crate::app::status_place::{place, place_reserve};
use crate::theme::Theme;

/// Spinner frames.
pub const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// What the agent is doing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Activity {
    /// Nothing: waiting for the user.
    Idle,
    /// Waiting for the model.
    Thinking,
    /// The model's answer is streaming.
    Writing,
    /// Running a tool.
    Tool(String),
    /// Waiting for the user to answer a dialog.
    WaitingForUser,
}

/// Everything the status line shows.
#[derive(Debug, Clone)]
pub struct StatusState {
    /// `provider:model`.
    pub model: String,
    /// The model's context window, when known.
    pub context_window: Option<u64>,
    /// Input tokens of the last call (what the context holds now).
    pub context_used: u64,
    /// Session usage.
    pub usage: Usage,
    /// The spend cap closest to being used up, with its spend.
    pub budget: Option<tunacode_protocol::runtime::CapView>,
    /// The session id.
    pub session_id: String,
    /// The working directory, shortened with `~`.
    pub cwd: String,
    /// The git branch, if any.
    pub branch: Option<String>,
    /// `/yolo` is on.
    pub yolo: bool,
    /// Plan mode is on.
    pub plan_mode: bool,
    /// The MCP servers in brief (`None`: none configured).
    pub mcp: Option<McpSummary>,
    /// What the agent is doing.
    pub activity: Activity,
    /// When the current activity began.
    pub since: Instant,
    /// Spinner frame.
    pub frame: usize,
    /// The sub-agents running now.
    pub agents: crate::app::running_agents::RunningAgents,
}

/// How many MCP servers are ready, failed, and configured (disabled ones not counted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McpSummary {
    /// Ready ones.
    pub ready: usize,
    /// Failed ones.
    pub failed: usize,
    /// All that were to start.
    pub total: usize,
}

impl StatusState {
    /// A status for a session in `cwd`, on git branch `branch` (read off the UI thread with
    /// [`git_branch`]).
    pub fn new(model: &str, session_id: &str, cwd: &Path, branch: Option<String>) -> Self {
        StatusState {
            model: model.to_string(),
            context_window: None,
            context_used: 0,
            usage: Usage::default(),
            budget: None,
            session_id: session_id.to_string(),
            cwd: short_path(cwd),
            branch,
            yolo: false,
            plan_mode: false,
            mcp: None,
            activity: Activity::Idle,
            since: Instant::now(),
            frame: 0,
            agents: Default::default(),
        }
    }

    /// Sets the activity and restarts its clock when it changes.
    pub fn set_activity(&mut self, activity: Activity) {
        if self.activity != activity {
            self.activity = activity;
            self.since = Instant::now();
        }
    }

    /// The line, fitted to `width`.
    pub fn line(&self, width: u16, theme: &Theme, now: Instant) -> Line<'static> {
        let (left, first_minor) = self.segments(theme);
        let right = self.activity_spans(theme, now);
        let right_width: usize = right.iter().map(|s| s.content.width()).sum();
        let sep = " │ ";
        let sep_width = sep.width();
        let mut spans: Vec<Span<'static>> = Vec::new();
        let mut used = right_width + 1;
        let mut all_fit = true;
        // The minor segments (cache, MCP, session) leave room for the place's short form first.
        let reserve = place_reserve(&self.cwd, self.branch.as_deref()).map_or(0, |w| w + sep_width);
        for (i, segment) in left.into_iter().enumerate() {
            let w: usize = segment.iter().map(|s| s.content.width()).sum::<usize>()
                + if i > 0 { sep_width } else { 0 };
            let kept = if i >= first_minor { reserve } else { 0 };
            if used + w + kept > width as usize {
                // A minor segment that does not fit left the place its room.
                all_fit = i >= first_minor;
                break;
            }
            if i > 0 {
                spans.push(Span::styled(sep, theme.muted));
            }
            spans.extend(segment);
            used += w;
        }
        // The place comes last: shortened to the room left rather than dropped while any form fits.
        if all_fit
            && let Some(place) = place(
                &self.cwd,
                self.branch.as_deref(),
                (width as usize).saturating_sub(used + sep_width),
            )
        {
            spans.push(Span::styled(sep, theme.muted));
            spans.push(Span::styled(place, theme.muted));
        }
        let pad = (width as usize)
            .saturating_sub(spans.iter().map(|s| s.content.width()).sum::<usize>() + right_width);
        spans.push(Span::raw(" ".repeat(pad)));
        spans.extend(right);
        Line::from(spans).style(theme.status)
    }

    /// The segments left of the activity, in the order they drop from the right when the line is
    /// narrow: model, context gauge, tokens, cost, budget, modes; then the minor ones (from the
    /// returned index on), which drop before the place's short form: cache, MCP, session.
    fn segments(&self, theme: &Theme) -> (Vec<Vec<Span<'static>>>, usize) {
        let mut left: Vec<Vec<Span<'static>>> = Vec::new();
        left.push(vec![Span::styled(format!(" {}", self.model), theme.accent)]);
        // Running sub-agents and their spend matter more than the gauge while they run.
        if let Some(agents) = self.agents_text() {
            left.push(vec![Span::styled(agents, theme.accent)]);
        }
        left.extend(self.context_gauge(theme));
        left.push(vec![Span::raw(format!(
            "↑{} ↓{}",
            human_tokens(self.usage.request_tokens),
            human_tokens(self.usage.response_tokens)
        ))]);
        if self.usage.cost > 0.0 {
            left.push(vec![Span::raw(format!("${:.4}", self.usage.cost))]);
        }
        if let Some(cap) = &self.budget {
            left.push(vec![budget_span(cap, theme)]);
        }
        if self.yolo {
            left.push(vec![Span::styled("YOLO", theme.warning)]);
        }
        if self.plan_mode {
            left.push(vec![Span::styled("PLAN", theme.accent)]);
        }
        let first_minor = left.len();
        if self.usage.cached_tokens > 0 {
            let share = self.usage.cached_tokens as f64 / self.usage.request_tokens as f64;
            left.push(vec![Span::styled(
                format!("cache {:.0}%", share * 100.0),
                theme.muted,
            )]);
        }
        if let Some(mcp) = &self.mcp {
            let style = if mcp.failed > 0 {
                theme.warning
            } else {
                theme.muted
            };
            left.push(vec![Span::styled(
                format!("MCP {}/{}", mcp.ready, mcp.total),
                style,
            )]);
        }
        let short_id: String = self.session_id.chars().take(8).collect();
        left.push(vec![Span::styled(
            format!("session {short_id}"),
            theme.muted,
        )]);
        (left, first_minor)
    }

    /// `ctx 42% ████░░░░`, colored by how full the context is; `None` while the window is unknown.
    fn context_gauge(&self, theme: &Theme) -> Option<Vec<Span<'static>>> {
        let window = self.context_window.filter(|w| *w > 0)?;
        let pct = (self.context_used as f64 / window as f64 * 100.0).min(100.0);
        let filled = ((pct / 100.0) * 8.0).round() as usize;
        let style = if pct > 85.0 {
            theme.error
        } else if pct > 60.0 {
            theme.warning
        } else {
            theme.success
        };
        Some(vec![
            Span::raw(format!("ctx {pct:.0}% ")),
            Span::styled("█".repeat(filled), style),
            Span::styled("░".repeat(8 - filled), theme.muted),
        ])
    }

    /// `⧉ 2 agents $0.0123` while sub-agents run (their tokens when nothing is priced).
    fn agents_text(&self) -> Option<String> {
        let running = &self.agents.by_call;
        let n = running.len();
        if n == 0 {
            return None;
        }
        let noun = if n == 1 { "agent" } else { "agents" };
        let cost: f64 = running.values().map(|a| a.cost).sum();
        Some(match cost > 0.0 {
            true => format!("⧉ {n} {noun} ${cost:.4}"),
            false => {
                let tokens = running.values().map(|a| a.tokens).sum();
                format!("⧉ {n} {noun} {} tok", human_tokens(tokens))
            }
        })
    }

    fn activity_spans(&self, theme: &Theme, now: Instant) -> Vec<Span<'static>> {
        let elapsed = now.saturating_duration_since(self.since);
        let spin = SPINNER[self.frame % SPINNER.len()];
        let text = match &self.activity {
            Activity::Idle => return vec![Span::styled("ready ", theme.muted)],
            Activity::Thinking => format!("{spin} thinking {} ", seconds(elapsed)),
            Activity::Writing => format!("{spin} writing {} ", seconds(elapsed)),
            Activity::Tool(name) => format!("{spin} calling {name} {} ", seconds(elapsed)),
            Activity::WaitingForUser => "⏸ waiting for approval ".to_string(),
        };
        vec![Span::styled(text, theme.accent)]
    }
}

fn seconds(d: Duration) -> String {
    format!("{:.1}s", d.as_secs_f64())
}

/// `1234` → `1.2k`, `1234567` → `1.2M`.
pub fn human_tokens(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=999_999 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

/// The cap closest to being used up: `$1.20/$5 session` (`12k/2M tok day`), warning past 80%.
fn budget_span(cap: &tunacode_protocol::runtime::CapView, theme: &Theme) -> Span<'static> {
    let text = match (cap.usd, cap.tokens) {
        (Some(usd), _) => format!("${:.2}/${usd:.2} {}", cap.spent_usd, cap.scope.name()),
        (None, Some(tokens)) => format!(
            "{}/{} tok {}",
            human_tokens(cap.spent_tokens),
            human_tokens(tokens),
            cap.scope.name()
        ),
        (None, None) => String::new(),
    };
    let style = if cap.used() >= 0.8 {
        theme.warning
    } else {
        theme.muted
    };
    Span::styled(text, style)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> StatusState {
        let mut s = StatusState::new(
            "anthropic:claude-sonnet-4-5",
            "1a2b3c4d-5555",
            Path::new("/work/proj"),
            None,
        );
        s.branch = Some("main".into());
        s.context_window = Some(200_000);
        s.context_used = 50_000;
        s.usage = Usage {
            request_tokens: 123_456,
            response_tokens: 2_345,
            cost: 0.0123,
            ..Usage::default()
        };
        s
    }

    fn text(line: &Line) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn shows_every_segment_when_wide_and_drops_from_the_right_when_narrow() {
        let theme = Theme::plain();
        let mut s = state();
        s.activity = Activity::Tool("grep".into());
        let now = s.since + Duration::from_millis(3200);
        let wide = text(&s.line(160, &theme, now));
        assert!(
            wide.starts_with(
                " anthropic:claude-sonnet-4-5 │ ctx 25% ██░░░░░░ │ ↑123.5k ↓2.3k │ $0.0123"
            ),
            "{wide}"
        );
        assert!(
            wide.contains("session 1a2b3c4d │ /work/proj (main)")
                && wide.ends_with("⠋ calling grep 3.2s "),
            "{wide}"
        );
        assert_eq!(wide.width(), 160);
        let narrow = text(&s.line(60, &theme, now));
        assert_eq!(narrow.width(), 60);
        assert!(
            narrow.contains("calling grep") && !narrow.contains("session"),
            "{narrow}"
        );
    }

    #[test]
    fn spend_against_the_tightest_cap_and_the_cache_share_show() {
        use tunacode_protocol::runtime::{BudgetScope, CapView};
        let theme = Theme::plain();
        let mut s = state();
        s.usage.cached_tokens = 100_000;
        s.budget = Some(CapView {
            scope: BudgetScope::Session,
            usd: Some(5.0),
            tokens: None,
            spent_usd: 4.2,
            spent_tokens: 0,
        });
        let line = s.line(200, &theme, s.since);
        let shown = text(&line);
        assert!(
            shown.contains("$0.0123 │ $4.20/$5.00 session │ cache 81%"),
            "{shown}"
        );
        let cap = line
            .spans
            .iter()
            .find(|span| span.content.contains("session"))
            .unwrap();
        assert_eq!(cap.style, theme.warning, "past 80% of the cap");
    }

    #[test]
    fn a_long_directory_is_shortened_before_it_drops() {
        let theme = Theme::plain();
        let mut s = StatusState::new(
            "openai:gpt-4.1",
            "1a2b3c4d",
            Path::new("/home/someone/src/github.com/example/deeply/nested/project-name"),
            None,
        );
        s.branch = Some("main".into());
        let now = s.since;
        let line = |w: u16| {
            let t = text(&s.line(w, &theme, now));
            assert_eq!(t.width(), w as usize, "{t}");
            t
        };
        // Model, tokens, session, separator and " ready " leave `width - 52` columns for the place.
        let full = line(130);
        assert!(
            full.contains(
                "session 1a2b3c4d │ /home/someone/src/github.com/example/deeply/nested/project-name (main)"
            ),
            "{full}"
        );
        let narrow = line(80);
        assert!(
            narrow.contains("↑0 ↓0 │ session 1a2b3c4d │ …/nested/project-name (main)")
                && narrow.ends_with("ready "),
            "{narrow}"
        );
        let narrower = line(74);
        assert!(
            narrower.contains("session 1a2b3c4d │ …/project-name (main)"),
            "{narrower}"
        );
        // Narrower, the session (a minor segment) drops before the place's short form.
        let kept = line(66);
        assert!(
            kept.contains("↑0 ↓0 │ …/nested/project-name (main)") && !kept.contains("session"),
            "{kept}"
        );
        // Never cut to a stump: without the branch, then not at all.
        let bare = line(50);
        assert!(
            bare.contains("↑0 ↓0 │ …/project-name ") && !bare.contains("main"),
            "{bare}"
        );
        let gone = line(45);
        assert!(!gone.contains("proj") && !gone.contains("…"), "{gone}");
        assert_eq!(
            crate::app::status_place::shortened_dirs("~/a/b/c"),
            vec!["…/b/c".to_string(), "…/c".to_string()]
        );
        assert_eq!(
            crate::app::status_place::shortened_dirs("~/proj"),
            vec!["…/proj".to_string()]
        );
    }

    #[test]
    fn modes_and_waiting_show() {
        let theme = Theme::plain();
        let mut s = state();
        s.yolo = true;
        s.plan_mode = true;
        s.activity = Activity::WaitingForUser;
        let line = text(&s.line(200, &theme, Instant::now()));
        assert!(
            line.contains("YOLO") && line.contains("PLAN") && line.contains("waiting for approval"),
            "{line}"
        );
        assert_eq!(human_tokens(999), "999");
        assert_eq!(human_tokens(2_500_000), "2.5M");
    }

    #[test]
    fn reads_the_git_branch_from_head() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/HEAD"), "ref: refs/heads/feature/x\n").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        assert_eq!(
            git_branch(&dir.path().join("sub")).as_deref(),
            Some("feature/x")
        );
    }
}
