//! The workspace's files for `@` completion: a gitignore-aware walk (hidden files skipped, directories
//! listed with a trailing `/`), capped, built off the UI thread, and fuzzy-matched with nucleo.

use std::cmp::{Ordering, Reverse};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, RwLock};

use ignore::WalkBuilder;
use nucleo_matcher::pattern::{AtomKind, CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

/// The most entries an index holds; a bigger workspace is cut (see [`FileIndex::is_truncated`]).
pub const MAX_FILE_ENTRIES: usize = 50_000;

/// The files and directories of a workspace, relative to its root, `/` separated, directories ending in
/// `/`, ordered by depth and then by path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileIndex {
    root: PathBuf,
    entries: Vec<String>,
    truncated: bool,
}

/// One fuzzy match of a [`FileIndex`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileMatch {
    /// The relative path (`src/`, `src/main.rs`).
    pub path: String,
    /// The match score (higher is better; 0 for an empty query).
    pub score: u32,
    /// Positions (in chars) of the matched characters in `path`, ascending.
    pub indices: Vec<u32>,
}

impl FileIndex {
    /// Walks `root` (blocking) and indexes up to [`MAX_FILE_ENTRIES`] entries.
    pub fn build(root: &Path) -> FileIndex {
        Self::build_with_limit(root, MAX_FILE_ENTRIES)
    }

    /// Walks `root` (blocking) and indexes up to `max_entries` entries. Honours `.gitignore` (also
    /// outside a git repository), `.ignore` and global git excludes; skips hidden files and paths an
    /// `@` mention cannot name (spaces, non-ASCII, …).
    pub fn build_with_limit(root: &Path, max_entries: usize) -> FileIndex {
        let mut entries = Vec::new();
        let mut truncated = false;
        let walker = WalkBuilder::new(root)
            .hidden(true)
            .require_git(false)
            .follow_links(false)
            .sort_by_file_name(|a, b| a.cmp(b))
            .build();
        for entry in walker {
            let Ok(entry) = entry else { continue };
            if entry.depth() == 0 {
                continue;
            }
            let Ok(relative) = entry.path().strip_prefix(root) else {
                continue;
            };
            let Some(mut path) = relative_string(relative) else {
                continue;
            };
            if entry.file_type().is_some_and(|t| t.is_dir()) {
                path.push('/');
            }
            if !is_mentionable(&path) {
                continue;
            }
            if entries.len() >= max_entries {
                truncated = true;
                break;
            }
            entries.push(path);
        }
        let mut index = Self::from_entries(entries);
        index.root = root.to_path_buf();
        index.truncated = truncated;
        index
    }

    /// Builds the index on tokio's blocking pool. Needs a tokio runtime; see [`SharedFileIndex`] for a
    /// handle that needs none.
    pub fn spawn(root: PathBuf) -> tokio::task::JoinHandle<FileIndex> {
        tokio::task::spawn_blocking(move || FileIndex::build(&root))
    }

    /// An index over the given relative paths (for tests and benchmarks); they are sorted by depth
    /// and path.
    pub fn from_entries(entries: impl IntoIterator<Item = String>) -> FileIndex {
        let mut entries: Vec<String> = entries.into_iter().collect();
        entries.sort_by(|a, b| depth(a).cmp(&depth(b)).then_with(|| a.cmp(b)));
        entries.dedup();
        FileIndex {
            root: PathBuf::new(),
            entries,
            truncated: false,
        }
    }

    /// The directory that was walked (empty for [`FileIndex::from_entries`]).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// All entries, ordered by depth and then by path.
    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    /// How many entries the index holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the index holds no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether the walk stopped at the entry cap, so some files are missing.
    pub fn is_truncated(&self) -> bool {
        self.truncated
    }

