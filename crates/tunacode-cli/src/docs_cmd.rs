//! `tunacode completions SHELL` and `tunacode man`: generated from the clap definitions, so they never
//! drift from the real flags.

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
