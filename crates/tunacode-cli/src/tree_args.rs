//! Arguments of the commands on a session's tree: `undo`, `rewind`, `redo`, `fork`, `export` and
//! `import`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

/// Arguments of `tunacode undo`.
#[derive(Debug, Args)]
pub struct UndoArgs {
    /// The session (default: this project's newest; a unique prefix of its id is enough).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// How many prompts back (default 1: the last one that changed files).
    #[arg(long, value_name = "N")]
    pub to: Option<usize>,
    /// Only list the session's prompts, with the files each changed.
    #[arg(long)]
    pub list: bool,
    /// The project directory (default: the current one).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
}

/// What a rewind puts back.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ModeArg {
    /// The conversation and the files.
    All,
    /// The conversation only.
    Conversation,
    /// The files only.
    Code,
}

/// Arguments of `tunacode rewind`.
#[derive(Debug, Args)]
pub struct RewindArgs {
    /// The session (default: this project's newest; a unique prefix of its id is enough).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// The prompt (1-based) to go back to just before.
    #[arg(long, value_name = "N", required_unless_present = "list")]
    pub to: Option<usize>,
    /// What goes back.
    #[arg(long, value_enum, default_value = "all")]
    pub mode: ModeArg,
    /// Only list the session's prompts, with the files each changed.
    #[arg(long)]
    pub list: bool,
    /// The project directory (default: the current one).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
}

/// Arguments of `tunacode redo`.
#[derive(Debug, Args)]
pub struct RedoArgs {
    /// The session (default: this project's newest).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// The project directory (default: the current one).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
}

/// Arguments of `tunacode fork`.
#[derive(Debug, Args)]
pub struct ForkArgs {
    /// The session (default: this project's newest; a unique prefix of its id is enough).
    pub session: Option<String>,
    /// The prompt (1-based) the new session's history ends after (default: the last).
    #[arg(long, value_name = "N")]
    pub at: Option<usize>,
    /// The project directory (default: the current one).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
}

/// An export's format.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FormatArg {
    /// Markdown.
    Md,
    /// Versioned JSON, for `tunacode import`.
    Json,
    /// A self-contained HTML page.
    Html,
}

/// Arguments of `tunacode export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The session (default: this project's newest; a unique prefix of its id is enough).
    pub session: Option<String>,
    /// The format.
    #[arg(long, value_enum, default_value = "md")]
    pub format: FormatArg,
    /// Write to this file (mode 0600) instead of stdout.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The project directory (default: the current one).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
}

/// Arguments of `tunacode import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// A JSON export (`tunacode export --format json`).
    pub file: PathBuf,
    /// The project directory it joins (default: the current one).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
}
