//! Static analysis of `bash` command lines: what a line runs ([`Analysis`], on a real parse),
//! whether it is dangerous ([`dangerous_command`]), whether it can only read (so it may run without
//! asking, in parallel with other reads), whether it names a secret file, and what an "allow for
//! this session" approval covers.
//!
//! Everything here is conservative: whatever is not understood is treated as "may write", and
//! whatever cannot be followed as dangerous.

mod analysis;
mod builtins;
mod dangerous;
mod find;
mod follow;
mod git;
mod git_commands;
mod git_config;
mod git_options;
mod invocation;
mod paths;
mod runners;
mod secret_names;
mod simple;
mod step;
mod walk;
mod words;
mod writes;

pub use dangerous::{dangerous_argv, dangerous_command};
pub use invocation::{Analysis, Arg, Input, Invocation, Redirect};
pub use secret_names::names_secret_file;

/// A command line split at its control operators.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine {
    /// The argv of each simple command; empty when `complex`.
    commands: Vec<Vec<String>>,
    /// Per command: whether an unquoted glob may expand to names that look like options.
    glob_risk: Vec<bool>,
    complex: bool,
}

impl CommandLine {
    /// Parses `command`. Never fails: anything it cannot understand makes the line "complex".
    pub fn parse(command: &str) -> CommandLine {
        Self::try_parse(command).unwrap_or(CommandLine {
            commands: Vec::new(),
            glob_risk: Vec::new(),
            complex: true,
        })
    }

    /// The line's simple commands, or `None` when it is complex.
    fn try_parse(command: &str) -> Option<CommandLine> {
        let segments = scan(command)?;
        let mut commands = Vec::with_capacity(segments.len());
        let mut glob_risk = Vec::with_capacity(segments.len());
        for segment in segments {
            let argv = shell_words::split(segment.text).ok()?;
            // An empty command (`ls &&`, `| wc`, ``) or a leading `NAME=value` assignment.
            if is_assignment(argv.first()?) {
                return None;
            }
            commands.push(argv);
            glob_risk.push(segment.glob_risk);
        }
        Some(CommandLine {
            commands,
            glob_risk,
            complex: false,
        })
    }

    /// The argv of each simple command joined by `|`, `&&` or `||`, in order; empty when the line is complex.
    pub fn commands(&self) -> &[Vec<String>] {
        &self.commands
    }

    /// The single simple command (no operators at all), if that is what the line is.
    pub fn simple(&self) -> Option<&[String]> {
        match self.commands.as_slice() {
            [only] if !self.complex => Some(only.as_slice()),
            _ => None,
        }
    }

    /// Whether the line uses anything beyond simple commands joined by `|`, `&&`, `||`: `;`, `&`
    /// (background), newlines, redirections (`>`, `>>`, `<`, `2>`, `&>`, here-docs `<<`), subshells
    /// `( )`, `{ }` groups (and brace expansion), command substitution `$( )` or backticks (also
    /// inside double quotes), process substitution `<( )`/`>( )`, parameter expansion (`$NAME`,
    /// `${…}`), comments, `|&`, leading `NAME=value` assignments, empty commands, or unbalanced quotes.
    pub fn is_complex(&self) -> bool {
        self.complex
    }
}

/// The raw text of one simple command found by [`scan`].
struct Segment<'a> {
    text: &'a str,
    /// An unquoted glob in a word whose expansions could start with `-` (e.g. `*`, `-*`, `'x'*`).
    glob_risk: bool,
}

/// Splits `command` at unquoted `|`, `&&` and `||`; `None` when the line is complex.
///
/// Hand-written on purpose: `shell_words` splits words but neither reports control operators nor
/// tells a quoted metacharacter (`grep 'a;b'`) from an unquoted one (`a;b`), and no maintained
/// small crate parses bash operators. So this scanner tracks single quotes, double quotes and
/// backslash escapes itself, and refuses everything that is not a plain word or one of the three
/// operators.
#[derive(PartialEq)]
enum Quote {
    None,
    Single,
    Double,
}

/// Consumes one character inside quotes; `None` when it starts a substitution (not allowed).
fn quoted(
    quote: &mut Quote,
    c: char,
    next: Option<char>,
    chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>,
) -> Option<()> {
    match quote {
        Quote::Single if c == '\'' => *quote = Quote::None,
        Quote::Double => match c {
            '"' => *quote = Quote::None,
            '\\' => {
                chars.next()?;
            }
            '`' => return None,
            '$' if dollar_expands(next, true) => return None,
            _ => {}
        },
        _ => {}
    }
    Some(())
}