    /// The best `limit` entries for `query`, best first: by score, then shorter path, then
    /// alphabetically. Smart case: an upper-case letter in the query makes it case-sensitive. An empty
    /// query gives the first `limit` entries by depth and name.
    pub fn fuzzy(&self, query: &str, limit: usize) -> Vec<FileMatch> {
        if limit == 0 {
            return Vec::new();
        }
        let pattern = Pattern::new(
            query,
            CaseMatching::Smart,
            Normalization::Smart,
            AtomKind::Fuzzy,
        );
        if pattern.atoms.is_empty() {
            return self
                .entries
                .iter()
                .take(limit)
                .map(|path| FileMatch {
                    path: path.clone(),
                    score: 0,
                    indices: Vec::new(),
                })
                .collect();
        }
        let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
        let mut buf = Vec::new();
        let mut scored: Vec<(u32, &str)> = self
            .entries
            .iter()
            .filter_map(|path| {
                pattern
                    .score(Utf32Str::new(path, &mut buf), &mut matcher)
                    .map(|score| (score, path.as_str()))
            })
            .collect();
        let order = |a: &(u32, &str), b: &(u32, &str)| -> Ordering {
            Reverse(a.0)
                .cmp(&Reverse(b.0))
                .then_with(|| a.1.len().cmp(&b.1.len()))
                .then_with(|| a.1.cmp(b.1))
        };
        if scored.len() > limit {
            scored.select_nth_unstable_by(limit - 1, order);
            scored.truncate(limit);
        }
        scored.sort_unstable_by(order);
        scored
            .into_iter()
            .map(|(score, path)| {
                let mut indices = Vec::new();
                pattern.indices(Utf32Str::new(path, &mut buf), &mut matcher, &mut indices);
                indices.sort_unstable();
                indices.dedup();
                FileMatch {
                    path: path.to_string(),
                    score,
                    indices,
                }
            })
            .collect()
    }
}

/// An index with the generation of the refresh that built it.
type Versioned = (u64, Arc<FileIndex>);

/// A file index shared between the UI and a background builder: empty until the first walk ends, then
/// replaced whole by each refresh, so a keypress never waits on a walk.
#[derive(Debug, Clone, Default)]
pub struct SharedFileIndex {
    current: Arc<RwLock<Option<Versioned>>>,
    generation: Arc<AtomicU64>,
}

impl SharedFileIndex {
    /// A handle with no index yet; call [`SharedFileIndex::refresh`] to fill it.
    pub fn new() -> Self {
        Self::default()
    }

    /// A handle whose index is being built for `root` on a background thread.
    pub fn spawn(root: PathBuf) -> Self {
        let shared = Self::new();
        shared.refresh(root);
        shared
    }

    /// Rebuilds the index for `root` on a background thread (e.g. after files changed); the previous
    /// index stays readable until the new one is ready. A later refresh always wins over an earlier one.
    pub fn refresh(&self, root: PathBuf) {
        let generation = self.generation.fetch_add(1, AtomicOrdering::SeqCst) + 1;
        let shared = self.clone();
        let job = move || shared.store(generation, FileIndex::build(&root));
        if let Err(e) = std::thread::Builder::new()
            .name("tunacode-file-index".into())
            .spawn(job)
        {
            tracing::warn!("could not start the file index thread: {e}");
        }
    }

    /// Installs an index built elsewhere (e.g. by [`FileIndex::spawn`]).
    pub fn set(&self, index: FileIndex) {
        let generation = self.generation.fetch_add(1, AtomicOrdering::SeqCst) + 1;
        self.store(generation, index);
    }

    fn store(&self, generation: u64, index: FileIndex) {
        let mut current = self.current.write().unwrap_or_else(|e| e.into_inner());
        if current.as_ref().is_none_or(|(g, _)| *g < generation) {
            *current = Some((generation, Arc::new(index)));
        }
    }

    /// The latest finished index, if any walk has finished.
    pub fn get(&self) -> Option<Arc<FileIndex>> {
        let current = self.current.read().unwrap_or_else(|e| e.into_inner());
        current.as_ref().map(|(_, index)| Arc::clone(index))
    }

    /// Whether an index is available.
    pub fn is_ready(&self) -> bool {
        self.get().is_some()
    }
}

/// The depth of a relative path: `a` and `a/` are 0, `a/b` is 1.
fn depth(path: &str) -> usize {
    path.trim_end_matches('/').matches('/').count()
}

/// `relative` as a `/`-separated string, or `None` if it is not valid UTF-8.
fn relative_string(relative: &Path) -> Option<String> {
    let mut out = String::new();
    for component in relative.components() {
        if !out.is_empty() {
            out.push('/');
        }
        out.push_str(component.as_os_str().to_str()?);
    }
    (!out.is_empty()).then_some(out)
}

