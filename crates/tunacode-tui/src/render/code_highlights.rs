//! Code blocks of finished answers, highlighted on a worker thread when the transcript shows them.
//!
//! Highlighting costs about a tenth of a millisecond per line, so a resumed session with tens of
//! thousands of code lines cannot be highlighted on the event loop. A finished answer renders its
//! code plain at first (the same text, so the same lines); when its cell is on screen it asks for
//! its blocks ([`LazyCode::requesting`]), the worker highlights them newest request first, keeps
//! them here (a bounded number of lines, least recently used dropped first, never one the current
//! frame used) and wakes the UI, which renders the cell again.

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use ratatui::text::Line;

use super::highlight::{highlight_code, highlightable};
use crate::theme::Theme;

/// Highlighted lines kept at most (about a hundred screens of code).
const KEPT_LINES: usize = 4_000;

/// Longer blocks are not asked for (they stay plain unless their answer was highlighted as it
/// streamed): a highlighted line costs about a kilobyte and a tenth of a millisecond, and a block is
/// highlighted whole (syntect's state runs from its first line).
const MAX_BLOCK_LINES: usize = 2_000;

/// Called on the worker thread after a block was highlighted.
pub type Waker = Box<dyn Fn() + Send + Sync>;

/// A code block in a theme: its language, and the code's hash and length (the code itself is not
/// kept twice).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct BlockKey {
    theme: &'static str,
    lang: String,
    hash: u64,
    len: usize,
}

impl BlockKey {
    fn new(code: &str, lang: &str, theme: &Theme) -> Self {
        let mut hasher = DefaultHasher::new();
        code.hash(&mut hasher);
        BlockKey {
            theme: theme.name,
            lang: lang.to_string(),
            hash: hasher.finish(),
            len: code.len(),
        }
    }
}

/// A block waiting for the worker.
struct Job {
    key: BlockKey,
    code: String,
    theme: Theme,
}

/// A highlighted block and when it was last used.
struct Done {
    lines: Arc<[Line<'static>]>,
    used: u64,
}

#[derive(Default)]
struct State {
    done: HashMap<BlockKey, Done>,
    kept_lines: usize,
    clock: u64,
    /// The clock when the current frame began: blocks used since are on screen and stay.
    frame_start: u64,
    /// Newest last: the worker takes the newest request first (what is on screen now).
    queue: Vec<Job>,
    queued: HashSet<BlockKey>,
    worker_started: bool,
    closed: bool,
    highlighted: usize,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    work: Condvar,
    waker: Mutex<Option<Waker>>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The highlighted blocks of the transcript's finished answers, and the worker that makes them.
#[derive(Default)]
pub struct CodeHighlights {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for CodeHighlights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.shared.lock();
        f.debug_struct("CodeHighlights")
            .field("blocks", &state.done.len())
            .field("queued", &state.queue.len())
            .finish()
    }
}

impl CodeHighlights {
    /// Sets what wakes the UI when a block was highlighted.
    pub fn set_waker(&self, waker: Waker) {
        *self
            .shared
            .waker
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(waker);
    }

    /// Blocks highlighted by the worker so far (for tests and benches).
    pub fn highlighted(&self) -> usize {
        self.shared.lock().highlighted
    }

    /// Blocks asked for and not highlighted yet.
    pub fn queued(&self) -> usize {
        self.shared.lock().queue.len()
    }

    /// A frame begins: the blocks it uses will not be dropped to make room (a cell on screen asks
    /// for all of its blocks, and must find them all when it renders again).
    pub fn begin_frame(&self) {
        let mut state = self.shared.lock();
        state.clock += 1;
        state.frame_start = state.clock;
    }

