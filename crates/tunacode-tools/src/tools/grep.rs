//! `grep`: regex search over the workspace with ripgrep's crates (gitignore-aware, parallel).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use globset::{GlobBuilder, GlobMatcher};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::sinks::Lossy;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use ignore::{WalkBuilder, WalkState};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::args::parse;
use crate::beneath::Beneath;
use crate::fsutil::{blocking, io_error, join_error};
use crate::schema::schema_for;
use crate::tool::{Tool, ToolContext, ToolKind, ToolOutput};
use crate::tool_error::ToolError;
use crate::truncate::truncate_chars;
use crate::workspace::Workspace;
use std::sync::LazyLock;

const NAME: &str = "grep";
const DEFAULT_MAX_RESULTS: usize = 100;
const MAX_MAX_RESULTS: usize = 1000;
/// Characters kept of a matching line.
const MAX_LINE_CHARS: usize = 300;

/// Searches file contents for a regular expression, honouring `.gitignore` and skipping hidden and
/// binary files.
#[derive(Debug, Clone)]
pub struct Grep {
    /// How long a search may run before it stops with partial results.
    deadline: Duration,
}

impl Default for Grep {
    fn default() -> Self {
        Grep {
            deadline: Duration::from_secs(10),
        }
    }
}

impl Grep {
    /// A grep tool whose searches stop (with partial results) after `deadline`.
    pub fn with_deadline(deadline: Duration) -> Self {
        Grep { deadline }
    }
}

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// Regex, e.g. `fn\s+main`.
    pattern: String,
    /// Where to search (default: the root).
    path: Option<String>,
    /// Only files matching this glob (`*.rs`: names; `src/**/*.ts`: paths).
    include: Option<String>,
    /// Force case sensitivity on or off.
    case_sensitive: Option<bool>,
    /// Default 100.
    #[schemars(range(min = 1, max = MAX_MAX_RESULTS))]
    max_results: Option<u64>,
}

/// Which files `include` selects: a pattern without `/` matches file names, one with `/` matches the
/// path relative to the search path or to the workspace root.
pub(crate) struct Include {
    glob: GlobMatcher,
    by_name: bool,
}

impl Include {
    /// Compiles `pattern`, or explains why it is not a valid glob.
    pub(crate) fn new(pattern: &str, arg: &str) -> Result<Self, ToolError> {
        let pattern = pattern.trim().trim_start_matches("./");
        let glob = GlobBuilder::new(pattern)
            .literal_separator(true)
            .build()
            .map_err(|e| ToolError::Retry(format!("invalid glob in `{arg}`: {e}")))?
            .compile_matcher();
        Ok(Include {
            glob,
            by_name: !pattern.contains('/'),
        })
    }

    fn matches(&self, path: &Path, base: &Path, root: &Path) -> bool {
        if self.by_name {
            return path.file_name().is_some_and(|n| self.glob.is_match(n));
        }
        [base, root].iter().any(|dir| {
            path.strip_prefix(dir)
                .is_ok_and(|rel| self.glob.is_match(rel))
        })
    }
}

/// One matching line.
struct Hit {
    path: String,
    line: u64,
    text: String,
}

/// What the walker threads share.
struct Shared {
    hits: Mutex<Vec<Hit>>,
    count: AtomicUsize,
    /// Secret files (and folders) left out of the search.
    skipped: AtomicUsize,
    capped: AtomicBool,
    timed_out: AtomicBool,
}

struct Search {
    pattern: String,
    base: PathBuf,
    include: Option<Include>,
    case_sensitive: Option<bool>,
    max_results: usize,
    deadline: Instant,
    workspace: Workspace,
    cancel: CancellationToken,
}

impl Shared {
    /// Whether the walk should stop: cancelled, capped, or past the deadline (noted).
    fn stop(&self, s: &Search) -> bool {
        if Instant::now() >= s.deadline {
            self.timed_out.store(true, Ordering::Relaxed);
        }
        s.cancel.is_cancelled()
            || self.capped.load(Ordering::Relaxed)
            || self.timed_out.load(Ordering::Relaxed)
    }

