//! `read_file`: numbered lines of a text file, a window at a time.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, BufReader};

use crate::args::parse;
use crate::beneath::Beneath;
use crate::fsutil::{blocking, io_error};
use crate::schema::schema_for;
use crate::tool::{Tool, ToolContext, ToolKind, ToolOutput};
use crate::tool_error::ToolError;
use crate::truncate::truncate_chars;
use crate::workspace::{Located, Workspace};
use std::sync::LazyLock;

const NAME: &str = "read_file";
/// Lines shown when no `limit` is given.
const DEFAULT_LIMIT: u64 = 2000;
/// Characters kept of one line.
const MAX_LINE_CHARS: usize = 2000;
/// Bytes kept of one line while reading (enough for `MAX_LINE_CHARS` characters of any width).
const MAX_LINE_BYTES: usize = MAX_LINE_CHARS * 4;
/// Cap on the whole output.
const MAX_OUTPUT_BYTES: usize = 100 * 1024;
/// A NUL byte in this many leading bytes marks a file as binary.
const BINARY_PROBE: u64 = 8192;

/// Reads a text file as numbered lines (`cat -n` style), with an optional window.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadFile;

#[derive(Deserialize, JsonSchema)]
struct Args {
    file_path: String,
    /// First line, 1-based.
    #[schemars(range(min = 1))]
    offset: Option<u64>,
    /// Default 2000.
    #[schemars(range(min = 1))]
    limit: Option<u64>,
}

#[async_trait]
impl Tool for ReadFile {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        "Read a text file as numbered lines (`     N\\tline`; the numbers are not part of the file), \
         up to 2000 by default; pass `offset` and `limit` for another window. Read a file before \
         editing it."
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
        let (workspace, file_path) = (ctx.workspace.clone(), args.file_path.clone());
        let at = blocking(move || {
            let at = workspace.locate(&file_path)?;
            workspace.refuse_secret(&at)?;
            Ok(at)
        })
        .await?;
        let shown = ctx.workspace.display(&at.real);
        let offset = args.offset.unwrap_or(1).max(1);
        let limit = args.limit.unwrap_or(DEFAULT_LIMIT);
        if limit == 0 {
            return Err(ToolError::Retry(
                "invalid arguments for read_file: `limit` must be at least 1".into(),
            ));
        }
        tokio::select! {
            biased;
            _ = ctx.cancel.cancelled() => Err(ToolError::Cancelled),
            result = read_window(&ctx.workspace, &at, &shown, offset, limit) => {
                result.map(ToolOutput::text)
            }
        }
    }
}

/// The file's bytes to read: its text in the editor when there is one, else the file on disk,
/// opened beneath the workspace root with no link followed (a link swapped in since the path was
/// located makes the open fail).
async fn open_source(
    workspace: &Workspace,
    at: &Located,
    shown: &str,
) -> Result<Box<dyn AsyncBufRead + Unpin + Send>, ToolError> {
    let directory = || {
        ToolError::Retry(format!(
            "`{shown}` is a directory; use list_dir to see its entries"
        ))
    };
    if let Some(editor) = workspace.editor() {
        if tokio::fs::metadata(&at.real)
            .await
            .is_ok_and(|m| m.is_dir())
        {
            return Err(directory());
        }
        let text = editor
            .read_text(&at.real)
            .await
            .map_err(|e| io_error(shown, e))?;
        return Ok(Box::new(std::io::Cursor::new(text.into_bytes())));
    }
    let (root, rel, name) = (
        workspace.root().to_path_buf(),
        workspace.relative(at).to_path_buf(),
        shown.to_string(),
    );
    let file = blocking(move || {
        let file = Beneath::new(&root)
            .and_then(|b| b.open_read(&rel))
            .map_err(|e| io_error(&name, e))?;
        let meta = file.metadata().map_err(|e| io_error(&name, e))?;
        Ok((file, meta.is_dir()))
    })
    .await?;
    match file {
        (_, true) => Err(directory()),
        (file, false) => Ok(Box::new(BufReader::with_capacity(
            64 * 1024,
            tokio::fs::File::from_std(file),
        ))),
    }
}

/// Reads lines `offset..offset+limit` of the file at `path` as numbered text with the trailing notes.
async fn read_window(
    workspace: &Workspace,
    at: &Located,
    shown: &str,
    offset: u64,
    limit: u64,
) -> Result<String, ToolError> {
    let mut reader = text_source(workspace, at, shown).await?;
    let end = offset.saturating_add(limit);
    let mut out = String::new();
    let mut line = Vec::new();
    let mut line_no = 0u64;
    let mut last_shown = 0u64;
    let mut capped = false;
    loop {
        let next = line_no + 1;
        let in_window = !capped && next >= offset && next < end;
        let keep = if in_window { MAX_LINE_BYTES } else { 0 };
        let Some(cut) = next_line(&mut reader, keep, &mut line)
            .await
            .map_err(|e| io_error(shown, e))?
        else {
            break;
        };
        line_no = next;
        if !in_window {
            continue;
        }
        let text = String::from_utf8_lossy(&line);
        let (text, cut_chars) = truncate_chars(&text, MAX_LINE_CHARS);
        let marker = if cut || cut_chars {
            " ... [line truncated]"
        } else {
            ""
        };
        let rendered = format!("{line_no:>6}\t{text}{marker}\n");
        if out.len() + rendered.len() > MAX_OUTPUT_BYTES {
            capped = true;
        } else {
            out.push_str(&rendered);
            last_shown = line_no;
        }
    }

    if line_no == 0 {
        return Ok(format!("`{shown}` is empty."));
    }
    if offset > line_no {
        return Err(ToolError::Retry(format!(
            "offset {offset} is past the end of `{shown}`, which has {line_no} lines"
        )));
    }
    out.push_str(&more_note(line_no - last_shown, last_shown, capped));
    Ok(out)
}