/// Whether an `@path` mention of `path` is recognised by the engine (`tunacode_core` mentions: ASCII
/// letters, digits, `_`, `.`, `/`, `-`, and `~` first).
fn is_mentionable(path: &str) -> bool {
    path.char_indices().all(|(i, c)| {
        c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-') || (i == 0 && c == '~')
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn touch(root: &Path, rel: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "x").unwrap();
    }

    fn paths(matches: &[FileMatch]) -> Vec<&str> {
        matches.iter().map(|m| m.path.as_str()).collect()
    }

    #[test]
    fn walk_honours_gitignore_without_git_and_skips_hidden() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join(".gitignore"), "target/\n*.log\n").unwrap();
        for rel in [
            "Cargo.toml",
            "src/main.rs",
            "src/lib/mod.rs",
            "target/debug/app",
            "debug.log",
            ".env",
            ".github/ci.yml",
            "has space.txt",
        ] {
            touch(root, rel);
        }
        let index = FileIndex::build(root);
        assert_eq!(
            index.entries(),
            [
                "Cargo.toml",
                "src/",
                "src/lib/",
                "src/main.rs",
                "src/lib/mod.rs"
            ]
        );
        assert!(!index.is_truncated());
        assert_eq!(index.root(), root);
    }

    #[test]
    fn walk_stops_at_the_cap_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..10 {
            touch(dir.path(), &format!("f{i}.txt"));
        }
        let index = FileIndex::build_with_limit(dir.path(), 4);
        assert_eq!(index.len(), 4);
        assert!(index.is_truncated());
        assert!(!FileIndex::build_with_limit(dir.path(), 10).is_truncated());
    }

    #[test]
    fn empty_query_lists_shallow_entries_first() {
        let index = FileIndex::from_entries(
            [
                "src/a/b.rs",
                "z.md",
                "src/",
                "src/a/",
                "a.md",
                "src/main.rs",
            ]
            .map(String::from),
        );
        let got = index.fuzzy("", 4);
        assert_eq!(paths(&got), ["a.md", "src/", "z.md", "src/a/"]);
        assert!(got.iter().all(|m| m.score == 0 && m.indices.is_empty()));
        assert_eq!(index.fuzzy("", 0), []);
    }

    #[test]
    fn fuzzy_ranks_best_first_with_indices() {
        let index = FileIndex::from_entries(
            [
                "src/main.rs",
                "src/",
                "docs/maintenance.md",
                "crates/tui/src/main.rs",
                "README.md",
            ]
            .map(String::from),
        );
        let got = index.fuzzy("main", 10);
        assert_eq!(got[0].path, "src/main.rs");
        assert_eq!(got[0].indices, [4, 5, 6, 7]);
        assert!(paths(&got).contains(&"docs/maintenance.md"));
        assert!(!paths(&got).contains(&"README.md"));
        assert!(got.windows(2).all(|w| w[0].score >= w[1].score));
        assert_eq!(index.fuzzy("main", 1).len(), 1);
        assert_eq!(index.fuzzy("qqq", 5), []);
    }

    #[test]
    fn ties_go_to_the_shorter_path_then_alphabetical() {
        let index = FileIndex::from_entries(["b/x.rs", "a/x.rs", "aa/x.rs"].map(String::from));
        let got = index.fuzzy("x.rs", 3);
        assert_eq!(got[0].score, got[1].score);
        assert_eq!(paths(&got), ["a/x.rs", "b/x.rs", "aa/x.rs"]);
    }

    #[test]
    fn smart_case_and_directories_complete() {
        let index = FileIndex::from_entries(["src/", "src/Foo.rs", "src/foo.rs"].map(String::from));
        assert_eq!(paths(&index.fuzzy("Foo", 5)), ["src/Foo.rs"]);
        assert_eq!(index.fuzzy("src/", 1)[0].path, "src/");
    }

    #[test]
    fn shared_index_fills_in_the_background() {
        let dir = tempfile::tempdir().unwrap();
        touch(dir.path(), "a.rs");
        let shared = SharedFileIndex::spawn(dir.path().to_path_buf());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !shared.is_ready() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(shared.get().unwrap().entries(), ["a.rs"]);
        shared.set(FileIndex::from_entries(["b.rs".to_string()]));
        assert_eq!(shared.get().unwrap().entries(), ["b.rs"]);
    }

    #[tokio::test]
    async fn spawn_builds_on_the_blocking_pool() {
        let dir = tempfile::tempdir().unwrap();
        touch(dir.path(), "x/y.rs");
        let index = FileIndex::spawn(dir.path().to_path_buf()).await.unwrap();
        assert_eq!(index.entries(), ["x/", "x/y.rs"]);
    }
}