    /// Records one matching line; `false` once the cap is reached.
    fn hit(&self, s: &Search, shown: &str, line: u64, text: &str) -> bool {
        if self.count.fetch_add(1, Ordering::Relaxed) >= s.max_results {
            self.capped.store(true, Ordering::Relaxed);
            return false;
        }
        let text = text.trim_end_matches(['\n', '\r']);
        let (kept, cut) = truncate_chars(text, MAX_LINE_CHARS);
        let text = if cut {
            format!("{kept} ...")
        } else {
            kept.to_string()
        };
        let hit = Hit {
            path: shown.to_string(),
            line,
            text,
        };
        self.hits
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(hit);
        !self.stop(s)
    }
}

/// The pattern as a matcher (smart case unless the call says).
fn matcher(s: &Search) -> Result<RegexMatcher, ToolError> {
    let mut builder = RegexMatcherBuilder::new();
    builder.line_terminator(Some(b'\n'));
    match s.case_sensitive {
        Some(sensitive) => builder.case_insensitive(!sensitive),
        None => builder.case_smart(true),
    };
    builder
        .build(&s.pattern)
        .map_err(|e| ToolError::Retry(format!("invalid regex `{}`: {e}", s.pattern)))
}

/// Trees of up to this many entries are searched on the calling thread: a parallel walk starts its
/// threads for every search and, once idle, polls every millisecond until all are done, which costs
/// more than searching a small tree (~0.5 ms of a 20-file project's search).
const SMALL_TREE: usize = 256;

/// Runs the search on the calling thread (a blocking one) and renders the report.
fn run_search(s: Search) -> Result<String, ToolError> {
    let matcher = matcher(&s)?;
    let beneath = Beneath::new(s.workspace.root()).map_err(|e| io_error(".", e))?;
    let shared = Shared {
        hits: Mutex::new(Vec::new()),
        count: AtomicUsize::new(0),
        skipped: AtomicUsize::new(0),
        capped: AtomicBool::new(false),
        timed_out: AtomicBool::new(false),
    };
    let walk = || {
        let mut builder = WalkBuilder::new(&s.base);
        builder.hidden(true).require_git(false);
        builder
    };
    let small = walk().build().take(SMALL_TREE + 1).collect::<Vec<_>>();
    if small.len() <= SMALL_TREE {
        search_in_turn(small, &s, &shared, &beneath, &matcher);
    } else {
        walk().threads(walk_threads()).build_parallel().run(|| {
            let matcher = matcher.clone();
            let mut searcher = searcher();
            let (s, shared, beneath) = (&s, &shared, &beneath);
            Box::new(move |entry| {
                if shared.stop(s) {
                    return WalkState::Quit;
                }
                match entry {
                    Ok(entry) => visit(&entry, s, shared, beneath, &mut searcher, &matcher),
                    Err(_) => WalkState::Continue,
                }
            })
        });
    }
    if s.cancel.is_cancelled() {
        return Err(ToolError::Cancelled);
    }
    Ok(report(&s, shared))
}

/// A small tree's entries, searched one after the other; what `visit` skips (a secret folder) is not
/// entered.
fn search_in_turn(
    entries: Vec<Result<ignore::DirEntry, ignore::Error>>,
    s: &Search,
    shared: &Shared,
    beneath: &Beneath,
    matcher: &RegexMatcher,
) {
    let mut searcher = searcher();
    let mut skipped: Vec<PathBuf> = Vec::new();
    for entry in entries.into_iter().flatten() {
        if shared.stop(s) {
            return;
        }
        if skipped.iter().any(|dir| entry.path().starts_with(dir)) {
            continue;
        }
        if let WalkState::Skip = visit(&entry, s, shared, beneath, &mut searcher, matcher) {
            skipped.push(entry.path().to_path_buf());
        }
    }
}

/// A searcher of text files (a NUL byte ends a binary file's search), with line numbers.
fn searcher() -> grep_searcher::Searcher {
    SearcherBuilder::new()
        .binary_detection(BinaryDetection::quit(0))
        .line_number(true)
        .build()
}

/// Threads of a parallel walk: the CPUs this process may use, read once (the walker would read the
/// cgroup files again on every search), at most 12 as the walker's own default.
fn walk_threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(12)))
}

