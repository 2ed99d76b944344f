//! Commands that can do damage no sandbox undoes (or that leave it), recognised on the real parse of
//! the line ([`Analysis`]): every simple command it runs (inside `sh -c`, `eval`, substitutions,
//! functions, `xargs`, `find -exec` and wrappers too) with its words expanded as far as the line tells.
//! Dangerous are: whatever cannot be followed (unknown command names, code only known when it runs, a
//! line that does not parse); recursive deletes (`rm -r`, `find -delete`, `find -exec rm`) of `/`,
//! `~`, `.git`, the workspace, a glob over all of it, a path only known when it runs, or anything
//! outside it but below a temporary directory; dangerous git (see `git`); `chmod`/`chown -R` on such
//! targets or making a tree world-writable; `dd` or a redirection onto a device, `mkfs`; `sudo` and
//! friends; interpreters given inline code and shells or interpreters fed code through a pipe or
//! another command's output (`curl … | sh`, `sh <(curl …)`); `awk` programs that run commands; and
//! naming a secret file (`.env`). A word that only mentions one (`echo "rm -rf /"`) is not run.

use std::path::Path;

use super::analysis::operand_texts;
use super::find::Find;
use super::git::dangerous_git;
use super::git_options::revision_paths;
use super::invocation::{Analysis, Arg, Invocation};
use super::paths::target_danger;
use super::runners::runner_danger;
use super::secret_names::{glob_may_name_secret, names_secret_file};
use super::writes::write_danger;

/// Why the command line `line` (run with bash in `workspace`) is dangerous, if it is.
pub fn dangerous_command(line: &str, workspace: &Path) -> Option<String> {
    analysis_danger(&Analysis::of_line(line, workspace), workspace)
}

/// Why running `argv` (without a shell) in `workspace` is dangerous, if it is.
pub fn dangerous_argv(argv: &[String], workspace: &Path) -> Option<String> {
    analysis_danger(&Analysis::of_argv(argv, workspace), workspace)
}

/// Why what `analysis` found is dangerous, if it is.
pub(super) fn analysis_danger(analysis: &Analysis, workspace: &Path) -> Option<String> {
    if let Some(problem) = analysis.problems.first() {
        return Some(problem.clone());
    }
    // Code fed to a shell is named first: `curl … | sudo sh` is about the download.
    let invocations = &analysis.invocations;
    if let Some(why) = invocations.iter().find_map(runner_danger) {
        return Some(why);
    }
    if let Some(why) = invocations
        .iter()
        .find_map(|i| invocation_danger(i, workspace))
    {
        return Some(why);
    }
    for redirect in analysis.redirects.iter().filter(|r| r.writes) {
        if let Some(device) = device(&redirect.target.text) {
            return Some(format!("a redirection writes onto the device {device}"));
        }
    }
    write_danger(analysis).or_else(|| secret_named(analysis))
}

/// Why the line names a secret file, if it does.
pub(super) fn secret_named(analysis: &Analysis) -> Option<String> {
    let words = analysis
        .invocations
        .iter()
        .flat_map(|inv| inv.argv.iter())
        .chain(analysis.redirects.iter().map(|r| &r.target));
    // `git show HEAD:.env` prints the committed `.env`.
    let revisions = analysis
        .invocations
        .iter()
        .filter(|inv| inv.name() == "git")
        .flat_map(|inv| revision_paths(inv.args()));
    let named = |text: &str| {
        format!("it names the secret file `{text}`, whose contents only the user may share")
    };
    for word in words {
        for text in operand_texts(&word.text) {
            if names_secret_file(text) || (word.glob && glob_may_name_secret(text)) {
                return Some(named(text));
            }
        }
    }
    revisions
        .into_iter()
        .find(|p| names_secret_file(p))
        .map(named)
}

/// Why one command is dangerous, if it is.
fn invocation_danger(inv: &Invocation, workspace: &Path) -> Option<String> {
    let name = inv.name();
    let args = inv.args();
    match name {
        "sudo" | "doas" | "su" | "pkexec" | "run0" => {
            Some(format!("`{name}` runs a command as another user"))
        }
        "rm" => recursive_delete(inv, workspace),
        "find" => find_delete(inv, workspace),
        "git" => dangerous_git(inv, workspace),
        "chmod" | "chown" | "chgrp" => recursive_permissions(inv, workspace),
        "dd" => args
            .iter()
            .find_map(|a| a.text.strip_prefix("of=").and_then(device))
            .map(|target| format!("`dd` writes onto the device {target}")),
        "wipefs" | "mkswap" => Some(format!("`{name}` erases a disk's signatures")),
        n if n == "mkfs" || n.starts_with("mkfs.") => {
            Some(format!("`{n}` makes a file system, erasing what was there"))
        }
        "awk" | "gawk" | "mawk" | "nawk" => awk_runs_commands(args)
            .then(|| format!("the `{name}` program runs commands (`system`, pipes)")),
        "source" | "." => args
            .first()
            .filter(|a| a.generated || a.text == "/dev/stdin" || a.text.starts_with("/dev/fd/"))
            .map(|_| format!("`{name}` runs code produced by another command")),
        _ => runner_danger(inv),
    }
}

