//! Dangerous `git` invocations: configuration given on the command line that makes git run a
//! program of the line's choosing (`-c alias.x=…`, `-c core.hooksPath=…`, `-c core.sshCommand=…`,
//! …), and subcommands that throw work away for good (`push --force`, `push --delete`, `reset
//! --hard`, `clean -f`, `checkout -- .`, `checkout -f`, `restore .`, `switch --discard-changes`,
//! `stash clear`, `filter-branch`).

use std::path::Path;

use super::analysis::{Arg, Invocation};
use super::git_options::{is_valued, subcommand_index};
use super::paths::is_whole_workspace;

/// Configuration sections whose every key runs or defines commands.
const RUNNING_SECTIONS: &[&str] = &[
    "alias.",
    "filter.",
    "difftool.",
    "mergetool.",
    "pager.",
    "include.",
    "includeif.",
    "credential.",
];

/// Configuration keys (by their last part) that name a program to run or change where git looks.
const RUNNING_KEYS: &[&str] = &[
    ".textconv",
    ".command",
    ".cmd",
    ".driver",
    ".helper",
    ".program",
    ".hookspath",
    ".sshcommand",
    ".pager",
    ".editor",
    ".fsmonitor",
    ".gitproxy",
    ".askpass",
    ".uploadpack",
    ".receivepack",
    ".packobjectshook",
    ".insteadof",
    ".allow",
    ".external",
    ".worktree",
];

/// Why a `-c KEY=value` is dangerous, if it is.
fn config_danger(setting: &Arg) -> Option<String> {
    if setting.unknown {
        return Some("`git -c` sets configuration only known when the line runs".into());
    }
    let key = setting.text.split('=').next().unwrap_or("").to_lowercase();
    let runs = RUNNING_SECTIONS.iter().any(|s| key.starts_with(s))
        || RUNNING_KEYS.iter().any(|k| key.ends_with(k));
    runs.then(|| {
        if key.starts_with("alias.") {
            format!("`git -c {key}=…` defines a git command on the fly (it may push, rewrite or run anything)")
        } else {
            format!("`git -c {key}=…` makes git run a program of the command line's choosing")
        }
    })
}

/// Why `git` with `args` (run from `dirs`) is dangerous, if it is.
pub(super) fn dangerous_git(inv: &Invocation, workspace: &Path) -> Option<String> {
    let args = inv.args();
    let at = subcommand_index(args);
    let mut i = 0;
    while let Some(arg) = args[..at].get(i) {
        let text = arg.text.as_str();
        let why = match text {
            "-c" | "--config-env" => args.get(i + 1).and_then(config_danger),
            _ if text.starts_with("--config-env=") => {
                config_danger(&Arg::known(text.trim_start_matches("--config-env=")))
            }
            _ if text.starts_with("--exec-path=") => {
                Some("`git --exec-path=…` runs git's commands from another directory".into())
            }
            _ => None,
        };
        if why.is_some() {
            return why;
        }
        i += if is_valued(text) { 2 } else { 1 };
    }
    let (sub, opts) = args.get(at..)?.split_first()?;
    if sub.unknown {
        return Some("the git command is only known when the line runs".into());
    }
    subcommand_danger(&sub.text, opts, inv, workspace)
}

fn has(opts: &[Arg], long: &[&str], short: char) -> bool {
    opts.iter().any(|o| {
        let t = o.text.as_str();
        long.iter()
            .any(|l| t == *l || t.starts_with(&format!("{l}=")))
            || (t.starts_with('-') && !t.starts_with("--") && t[1..].contains(short))
    })
}

/// The pathspecs of `checkout`/`restore`: after `--`, or (without one) the operands.
fn pathspecs(opts: &[Arg]) -> Vec<&Arg> {
    match opts.iter().position(|o| o.text == "--") {
        Some(at) => opts[at + 1..].iter().collect(),
        None => opts.iter().filter(|o| !o.text.starts_with('-')).collect(),
    }
}

