//! [`Analysis`] of a command line: how one is made (a walk over a real parse) and what is asked of it
//! (the commands as text, the paths they name). What a command line runs, as a real parse of it sees it: every simple command (inside `sh -c`,
//! `eval`, substitutions, functions, `xargs`, `find -exec` and wrappers such as `env` or `timeout`
//! too), with its words expanded as far as the line itself tells (variables it assigns, `cd`s it
//! makes), and what could not be followed.
//!
//! The parser is `brush-parser` (the parser of the `brush` shell): a maintained, MIT-licensed bash
//! parser with a typed syntax tree and a word parser (quotes, parameter expansions, command
//! substitutions, brace expansion), written in Rust with no C to build. The alternatives were
//! weighed: `yash-syntax` is GPL, `conch-parser` has been unmaintained since 2018, and
//! `tree-sitter-bash` compiles a 10 MB C grammar that recovers from errors (so a line bash refuses may
//! still look harmless) and leaves quote removal and expansion to us.

use std::path::{Path, PathBuf};

use super::git_options::{revision_paths, without_global_options};
use super::invocation::{Analysis, Arg, Input, base_name};
use super::walk::Walker;

impl Analysis {
    /// Analyses `line` as `bash -c` runs it in `workspace`.
    pub fn of_line(line: &str, workspace: &Path) -> Analysis {
        Walker::top_level(workspace, |walker, state| walker.code(line, state))
    }

    /// Analyses `argv` run without a shell in `workspace` (the `run_command` tool).
    pub fn of_argv(argv: &[String], workspace: &Path) -> Analysis {
        let argv: Vec<Arg> = argv.iter().map(Arg::known).collect();
        Walker::top_level(workspace, |walker, state| {
            walker.run(argv, state, &Input::Inherited);
        })
    }

    /// Each command as text, for permission rules: its words joined with spaces, and again with the
    /// program's directory dropped (`/usr/bin/curl x` → `curl x`); for `git`, each of these again
    /// without git's global options (`git -C . push` → `git push`), so that a rule about a git
    /// subcommand sees it however it is called.
    pub fn command_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for inv in &self.invocations {
            let words: Vec<&str> = inv.argv.iter().map(|a| a.text.as_str()).collect();
            push_spellings(&mut lines, &words);
            if inv.name() == "git"
                && let Some(words) = without_global_options(&inv.argv)
            {
                push_spellings(&mut lines, &words);
            }
        }
        let mut seen = std::collections::HashSet::new();
        lines.retain(|line| seen.insert(line.clone()));
        lines
    }

    /// The paths the commands' operands and redirections name, resolved as the file tools resolve
    /// paths against the directories they run in (`workspace` when that is unknown): the files a
    /// command may read. A glob is there as written (`src/*.rs`; see [`Analysis::glob_operand_paths`]);
    /// the path of a git `<rev>:<path>` word (`git show HEAD:secret.txt`) is resolved against the
    /// workspace too, as the top of the repository.
    pub fn operand_paths(&self, workspace: &Path) -> Vec<PathBuf> {
        self.operands(workspace, false)
    }

    /// The operands of [`Analysis::operand_paths`] that are globs the shell expands (`secr*`,
    /// `*/.env`), resolved the same way: what they name is only known when the line runs.
    pub fn glob_operand_paths(&self, workspace: &Path) -> Vec<PathBuf> {
        self.operands(workspace, true)
    }

    fn operands(&self, workspace: &Path, only_globs: bool) -> Vec<PathBuf> {
        let mut paths = Vec::new();
        let mut add = |arg: &Arg, texts: Vec<&str>, dirs: &[Option<PathBuf>]| {
            if only_globs && !arg.glob {
                return;
            }
            for text in texts {
                for dir in dirs {
                    let dir = dir.as_deref().unwrap_or(workspace);
                    paths.extend(crate::workspace::resolve_lexically(dir, text));
                }
            }
        };
        for inv in &self.invocations {
            for arg in inv.args() {
                add(arg, operand_texts(&arg.text), &inv.dirs);
            }
            if inv.name() == "git" && !only_globs {
                let mut dirs = inv.dirs.clone();
                dirs.push(Some(workspace.to_path_buf()));
                for path in revision_paths(inv.args()) {
                    add(&Arg::known(path), vec![path], &dirs);
                }
            }
        }
        for redirect in &self.redirects {
            add(
                &redirect.target,
                operand_texts(&redirect.target.text),
                &redirect.dirs,
            );
        }
        paths.sort();
        paths.dedup();
        paths
    }
}

/// Adds `words` joined with spaces, and again with the program's directory dropped.
fn push_spellings(lines: &mut Vec<String>, words: &[&str]) {
    lines.push(words.join(" "));
    if let Some((program, rest)) = words.split_first() {
        let base = base_name(program);
        if base != *program {
            let mut short = vec![base];
            short.extend(rest);
            lines.push(short.join(" "));
        }
    }
}

/// The parts of one word that may name a file: the word, unless it is an option, and the value of
/// an `--option=value` or `NAME=value` word.
pub(super) fn operand_texts(word: &str) -> Vec<&str> {
    let mut texts = Vec::new();
    if word.is_empty() {
        return texts;
    }
    if !word.starts_with('-') {
        texts.push(word);
    }
    if let Some((_, value)) = word.split_once('=')
        && !value.is_empty()
    {
        texts.push(value);
    }
    texts
}