/// `path` when it is a device a write could destroy (not `/dev/null`, a terminal, a descriptor, …).
fn device(path: &str) -> Option<&str> {
    const HARMLESS: &[&str] = &[
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/random",
        "/dev/urandom",
        "/dev/stdout",
        "/dev/stderr",
        "/dev/stdin",
        "/dev/tty",
    ];
    const HARMLESS_DIRS: &[&str] = &[
        "/dev/fd/",
        "/dev/pts/",
        "/dev/shm/",
        "/dev/tcp/",
        "/dev/udp/",
    ];
    let harmless = HARMLESS.contains(&path) || HARMLESS_DIRS.iter().any(|d| path.starts_with(d));
    (path.starts_with("/dev/") && !harmless).then_some(path)
}

/// Whether `args` ask for recursion (`-r`, `-R`, `-fr`, `--recursive`) before any `--`.
fn recursive(args: &[Arg], letters: &str) -> bool {
    args.iter().take_while(|a| a.text != "--").any(|a| {
        let t = a.text.as_str();
        t == "--recursive"
            || (t.starts_with('-')
                && !t.starts_with("--")
                && t[1..].contains(|c| letters.contains(c)))
    })
}

/// The operands of a command whose options all start with `-` (and an unknown word, which may be
/// anything).
fn operands(args: &[Arg]) -> Vec<&Arg> {
    let mut out = Vec::new();
    let mut options_done = false;
    for arg in args {
        if !options_done && arg.text == "--" {
            options_done = true;
        } else if options_done || arg.unknown || !arg.text.starts_with('-') || arg.text == "-" {
            out.push(arg);
        }
    }
    out
}

/// `rm -r` of anything [`target_danger`] refuses.
fn recursive_delete(inv: &Invocation, workspace: &Path) -> Option<String> {
    let args = inv.args();
    if !recursive(args, "rR") {
        return None;
    }
    operands(args).into_iter().find_map(|target| {
        target_danger(target, &inv.dirs, workspace)
            .map(|why| format!("`rm -r {}` deletes {why}", shown(target)))
    })
}

/// A target as written for a reason.
fn shown(target: &Arg) -> &str {
    if target.text.is_empty() {
        "…"
    } else {
        &target.text
    }
}

/// `find … -delete` (or `-exec rm`) over what [`target_danger`] refuses.
fn find_delete(inv: &Invocation, workspace: &Path) -> Option<String> {
    let find = Find::parse(inv.args());
    if !find.deletes() {
        return None;
    }
    find.roots
        .iter()
        .zip(find.found())
        .find_map(|(root, target)| {
            target_danger(&target, &inv.dirs, workspace)
                .map(|why| format!("`find {} …` deletes {why}", shown(root)))
        })
}

/// `chmod -R`/`chown -R` of a broad target, or `chmod -R` making a tree world-writable.
fn recursive_permissions(inv: &Invocation, workspace: &Path) -> Option<String> {
    let name = inv.name();
    let args = inv.args();
    if !recursive(args, "R") {
        return None;
    }
    let mode_like = |a: &Arg| {
        name == "chmod"
            && a.text.len() > 1
            && a.text.starts_with('-')
            && a.text[1..].chars().all(|c| "rwxXst".contains(c))
    };
    let mut operands: Vec<&Arg> = args
        .iter()
        .filter(|a| a.unknown || !a.text.starts_with('-') || mode_like(a))
        .collect();
    if !args.iter().any(|a| a.text.starts_with("--reference")) && !operands.is_empty() {
        let mode = operands.remove(0);
        if name == "chmod" && world_writable(&mode.text) {
            return Some(format!(
                "`chmod -R {}` makes a whole tree writable by everyone",
                mode.text
            ));
        }
    }
    operands.into_iter().find_map(|target| {
        target_danger(target, &inv.dirs, workspace)
            .map(|why| format!("`{name} -R` changes the permissions of {why}"))
    })
}

/// Whether a `chmod` mode lets everyone write (`777`, `o+w`, `a=rwx`, …).
fn world_writable(mode: &str) -> bool {
    if !mode.is_empty() && mode.chars().all(|c| c.is_digit(8)) {
        return mode
            .chars()
            .last()
            .and_then(|c| c.to_digit(8))
            .is_some_and(|others| others & 2 != 0);
    }
    mode.split(',').any(|clause| {
        let who: String = clause.chars().take_while(|c| "ugoa".contains(*c)).collect();
        let rest = &clause[who.len()..];
        (who.contains('o') || who.contains('a'))
            && rest
                .split(['-'])
                .next()
                .is_some_and(|granted| granted.contains(['+', '=']) && granted.contains('w'))
    })
}

/// Whether an `awk` program runs commands: `system(…)`, `cmd | getline`, `print … | cmd`, `|&`.
fn awk_runs_commands(args: &[Arg]) -> bool {
    let mut i = 0;
    let program = loop {
        let Some(arg) = args.get(i) else { return false };
        match arg.text.as_str() {
            "-f" | "--file" => return false,
            "-F" | "-v" | "--assign" | "--field-separator" => i += 2,
            t if t.starts_with('-') => i += 1,
            _ => break arg,
        }
    };
    if program.unknown {
        return true;
    }
    let text = program.text.as_str();
    text.contains("system")
        || text.contains("|&")
        || text.contains("getline") && text.split("||").any(|part| part.contains('|'))
        || text.split("print").skip(1).any(|statement| {
            statement
                .split([';', '}', '\n'])
                .next()
                .is_some_and(|s| s.replace("||", "").contains('|'))
        })
}

#[cfg(test)]
#[path = "dangerous_tests.rs"]
mod tests;