/// Whether a pathspec covers the whole work tree (`.`, `:/`, `*`, the workspace's path).
fn whole_tree(spec: &Arg, inv: &Invocation, workspace: &Path) -> bool {
    let text = spec.text.trim_end_matches('/');
    matches!(text, ":" | ":/" | ":/*" | ":(top)" | "*" | "." | "./*")
        || is_whole_workspace(spec, &inv.dirs, workspace)
}

fn subcommand_danger(
    sub: &str,
    opts: &[Arg],
    inv: &Invocation,
    workspace: &Path,
) -> Option<String> {
    // An unknown word after `--` is a pathspec that may be anything; before it, a branch.
    let explicit = opts.iter().any(|o| o.text == "--") || sub == "restore";
    let broad = || {
        pathspecs(opts)
            .iter()
            .any(|s| (s.unknown && explicit) || whole_tree(s, inv, workspace))
    };
    let why = match sub {
        "push" => push_danger(opts)?,
        "config" => return config_write_danger(opts),
        "reset" if opts.iter().any(|o| o.text == "--hard") => {
            "`git reset --hard` throws away uncommitted changes"
        }
        "clean" if has(opts, &["--force"], 'f') => {
            "`git clean -f` deletes untracked files for good"
        }
        "checkout" if has(opts, &["--force"], 'f') => {
            "`git checkout -f` throws away uncommitted changes"
        }
        "checkout" if explicit && broad() => {
            "`git checkout -- .` throws away the uncommitted changes of the whole tree"
        }
        "checkout" if broad() => {
            "`git checkout .` throws away the uncommitted changes of the whole tree"
        }
        "restore"
            if (!has(opts, &["--staged"], 'S') || has(opts, &["--worktree"], 'W')) && broad() =>
        {
            "`git restore .` throws away the uncommitted changes of the whole tree"
        }
        "switch" if has(opts, &["--discard-changes", "--force"], 'f') => {
            "`git switch --discard-changes` throws away uncommitted changes"
        }
        "stash" if opts.first().is_some_and(|o| o.text == "clear") => {
            "`git stash clear` deletes every stash for good"
        }
        "filter-branch" => "`git filter-branch` rewrites the repository's history",
        _ => return None,
    };
    Some(why.to_string())
}

/// `git config KEY VALUE` (or `git config set KEY VALUE`) storing a key that runs programs: the
/// next `git` would run it (`git config alias.fp 'push --force'; git fp`).
fn config_write_danger(opts: &[Arg]) -> Option<String> {
    const VALUED: &[&str] = &["-f", "--file", "--blob", "--type", "--default", "--comment"];
    let mut operands = Vec::new();
    let mut i = 0;
    while let Some(opt) = opts.get(i) {
        if VALUED.contains(&opt.text.as_str()) {
            i += 2;
            continue;
        }
        if !opt.text.starts_with('-') || opt.unknown {
            operands.push(opt);
        }
        i += 1;
    }
    let key = match operands.as_slice() {
        [set, key, _, ..] if set.text == "set" => key,
        [key, _, ..] => key,
        _ => return None,
    };
    config_danger(key).map(|why| why.replace("`git -c ", "`git config ").replace("=…", " …"))
}

/// `git push --force` (or `+ref`), `--mirror`, `--delete` (or `:ref`), `--prune`.
fn push_danger(opts: &[Arg]) -> Option<&'static str> {
    let force = [
        "--force",
        "--force-with-lease",
        "--mirror",
        "--force-if-includes",
    ];
    if has(opts, &force, 'f') || opts.iter().any(|o| o.text.starts_with('+')) {
        return Some("`git push --force` rewrites history on the remote");
    }
    (has(opts, &["--delete", "--prune"], 'd') || opts.iter().any(|o| o.text.starts_with(':')))
        .then_some("`git push --delete` deletes branches on the remote")
}
