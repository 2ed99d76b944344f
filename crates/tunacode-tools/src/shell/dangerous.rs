//! Commands that can do damage no sandbox undoes (or that leave it): recursive deletes of `/`, `~`,
//! `.git`, the workspace or anything outside it; `git push --force`, `git reset --hard`, `git clean
//! -f`; piping a download into a shell; `chmod -R 777`; `dd` onto a device and `mkfs`; `sudo`. They are
//! recognised from the parsed command line: the line is cut at every operator (`;`, `&&`, `|`, `&`,
//! newlines, subshells, substitutions) and each command's words are looked at, so quoting or
//! chaining does not hide one, and a word that only mentions one (`echo "rm -rf /"`) does not trip it.

use std::path::{Component, Path, PathBuf};

/// Why the command line `line` (run with bash in `workspace`) is dangerous, if it is. A `cd` in the
/// line moves where later relative paths point (`cd /; rm -rf home`).
pub fn dangerous_command(line: &str, workspace: &Path) -> Option<String> {
    let mut here = Some(workspace.to_path_buf());
    for pipeline in split_pipelines(line) {
        let argvs: Vec<Vec<String>> = pipeline.iter().map(|c| words(c)).collect();
        if let Some(reason) = download_into_shell(&argvs) {
            return Some(reason);
        }
        for argv in &argvs {
            if let Some(reason) = argv_danger(argv, workspace, here.as_deref()) {
                return Some(reason);
            }
            if strip_wrappers(argv).first().map(String::as_str) == Some("cd") {
                here = change_dir(here.as_deref(), strip_wrappers(argv).get(1));
            }
        }
    }
    None
}

/// Where `cd target` leads from `here` (`None`: somewhere this cannot tell, like `~` or `$DIR`).
fn change_dir(here: Option<&Path>, target: Option<&String>) -> Option<PathBuf> {
    let target = target?;
    if target.starts_with('~') || target.starts_with('$') || target == "-" {
        return None;
    }
    normalize(here?, target)
}

/// Why running `argv` (without a shell) in `workspace` is dangerous, if it is.
pub fn dangerous_argv(argv: &[String], workspace: &Path) -> Option<String> {
    argv_danger(argv, workspace, Some(workspace))
}

/// [`dangerous_argv`] with relative paths taken from `here` (`None`: a directory this cannot tell).
fn argv_danger(argv: &[String], workspace: &Path, here: Option<&Path>) -> Option<String> {
    let argv = strip_wrappers(argv);
    let (program, args) = argv.split_first()?;
    let name = program.rsplit('/').next().unwrap_or(program);
    match name {
        "sudo" | "doas" | "su" | "pkexec" => {
            Some(format!("`{name}` runs a command as another user"))
        }
        "bash" | "sh" | "zsh" | "dash" => {
            shell_c(args).and_then(|l| dangerous_command(l, workspace))
        }
        "rm" => recursive_delete(args, workspace, here),
        "git" => dangerous_git(args),
        "chmod" => world_writable(args),
        "dd" => args
            .iter()
            .find_map(|a| a.strip_prefix("of=").filter(|t| t.starts_with("/dev/")))
            .map(|target| format!("`dd` writes onto the device {target}")),
        n if n == "mkfs" || n.starts_with("mkfs.") => {
            Some(format!("`{n}` makes a file system, erasing what was there"))
        }
        _ => None,
    }
}

/// The words of one simple command, without leading `NAME=value` assignments.
fn words(command: &str) -> Vec<String> {
    let argv = shell_words::split(command)
        .unwrap_or_else(|_| command.split_whitespace().map(str::to_string).collect());
    argv.into_iter()
        .skip_while(|w| w.contains('=') && !w.starts_with('-') && !w.starts_with('='))
        .collect()
}

/// Drops wrappers that run the rest of the words as a command (`env`, `nohup`, `time`, `command`,
/// `exec`, `nice`, `xargs`).
fn strip_wrappers(argv: &[String]) -> &[String] {
    let mut rest = argv;
    while let Some((first, tail)) = rest.split_first() {
        let wrapper = matches!(
            first.as_str(),
            "env" | "nohup" | "time" | "command" | "exec" | "nice" | "xargs" | "builtin"
        );
        if !wrapper {
            break;
        }
        rest = tail;
        while rest
            .first()
            .is_some_and(|w| w.starts_with('-') || (w.contains('=') && !w.starts_with('/')))
        {
            rest = &rest[1..];
        }
    }
    rest
}

/// The line of `sh -c LINE`.
fn shell_c(args: &[String]) -> Option<&str> {
    let at = args.iter().position(|a| {
        a == "-c" || (a.starts_with('-') && a.ends_with('c') && !a.starts_with("--"))
    })?;
    args.get(at + 1).map(String::as_str)
}