/// One entry of the walk: a secret is skipped (and counted), a wanted file searched.
fn visit(
    entry: &ignore::DirEntry,
    s: &Search,
    shared: &Shared,
    beneath: &Beneath,
    searcher: &mut grep_searcher::Searcher,
    matcher: &RegexMatcher,
) -> WalkState {
    let path = entry.path();
    if s.workspace.secrets().reason_for(path).is_some() {
        shared.skipped.fetch_add(1, Ordering::Relaxed);
        return WalkState::Skip;
    }
    let is_file = entry.file_type().is_some_and(|t| t.is_file());
    let wanted = s
        .include
        .as_ref()
        .is_none_or(|inc| inc.matches(path, &s.base, s.workspace.root()));
    if !is_file || !wanted {
        return WalkState::Continue;
    }
    let shown = s.workspace.display(path);
    let sink = Lossy(|line, text: &str| Ok(shared.hit(s, &shown, line, text)));
    // Opened beneath the root with no link followed (the walk follows none either); unreadable
    // files are skipped, as ripgrep does.
    let rel = path.strip_prefix(s.workspace.root()).unwrap_or(path);
    if let Ok(file) = beneath.open_regular(rel) {
        let _ = searcher.search_file(matcher, &file, sink);
    }
    WalkState::Continue
}

/// The hits in path and line order, with what was capped, cut short or skipped.
fn report(s: &Search, shared: Shared) -> String {
    let timed_out = shared.timed_out.load(Ordering::Relaxed);
    let capped = shared.capped.load(Ordering::Relaxed);
    let mut hits = shared.hits.into_inner().unwrap_or_else(|e| e.into_inner());
    hits.sort_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)));
    hits.truncate(s.max_results);
    let shown_base = s.workspace.display(&s.base);
    let skipped = match shared.skipped.load(Ordering::Relaxed) {
        0 => String::new(),
        n => format!("({n} secret file(s) skipped: the agent does not read secrets)\n"),
    };
    if hits.is_empty() && !timed_out {
        return format!(
            "No matches for `{}` in `{shown_base}`.\n{skipped}",
            s.pattern
        )
        .trim_end()
        .to_string();
    }
    let mut out: String = hits
        .iter()
        .map(|h| format!("{}:{}:{}\n", h.path, h.line, h.text))
        .collect();
    if capped {
        out.push_str(&format!(
            "(results capped at {} matches; narrow the pattern, `path` or `include` to see the rest)\n",
            s.max_results
        ));
    }
    if timed_out {
        out.push_str("(search cut short by its time limit; results are incomplete)\n");
    }
    out.push_str(&skipped);
    out
}

#[async_trait]
impl Tool for Grep {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        "Search file contents with a regex (Rust syntax, like ripgrep), skipping ignored, hidden and \
         binary files. Returns `path:line:text` lines sorted by path. An all-lowercase pattern \
         ignores case."
    }

    fn parameters(&self) -> Value {
        // Derived once: the schema is offered to the model on every call.
        static SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<Args>);
        SCHEMA.clone()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::ReadOnly
    }

    async fn call(
        &self,
        args: Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let args: Args = parse(NAME, &args)?;
        let (workspace, path) = (ctx.workspace.clone(), args.path.clone());
        let base = blocking(move || {
            let at = workspace.locate(path.as_deref().unwrap_or("."))?;
            workspace.refuse_secret(&at)?;
            std::fs::metadata(&at.real).map_err(|e| io_error(&workspace.display(&at.real), e))?;
            Ok(at.real)
        })
        .await?;
        let include = match args.include.as_deref().filter(|i| !i.trim().is_empty()) {
            Some(pattern) => Some(Include::new(pattern, "include")?),
            None => None,
        };
        let max_results = args
            .max_results
            .map_or(DEFAULT_MAX_RESULTS, |n| {
                usize::try_from(n).unwrap_or(usize::MAX)
            })
            .clamp(1, MAX_MAX_RESULTS);
        let search = Search {
            pattern: args.pattern,
            base,
            include,
            case_sensitive: args.case_sensitive,
            max_results,
            deadline: Instant::now() + self.deadline,
            workspace: ctx.workspace.clone(),
            cancel: ctx.cancel.clone(),
        };
        let task = tokio::task::spawn_blocking(move || run_search(search));
        tokio::select! {
            _ = ctx.cancel.cancelled() => Err(ToolError::Cancelled),
            result = task => result.map_err(join_error)?.map(ToolOutput::text),
        }
    }
}

#[cfg(test)]
#[path = "grep_tests.rs"]
mod tests;