/// The file opened as text: its first bytes probed, a binary file refused.
async fn text_source(
    workspace: &Workspace,
    at: &Located,
    shown: &str,
) -> Result<impl AsyncBufRead + Unpin, ToolError> {
    let mut reader = open_source(workspace, at, shown).await?;
    let mut probe = Vec::new();
    (&mut reader)
        .take(BINARY_PROBE)
        .read_to_end(&mut probe)
        .await
        .map_err(|e| io_error(shown, e))?;
    if probe.contains(&0) {
        return Err(ToolError::Retry(format!(
            "`{shown}` is a binary file; read_file only shows text"
        )));
    }
    Ok(std::io::Cursor::new(probe).chain(reader))
}

/// The note after the shown lines: how many remain and where to go on (`""` when none remain).
fn more_note(remaining: u64, last_shown: u64, capped: bool) -> String {
    if capped {
        format!(
            "... output capped at {} KiB; {remaining} more lines; use offset={} to continue\n",
            MAX_OUTPUT_BYTES / 1024,
            last_shown + 1
        )
    } else if remaining > 0 {
        format!(
            "... {remaining} more lines; use offset={} to continue\n",
            last_shown + 1
        )
    } else {
        String::new()
    }
}

/// Reads one line (without its `\n`) into `out`, keeping at most `keep` bytes of it. Returns `None` at
/// the end of input, else whether bytes of the line were dropped.
async fn next_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    keep: usize,
    out: &mut Vec<u8>,
) -> std::io::Result<Option<bool>> {
    out.clear();
    let mut len = 0usize;
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            return Ok((len > 0).then_some(len > keep));
        }
        let (chunk, used, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], i + 1, true),
            None => (buf, buf.len(), false),
        };
        let room = keep.saturating_sub(out.len());
        out.extend_from_slice(&chunk[..chunk.len().min(room)]);
        len += chunk.len();
        reader.consume(used);
        if done {
            return Ok(Some(len > keep));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{args, ctx};
    use serde_json::json;
    use std::path::Path;
    use std::time::Duration;

    async fn read(dir: &Path, a: Value) -> Result<String, ToolError> {
        ReadFile.call(args(a), &ctx(dir)).await.map(|o| o.content)
    }

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    #[tokio::test]
    async fn numbers_lines_cat_n_style() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "alpha\n\n  gamma\nlast").unwrap();
        let out = read(dir.path(), json!({"file_path": "a.txt"}))
            .await
            .unwrap();
        assert_eq!(
            out,
            "     1\talpha\n     2\t\n     3\t  gamma\n     4\tlast\n"
        );
    }

    #[tokio::test]
    async fn offset_and_limit_select_a_window_and_say_how_to_continue() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), numbered(10)).unwrap();
        let out = read(
            dir.path(),
            json!({"file_path": "f", "offset": 3, "limit": 2}),
        )
        .await
        .unwrap();
        assert_eq!(
            out,
            "     3\tline 3\n     4\tline 4\n... 6 more lines; use offset=5 to continue\n"
        );
        let out = read(dir.path(), json!({"file_path": "f", "offset": 9}))
            .await
            .unwrap();
        assert_eq!(out, "     9\tline 9\n    10\tline 10\n");
        let err = read(dir.path(), json!({"file_path": "f", "offset": 11}))
            .await
            .unwrap_err();
        assert!(
            matches!(err, ToolError::Retry(m) if m.contains("past the end") && m.contains("10 lines"))
        );
        let err = read(dir.path(), json!({"file_path": "f", "limit": 0}))
            .await
            .unwrap_err();
        assert!(matches!(err, ToolError::Retry(m) if m.contains("limit")));
    }

    #[tokio::test]
    async fn reads_2000_lines_by_default() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), numbered(2500)).unwrap();
        let out = read(dir.path(), json!({"file_path": "f"})).await.unwrap();
        assert_eq!(out.lines().count(), 2001);
        assert!(out.contains("  2000\tline 2000\n"));
        assert!(!out.contains("line 2001"));
        assert!(
            out.ends_with("... 500 more lines; use offset=2001 to continue\n"),
            "{}",
            &out[out.len() - 100..]
        );
    }

    #[tokio::test]
    async fn truncates_long_lines() {
        let dir = tempfile::tempdir().unwrap();
        let long = "é".repeat(5000);
        std::fs::write(dir.path().join("f"), format!("{long}\nshort\n")).unwrap();
        let out = read(dir.path(), json!({"file_path": "f"})).await.unwrap();
        let first = out.lines().next().unwrap();
        assert!(first.ends_with(" ... [line truncated]"));
        assert_eq!(first.matches('é').count(), MAX_LINE_CHARS);
        assert!(out.contains("     2\tshort\n"));
    }

    #[tokio::test]
    async fn caps_the_total_output() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (1..=3000).map(|i| format!("{i:0>99}\n")).collect();
        std::fs::write(dir.path().join("f"), text).unwrap();
        let out = read(dir.path(), json!({"file_path": "f"})).await.unwrap();
        assert!(out.len() <= MAX_OUTPUT_BYTES + 200, "{}", out.len());
        let shown = out.lines().filter(|l| l.contains('\t')).count();
        assert!(shown > 900 && shown < 1000, "{shown}");
        let note = out.lines().last().unwrap();
        assert_eq!(
            note,
            format!(
                "... output capped at 100 KiB; {} more lines; use offset={} to continue",
                3000 - shown,
                shown + 1
            )
        );
    }

    #[tokio::test]
    async fn refuses_binary_files_directories_and_missing_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bin"), b"ELF\x00\x01\x02text").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let err = read(dir.path(), json!({"file_path": "bin"}))
            .await
            .unwrap_err();
        assert!(matches!(err, ToolError::Retry(m) if m.contains("binary")));
        let err = read(dir.path(), json!({"file_path": "sub"}))
            .await
            .unwrap_err();
        assert!(matches!(err, ToolError::Retry(m) if m.contains("is a directory; use list_dir")));
        let err = read(dir.path(), json!({"file_path": "nope.txt"}))
            .await
            .unwrap_err();
        assert!(
            matches!(err, ToolError::Retry(m) if m.contains("nope.txt") && m.contains("does not exist"))
        );
        let err = read(dir.path(), json!({"file_path": "../outside"}))
            .await
            .unwrap_err();
        assert!(matches!(err, ToolError::Retry(m) if m.contains("outside the workspace")));
        let err = read(dir.path(), json!({"file_path": 3})).await.unwrap_err();
        assert!(matches!(err, ToolError::Retry(m) if m.contains("`file_path`")));
    }

    #[tokio::test]
    async fn empty_file_says_so() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("e"), "").unwrap();
        let out = read(dir.path(), json!({"file_path": "e"})).await.unwrap();
        assert_eq!(out, "`e` is empty.");
    }

    fn mkfifo(path: &Path) {
        let status = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .unwrap();
        assert!(status.success());
    }

    #[tokio::test]
    async fn reads_from_a_named_pipe() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        mkfifo(&fifo);
        let writer_path = fifo.clone();
        let writer = std::thread::spawn(move || std::fs::write(writer_path, "one\ntwo\n").unwrap());
        let out = tokio::time::timeout(
            Duration::from_secs(10),
            read(dir.path(), json!({"file_path": "pipe"})),
        )
        .await
        .expect("read_file must not hang")
        .unwrap();
        writer.join().unwrap();
        assert_eq!(out, "     1\tone\n     2\ttwo\n");
    }

    #[tokio::test]
    async fn cancel_stops_a_blocked_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        mkfifo(&fifo);
        let ctx = ctx(dir.path());
        let cancel = ctx.cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            cancel.cancel();
        });
        let result = tokio::time::timeout(
            Duration::from_secs(10),
            ReadFile.call(args(json!({"file_path": "pipe"})), &ctx),
        )
        .await
        .expect("cancel must stop the read");
        assert_eq!(result, Err(ToolError::Cancelled));
        // Unblock the reader left waiting on the pipe so the runtime can shut down.
        drop(std::fs::OpenOptions::new().write(true).open(&fifo).unwrap());
    }

    #[tokio::test]
    async fn secrets_and_links_out_are_refused_links_inside_are_read_once() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join(".env"), "KEY=secret-value\n").unwrap();
        std::fs::write(root.join(".env.example"), "KEY=\n").unwrap();
        std::fs::write(outside.path().join("x"), "outside-value\n").unwrap();
        std::os::unix::fs::symlink(".env", root.join("notes.txt")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("x"), root.join("out")).unwrap();
        std::os::unix::fs::symlink(".env.example", root.join("example")).unwrap();
        for path in [".env", ".env ", "src/../.env", "notes.txt", "out"] {
            let err = read(root, json!({"file_path": path})).await.unwrap_err();
            let text = err.to_string();
            assert!(
                text.contains("secrets file") || text.contains("outside"),
                "{path}: {text}"
            );
            assert!(!text.contains("-value"), "{path}: {text}");
        }
        for path in [".env.example", "example"] {
            let out = read(root, json!({"file_path": path})).await.unwrap();
            assert_eq!(out, "     1\tKEY=\n", "{path}");
        }
    }
}