/// Splits a line into pipelines (at `;`, `&&`, `||`, `&`, newlines and the edges of subshells and
/// substitutions), each a list of commands (split at `|`). Quotes are respected; what is inside
/// `$( )`, backticks and `( )` is looked at as commands of its own.
fn split_pipelines(line: &str) -> Vec<Vec<String>> {
    let mut pipelines = vec![vec![String::new()]];
    let mut quote: Option<char> = None;
    let mut chars = line.chars().peekable();
    let end_pipeline = |p: &mut Vec<Vec<String>>| p.push(vec![String::new()]);
    while let Some(c) = chars.next() {
        let current = pipelines.last_mut().and_then(|p| p.last_mut());
        let Some(current) = current else { break };
        match (quote, c) {
            (Some(q), _) if c == q => {
                quote = None;
                current.push(c);
            }
            (Some('"'), '`') | (None, '`') => end_pipeline(&mut pipelines),
            (Some('"'), '$') if chars.peek() == Some(&'(') => {
                chars.next();
                end_pipeline(&mut pipelines);
            }
            (Some(_), _) => current.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                current.push(c);
            }
            (None, '\\') => {
                current.push(c);
                if let Some(n) = chars.next() {
                    current.push(n);
                }
            }
            (None, '|') if chars.peek() == Some(&'|') => {
                chars.next();
                end_pipeline(&mut pipelines);
            }
            (None, '|') => {
                if let Some(p) = pipelines.last_mut() {
                    p.push(String::new());
                }
            }
            (None, ';' | '&' | '\n' | '(' | ')' | '{' | '}') => end_pipeline(&mut pipelines),
            (None, '$') if chars.peek() == Some(&'(') => {
                chars.next();
                end_pipeline(&mut pipelines);
            }
            (None, _) => current.push(c),
        }
    }
    pipelines
        .into_iter()
        .map(|p| {
            p.into_iter()
                .filter(|c| !c.trim().is_empty())
                .collect::<Vec<_>>()
        })
        .filter(|p: &Vec<String>| !p.is_empty())
        .collect()
}

/// `curl … | sh`: a download piped into an interpreter.
fn download_into_shell(argvs: &[Vec<String>]) -> Option<String> {
    let downloads = argvs.iter().position(|a| {
        matches!(
            strip_wrappers(a).first().map(String::as_str),
            Some("curl" | "wget")
        )
    })?;
    argvs[downloads + 1..].iter().find_map(|argv| {
        let argv = strip_wrappers(argv);
        let program = argv.first()?.rsplit('/').next()?.to_string();
        matches!(
            program.as_str(),
            "sh" | "bash"
                | "zsh"
                | "dash"
                | "python"
                | "python3"
                | "perl"
                | "ruby"
                | "node"
                | "sudo"
        )
        .then(|| format!("a download is piped into `{program}`, which runs whatever it fetched"))
    })
}

fn has_flag(args: &[String], long: &[&str], short: char) -> bool {
    args.iter().any(|a| {
        long.contains(&a.as_str())
            || (a.starts_with('-') && !a.starts_with("--") && a[1..].contains(short))
    })
}

/// `rm -r` of `/`, `~`, `.git`, the workspace itself, or anything outside it (relative paths taken
/// from `here`).
fn recursive_delete(args: &[String], workspace: &Path, here: Option<&Path>) -> Option<String> {
    if !has_flag(args, &["--recursive"], 'r') && !has_flag(args, &[], 'R') {
        return None;
    }
    let targets = args
        .iter()
        .filter(|a| !a.starts_with('-') || a.as_str() == "-");
    for target in targets {
        let trimmed = target.trim_end_matches('/');
        let why = if trimmed.is_empty() || trimmed == "/*" {
            Some("the root directory")
        } else if trimmed == "~" || trimmed.starts_with("~/") || trimmed.starts_with("$HOME") {
            Some("the home directory")
        } else if trimmed == ".git" || trimmed.ends_with("/.git") {
            Some("the repository's .git")
        } else {
            match here.and_then(|dir| normalize(dir, trimmed)) {
                Some(path) if path == workspace => Some("the whole workspace"),
                Some(path) if path.starts_with(workspace) => None,
                _ => Some("a path outside the workspace"),
            }
        };
        if let Some(why) = why {
            return Some(format!("`rm -r {target}` deletes {why}"));
        }
    }
    None
}

/// `target` resolved against `workspace` without touching the disk (`..` popped); `None` when it
/// climbs above the root.
fn normalize(workspace: &Path, target: &str) -> Option<PathBuf> {
    let joined = workspace.join(target.trim_end_matches("/*"));
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// `git push --force`, `git reset --hard`, `git clean -f`.
fn dangerous_git(args: &[String]) -> Option<String> {
    // Skip global options (`-C dir`, `-c k=v`, `--git-dir=…`).
    let mut rest = args;
    while let Some((first, tail)) = rest.split_first() {
        if first == "-C" || first == "-c" {
            rest = tail.get(1..).unwrap_or(&[]);
        } else if first.starts_with('-') {
            rest = tail;
        } else {
            break;
        }
    }
    let (sub, opts) = rest.split_first()?;
    match sub.as_str() {
        "push"
            if has_flag(opts, &["--force", "--force-with-lease", "--mirror"], 'f')
                || opts
                    .iter()
                    .any(|o| o.starts_with('+') || o.starts_with("--force")) =>
        {
            Some("`git push --force` rewrites history on the remote".into())
        }
        "reset" if opts.iter().any(|o| o == "--hard") => {
            Some("`git reset --hard` throws away uncommitted changes".into())
        }
        "clean" if has_flag(opts, &["--force"], 'f') => {
            Some("`git clean -f` deletes untracked files for good".into())
        }
        _ => None,
    }
}

/// `chmod -R 777` (or `a+rwx`, `o+w` recursively).
fn world_writable(args: &[String]) -> Option<String> {
    let recursive = has_flag(args, &["--recursive"], 'R');
    let open = args
        .iter()
        .any(|a| a == "777" || a == "0777" || a == "a+rwx" || a == "o+w" || a == "a+w");
    (recursive && open).then(|| "`chmod -R 777` makes a whole tree writable by everyone".into())
}

#[cfg(test)]
#[path = "dangerous_tests.rs"]
mod tests;