fn scan(command: &str) -> Option<Vec<Segment<'_>>> {
    let mut segments = Vec::new();
    let mut chars = command.char_indices().peekable();
    let mut quote = Quote::None;
    let mut start = 0;
    let mut glob_risk = false;
    let mut in_word = false;
    // Whether the current word's first character keeps every glob expansion from looking like an option.
    let mut safe_lead = false;
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        if quote != Quote::None {
            quoted(&mut quote, c, next, &mut chars)?;
            continue;
        }
        let word_start = !in_word;
        if word_start && !matches!(c, ' ' | '\t' | '|' | '&') {
            in_word = true;
            safe_lead = c.is_ascii_alphanumeric() || "./_~+,@%=:".contains(c);
        }
        match c {
            ' ' | '\t' => in_word = false,
            '\'' => quote = Quote::Single,
            '"' => quote = Quote::Double,
            '\\' => match chars.next() {
                None | Some((_, '\n')) => return None,
                Some(_) => {}
            },
            '$' if dollar_expands(next, false) => return None,
            '#' if word_start => return None,
            '*' | '?' | '[' => glob_risk |= !safe_lead,
            '|' | '&' => {
                let len = operator_len(c, next)?;
                if len == 2 {
                    chars.next();
                }
                segments.push(Segment {
                    text: &command[start..i],
                    glob_risk,
                });
                start = i + len;
                glob_risk = false;
                in_word = false;
            }
            ';' | '\n' | '\r' | '(' | ')' | '<' | '>' | '{' | '}' | '`' => return None,
            _ => {}
        }
    }
    if quote != Quote::None {
        return None;
    }
    segments.push(Segment {
        text: &command[start..],
        glob_risk,
    });
    Some(segments)
}

/// The length of the control operator `c` starts: 2 for `||` and `&&`, 1 for `|`; `None` for `|&`,
/// `&` (background) and `&>`, which make the line complex.
fn operator_len(c: char, next: Option<char>) -> Option<usize> {
    match (c, next) {
        ('|', Some('|')) | ('&', Some('&')) => Some(2),
        ('|', Some('&')) => None,
        ('|', _) => Some(1),
        _ => None,
    }
}

/// Whether a `$` followed by `next` expands something (rather than being a literal `$`).
fn dollar_expands(next: Option<char>, in_double_quotes: bool) -> bool {
    next.is_some_and(|n| {
        n.is_ascii_alphanumeric()
            || "_({[@*#?$!-".contains(n)
            || (!in_double_quotes && (n == '\'' || n == '"'))
    })
}

/// Whether `word` is a shell variable assignment (`NAME=value`, `NAME+=value`).
fn is_assignment(word: &str) -> bool {
    let Some((name, _)) = word.split_once('=') else {
        return false;
    };
    let name = name.strip_suffix('+').unwrap_or(name);
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether running `command` with bash can only read: every simple command in it is a known
/// read-only program invocation, the line is not complex, the real parse of it agrees and it names
/// no secret file (`cat .env` asks). Conservative: unknown means false.
pub fn is_read_only_command(command: &str) -> bool {
    let line = CommandLine::parse(command);
    let shortcut = !line.complex
        && !line.commands.is_empty()
        && line
            .commands
            .iter()
            .zip(&line.glob_risk)
            .all(|(argv, &risk)| is_read_only_argv(argv) && (!risk || glob_safe(argv)));
    // The workspace does not matter here: only problems and secret names are looked at.
    shortcut && {
        let analysis = Analysis::of_line(command, std::path::Path::new("/"));
        analysis.problems.is_empty() && dangerous::secret_named(&analysis).is_none()
    }
}

/// Programs whose second word is a subcommand worth approving as a whole.
const SUBCOMMAND_PROGRAMS: &[&str] = &[
    "git",
    "cargo",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "npx",
    "go",
    "docker",
    "podman",
    "kubectl",
    "make",
    "just",
    "pip",
    "pip3",
    "uv",
    "poetry",
    "gh",
    "dotnet",
    "mvn",
    "gradle",
    "rustup",
    "bundle",
    "rake",
    "deno",
    "terraform",
    "helm",
    "systemctl",
    "brew",
    "apt",
    "apt-get",
];

/// Programs that run other commands: approving "`sudo` + word" would approve anything.
const WRAPPERS: &[&str] = &[
    "sudo", "doas", "env", "xargs", "bash", "sh", "zsh", "fish", "eval", "exec", "nohup",
    "timeout", "nice", "time", "watch", "ssh", "su",
];

/// What "allow for this session" covers for this argv: the program and its subcommand, as
/// written (e.g. `["git", "commit"]`, `["/usr/bin/git", "status"]`), for programs known to have
/// subcommands when the second word is a plain subcommand word; otherwise `None`, meaning only
/// the exact same command is covered.
pub fn session_prefix(argv: &[String]) -> Option<Vec<String>> {
    let [program, sub, ..] = argv else {
        return None;
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    let plain = !sub.starts_with('-')
        && !sub.is_empty()
        && sub
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':'));
    (plain && !WRAPPERS.contains(&name) && SUBCOMMAND_PROGRAMS.contains(&name))
        .then(|| vec![program.clone(), sub.clone()])
}

mod read_only;

use read_only::glob_safe;
pub use read_only::is_read_only_argv;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod corpus_tests;
