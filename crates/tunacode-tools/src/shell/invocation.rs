//! What an analysis records: each word after expansion ([`Arg`]), each simple command
//! ([`Invocation`]) with its directories and input, each file redirection, and the whole [`Analysis`]
//! of a line. Only the records: making one and asking it questions is `analysis.rs`'s.

use std::path::PathBuf;

/// One word of a command after expansion, as far as the line itself tells.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Arg {
    /// The known text (an unknown part contributes nothing).
    pub text: String,
    /// Part of it is only known when the line runs (an unset variable, a command's output, …).
    pub unknown: bool,
    /// It is an unquoted glob pattern the shell expands to file names.
    pub glob: bool,
    /// It names a pipe to another command's output (process substitution `<(…)`).
    pub generated: bool,
}

impl Arg {
    /// A fully known word.
    pub fn known(text: impl Into<String>) -> Arg {
        Arg {
            text: text.into(),
            ..Arg::default()
        }
    }

    /// A word only known when the line runs.
    pub fn unknown() -> Arg {
        Arg {
            unknown: true,
            ..Arg::default()
        }
    }

    /// The last path component of the text (`/usr/bin/curl` → `curl`).
    pub fn base_name(&self) -> &str {
        base_name(&self.text)
    }
}

/// The last path component of `word`.
pub(super) fn base_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Where a command's standard input comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// The line's own (empty for the `bash` tool).
    Inherited,
    /// A pipe from the commands before it; `download` when one of them fetches from the network.
    Pipe {
        /// Whether an earlier command of the pipeline downloads (`curl`, `wget`, …).
        download: bool,
    },
    /// A here-document or here-string with this text.
    Text(String),
    /// A file (`< file`) or another command's output (`< <(…)`).
    File(Arg),
}

/// One simple command the line runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// Its words after expansion.
    pub argv: Vec<Arg>,
    /// The directories it may run in (`None`: one this analysis cannot tell).
    pub dirs: Vec<Option<PathBuf>>,
    /// Where its standard input comes from.
    pub stdin: Input,
}

impl Invocation {
    /// The program's name without its directory.
    pub fn name(&self) -> &str {
        self.argv.first().map_or("", Arg::base_name)
    }

    /// Its arguments (without the program).
    pub fn args(&self) -> &[Arg] {
        self.argv.get(1..).unwrap_or(&[])
    }
}

/// A file a redirection reads or writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The file.
    pub target: Arg,
    /// Whether it is written (`>`, `>>`, `&>`, `<>`).
    pub writes: bool,
    /// The directories the command runs in.
    pub dirs: Vec<Option<PathBuf>>,
}

/// Everything a command line runs, and what about it could not be followed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Analysis {
    /// Every simple command, in the order the line reaches them (a wrapper and what it runs are
    /// both listed: `env curl x` gives `env curl x` and `curl x`).
    pub invocations: Vec<Invocation>,
    /// Every file redirection.
    pub redirects: Vec<Redirect>,
    /// Why parts of the line cannot be followed (each one makes the line dangerous).
    pub problems: Vec<String>,
}
