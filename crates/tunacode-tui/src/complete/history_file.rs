//! Writing the input history off the UI thread: a writer thread owns the file and applies appends
//! and compacting rewrites in the order they were sent; the UI only sends them.

use std::fs::OpenOptions;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;

/// The sending side of a history file's writer thread. Clones share the thread; it ends when the
/// last one is dropped, after the writes already sent.
#[derive(Debug, Clone)]
pub(crate) struct HistoryWriter {
    jobs: mpsc::Sender<Job>,
}

enum Job {
    Append(String),
    Rewrite(Vec<String>),
    Flush(mpsc::Sender<io::Result<()>>),
}

impl HistoryWriter {
    /// Starts the writer of `path`.
    pub(crate) fn spawn(path: PathBuf) -> Self {
        let (jobs, queue) = mpsc::channel();
        let started = std::thread::Builder::new()
            .name("input-history".into())
            .spawn(move || write_jobs(&path, queue));
        if let Err(e) = started {
            tracing::warn!("the input history will not be saved: {e}");
        }
        HistoryWriter { jobs }
    }

    /// Appends one entry.
    pub(crate) fn append(&self, entry: String) {
        let _ = self.jobs.send(Job::Append(entry));
    }

    /// Replaces the file by `entries`.
    pub(crate) fn rewrite(&self, entries: Vec<String>) {
        let _ = self.jobs.send(Job::Rewrite(entries));
    }

    /// Waits until everything sent is written; the first error since the last flush.
    pub(crate) fn flush(&self) -> io::Result<()> {
        let (reply, done) = mpsc::channel();
        if self.jobs.send(Job::Flush(reply)).is_err() {
            return Err(io::Error::other("the input history writer stopped"));
        }
        done.recv()
            .unwrap_or_else(|_| Err(io::Error::other("the input history writer stopped")))
    }
}

/// The writer thread: each job in order; errors are logged and kept for the next flush.
fn write_jobs(path: &Path, queue: mpsc::Receiver<Job>) {
    let mut failed: Option<io::Error> = None;
    for job in queue {
        let written = match job {
            Job::Append(entry) => append(path, &entry),
            Job::Rewrite(entries) => rewrite(path, &entries),
            Job::Flush(reply) => {
                let _ = reply.send(failed.take().map_or(Ok(()), Err));
                continue;
            }
        };
        if let Err(e) = written {
            tracing::warn!("could not write the input history {}: {e}", path.display());
            failed.get_or_insert(e);
        }
    }
}

fn append(path: &Path, entry: &str) -> io::Result<()> {
    let mut line = serde_json::to_string(entry).map_err(io::Error::other)?;
    line.push('\n');
    if let Some(dir) = path.parent() {
        private_dir(dir)?;
    }
    let mut options = OpenOptions::new();
    options.create(true).read(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    // An earlier write that was cut off leaves a line without its newline; start a fresh line.
    if file.metadata()?.len() > 0 {
        file.seek(SeekFrom::End(-1))?;
        let mut last = [0u8; 1];
        file.read_exact(&mut last)?;
        if last[0] != b'\n' {
            line.insert(0, '\n');
        }
    }
    file.write_all(line.as_bytes())?;
    Ok(())
}

/// Replaces the file by `entries`, atomically.
fn rewrite(path: &Path, entries: &[String]) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    private_dir(dir)?;
    let mut body = String::new();
    for entry in entries {
        body.push_str(&serde_json::to_string(entry).map_err(io::Error::other)?);
        body.push('\n');
    }
    let mut builder = tempfile::Builder::new();
    builder.prefix(".tmp-history-").suffix(".jsonl");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600));
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(body.as_bytes())?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Creates `dir` (and its parents) readable by the user alone; an existing one loses group and other
/// access. The history holds what the user typed, secrets pasted by mistake included.
fn private_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let mode = std::fs::metadata(dir)?.permissions().mode();
    if mode & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode & 0o700 | 0o700))?;
    }
    Ok(())
}
