//! `tunacode completions SHELL`, `tunacode man` and `tunacode schema`: generated from the clap
//! definitions and the stream-json types, so they never drift from the real flags and lines.

use std::io::Write;

use clap::CommandFactory;

use crate::args::Cli;

/// Prints the completion script for `shell`.
pub fn completions(shell: clap_complete::Shell) -> anyhow::Result<u8> {
    let mut command = Cli::command();
    let mut out = std::io::stdout().lock();
    clap_complete::generate(shell, &mut command, "tunacode", &mut out);
    out.flush()?;
    Ok(0)
}

/// Prints the man page.
pub fn man() -> anyhow::Result<u8> {
    let page = clap_mangen::Man::new(Cli::command());
    let mut out = std::io::stdout().lock();
    match page.render(&mut out).and_then(|()| out.flush()) {
        // A pager or `head` that stops reading is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(0),
        other => other.map(|()| 0).map_err(Into::into),
    }
}

/// Prints the JSON schema of the stream-json format (the one `docs/stream-json.schema.json` holds).
pub fn schema() -> anyhow::Result<u8> {
    let text = serde_json::to_string_pretty(&tunacode_protocol::stream::json_schema())?;
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(0),
        other => other.map(|()| 0).map_err(Into::into),
    }
}
