//! `tunacode completions SHELL`, `tunacode man` and `tunacode schema`: generated from the clap
//! definitions and the stream-json types, so they never drift from the real flags and lines.

use std::io::Write;

use clap::CommandFactory;

use crate::args::Cli;

/// Prints the completion script for `shell`.
pub fn completions(shell: clap_complete::Shell) -> anyhow::Result<u8> {
    let mut command = Cli::command();
    // Generated whole first: clap_complete panics on a write error, and `| head` closes the pipe.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "tunacode", &mut script);
    write_stdout(&script)
}

/// Prints the man page: the top-level flags, then a section per command with its own synopsis and
/// options (one page, so nothing points to pages that are not installed).
pub fn man() -> anyhow::Result<u8> {
    let mut command = Cli::command();
    command.build();
    let top = clap_mangen::Man::new(command.clone());
    let mut page = Vec::new();
    top.render_title(&mut page)?;
    top.render_name_section(&mut page)?;
    top.render_synopsis_section(&mut page)?;
    top.render_description_section(&mut page)?;
    top.render_options_section(&mut page)?;
    for sub in documented(&command) {
        command_section(&mut page, "TUNACODE", sub)?;
    }
    top.render_version_section(&mut page)?;
    write_stdout(&page)
}

/// `sub`'s section of the man page (`parent` names the command it belongs to): its synopsis,
/// description and options as subsections, then its own commands' sections.
fn command_section(page: &mut Vec<u8>, parent: &str, sub: &clap::Command) -> std::io::Result<()> {
    let name = format!("{parent} {}", sub.get_name().to_uppercase());
    writeln!(page, ".SH \"{name}\"")?;
    let man = clap_mangen::Man::new(sub.clone());
    let mut body = Vec::new();
    man.render_synopsis_section(&mut body)?;
    man.render_description_section(&mut body)?;
    if sub.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut body)?;
    }
    // Each part renders as a section of its own page: here they are subsections of the command's.
    for line in String::from_utf8_lossy(&body).lines() {
        match line.strip_prefix(".SH ") {
            Some(heading) => writeln!(page, ".SS {heading}")?,
            None => writeln!(page, "{line}")?,
        }
    }
    for nested in documented(sub) {
        command_section(page, &name, nested)?;
    }
    Ok(())
}

/// `command`'s commands a man page documents (not clap's own `help`).
fn documented(command: &clap::Command) -> impl Iterator<Item = &clap::Command> {
    command
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
}

/// Writes `bytes` to stdout; a pager or `head` that stops reading is not an error.
fn write_stdout(bytes: &[u8]) -> anyhow::Result<u8> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(0),
        other => other.map(|()| 0).map_err(Into::into),
    }
}

/// Prints the JSON schema of the stream-json format (the one `docs/stream-json.schema.json` holds).
pub fn schema() -> anyhow::Result<u8> {
    let mut text = serde_json::to_string_pretty(&tunacode_protocol::stream::json_schema())?;
    text.push('\n');
    write_stdout(text.as_bytes())
}