    /// Keeps the blocks a streamed answer highlighted as it grew, so it stays highlighted once
    /// finished.
    pub(crate) fn adopt(&self, blocks: Vec<(String, String, Vec<Line<'static>>)>, theme: &Theme) {
        let mut state = self.shared.lock();
        for (lang, code, lines) in blocks {
            keep(&mut state, BlockKey::new(&code, &lang, theme), lines.into());
        }
    }

    fn lookup(&self, key: &BlockKey) -> Option<Arc<[Line<'static>]>> {
        let mut state = self.shared.lock();
        state.clock += 1;
        let now = state.clock;
        let done = state.done.get_mut(key)?;
        done.used = now;
        Some(done.lines.clone())
    }

    fn request(&self, key: BlockKey, code: &str, theme: &Theme) {
        let mut state = self.shared.lock();
        if state.closed || state.done.contains_key(&key) || !state.queued.insert(key.clone()) {
            return;
        }
        state.queue.push(Job {
            key,
            code: code.to_string(),
            theme: theme.clone(),
        });
        if !std::mem::replace(&mut state.worker_started, true) {
            let shared = self.shared.clone();
            let spawned = std::thread::Builder::new()
                .name("tunacode-highlight".into())
                .spawn(move || work(&shared));
            if spawned.is_err() {
                // No thread: the blocks stay plain rather than blocking the UI.
                state.closed = true;
                state.queue.clear();
            }
        }
        self.shared.work.notify_one();
    }
}

impl Drop for CodeHighlights {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.work.notify_all();
    }
}

/// The worker: highlights the newest request, keeps it, wakes the UI; ends when the store is gone.
fn work(shared: &Shared) {
    loop {
        let job = {
            let mut state = shared.lock();
            loop {
                if state.closed {
                    return;
                }
                if let Some(job) = state.queue.pop() {
                    break job;
                }
                state = shared
                    .work
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        };
        let lines: Arc<[Line<'static>]> =
            highlight_code(&job.code, Some(&job.key.lang), &job.theme).into();
        {
            let mut state = shared.lock();
            state.queued.remove(&job.key);
            state.highlighted += 1;
            keep(&mut state, job.key, lines);
        }
        if let Some(wake) = shared
            .waker
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            wake();
        }
    }
}

/// Keeps a highlighted block, dropping the least recently used ones over [`KEPT_LINES`] (but none
/// the current frame used: what is on screen may need more).
fn keep(state: &mut State, key: BlockKey, lines: Arc<[Line<'static>]>) {
    state.clock += 1;
    state.kept_lines += lines.len();
    let used = state.clock;
    if let Some(old) = state.done.insert(key, Done { lines, used }) {
        state.kept_lines -= old.lines.len();
    }
    while state.kept_lines > KEPT_LINES {
        let Some(oldest) = state
            .done
            .iter()
            .filter(|(_, d)| d.used < state.frame_start)
            .min_by_key(|(_, d)| d.used)
            .map(|(k, _)| k.clone())
        else {
            break;
        };
        if let Some(gone) = state.done.remove(&oldest) {
            state.kept_lines -= gone.lines.len();
        }
    }
}

/// The code source of one render of a finished answer: highlighted blocks from the store, plain
/// lines for the others (asked for when [`requesting`](Self::requesting)).
#[derive(Debug)]
pub struct LazyCode<'a> {
    store: &'a CodeHighlights,
    request: bool,
    /// A block came out plain because it is not highlighted yet.
    pub pending: bool,
}

impl<'a> LazyCode<'a> {
    /// Uses what is highlighted; asks for nothing (a cell measured off screen).
    pub fn reading(store: &'a CodeHighlights) -> Self {
        LazyCode {
            store,
            request: false,
            pending: false,
        }
    }

    /// Uses what is highlighted and asks for the rest (a cell on screen).
    pub fn requesting(store: &'a CodeHighlights) -> Self {
        LazyCode {
            request: true,
            ..Self::reading(store)
        }
    }

    /// The lines of a code block: highlighted when the store has it, else plain (the same text).
    pub(crate) fn lines(
        &mut self,
        code: &str,
        lang: Option<&str>,
        theme: &Theme,
    ) -> Vec<Line<'static>> {
        let Some(lang) = highlightable(lang, theme) else {
            return highlight_code(code, lang, theme);
        };
        let key = BlockKey::new(code, lang, theme);
        // A long block a streamed answer highlighted as it grew is kept (`adopt`); none is asked for.
        if let Some(lines) = self.store.lookup(&key) {
            return lines.to_vec();
        }
        if code.lines().nth(MAX_BLOCK_LINES).is_some() {
            return highlight_code(code, None, theme);
        }
        self.pending = true;
        if self.request {
            self.store.request(key, code, theme);
        }
        highlight_code(code, None, theme)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each line's text.
    fn lines_to_text(lines: &[Line<'_>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn plain_code_has_the_text_and_rows_of_highlighted_code() {
        let theme = Theme::dark();
        let samples = [
            (
                "rust",
                "fn main() {\n\tlet s = \"a\u{7}b\";\r\n    // done\n}\n",
            ),
            ("python", "def f(x):\n    return x  # \u{1b}[31mred\n\n"),
            ("sh", "echo \"$HOME\" | tr a b\n"),
            ("no-such-language", "anything\tgoes\n"),
        ];
        let store = CodeHighlights::default();
        for (lang, code) in samples {
            let mut lazy = LazyCode::reading(&store);
            let plain = lazy.lines(code, Some(lang), &theme);
            let highlighted = highlight_code(code, Some(lang), &theme);
            assert_eq!(plain.len(), highlighted.len(), "{lang}");
            assert_eq!(lines_to_text(&plain), lines_to_text(&highlighted), "{lang}");
        }
        // Reading asks for nothing.
        assert_eq!(store.queued(), 0);
        // A block too long to highlight is plain and asks for nothing.
        let long = "let x = 1;\n".repeat(MAX_BLOCK_LINES + 1);
        let mut lazy = LazyCode::requesting(&store);
        let lines = lazy.lines(&long, Some("rust"), &theme);
        assert_eq!(lines.len(), MAX_BLOCK_LINES + 1);
        assert!(!lazy.pending);
        assert_eq!(store.queued() + store.highlighted(), 0);
        // Unless a streamed answer highlighted it as it grew: then it stays highlighted.
        let streamed = highlight_code(&long, Some("rust"), &theme);
        store.adopt(
            vec![("rust".into(), long.clone(), streamed.clone())],
            &theme,
        );
        let mut lazy = LazyCode::reading(&store);
        assert_eq!(lazy.lines(&long, Some("rust"), &theme), streamed);
    }

    #[test]
    fn a_block_asked_for_twice_is_highlighted_once() {
        let theme = Theme::dark();
        let store = CodeHighlights::default();
        let (tx, rx) = std::sync::mpsc::channel();
        store.set_waker(Box::new(move || {
            let _ = tx.send(());
        }));
        let code = "let a = 1;\nlet b = 2;\n";
        for _ in 0..3 {
            let mut lazy = LazyCode::requesting(&store);
            let lines = lazy.lines(code, Some("rust"), &theme);
            assert_eq!(lines.len(), 2);
        }
        rx.recv_timeout(std::time::Duration::from_secs(20))
            .expect("the worker reported nothing");
        let mut lazy = LazyCode::requesting(&store);
        let lines = lazy.lines(code, Some("rust"), &theme);
        assert!(!lazy.pending);
        assert_eq!(lines, highlight_code(code, Some("rust"), &theme));
        assert_eq!(store.highlighted(), 1);
        assert!(rx.try_recv().is_err(), "highlighted once");
    }

    #[test]
    fn kept_lines_stay_bounded_and_the_least_recently_used_go_first() {
        let mut state = State::default();
        let line: Arc<[Line<'static>]> = vec![Line::raw("x"); 1_000].into();
        let key = |i: u64| BlockKey {
            theme: "dark",
            lang: "rust".into(),
            hash: i,
            len: 1,
        };
        for i in 0..4 {
            keep(&mut state, key(i), line.clone());
        }
        // Block 0 is used again, so block 1 is the oldest when a fifth comes.
        state.clock += 1;
        if let Some(done) = state.done.get_mut(&key(0)) {
            done.used = state.clock;
        }
        state.clock += 1;
        state.frame_start = state.clock;
        keep(&mut state, key(4), line.clone());
        assert_eq!(state.kept_lines, KEPT_LINES);
        assert!(state.done.contains_key(&key(0)));
        assert!(!state.done.contains_key(&key(1)));
        // Blocks the current frame used are kept even over the bound: a cell on screen asking for
        // more than the bound must find every block it asked for, or it would ask again forever.
        let used_now = state.clock + 1;
        for done in state.done.values_mut() {
            done.used = used_now;
        }
        state.clock = used_now;
        state.frame_start = used_now;
        keep(&mut state, key(5), line);
        assert_eq!(state.done.len(), 5);
        assert_eq!(state.kept_lines, KEPT_LINES + 1_000);
    }
}
