//! Dangerous `git` invocations: configuration given on the command line that makes git run a
//! program of the line's choosing (`-c alias.x=…`, `-c core.hooksPath=…`, `-c core.sshCommand=…`,
//! …), and subcommands that throw work or history away for good (`push --force`, `push --delete`,
//! `reset --hard`, `clean` but `clean -n`, `checkout -- .`, `checkout -f`, `restore .`, `switch
//! --discard-changes`, `read-tree -u`, `checkout-index -f`/`-a`, `update-ref -d`, `branch -D`,
//! `reflog expire`/`delete`, `gc --prune=…`, `prune`, `stash drop`/`clear`, `rm -f`, `worktree
//! remove --force`, `filter-branch`).

use std::path::Path;

use super::git_config::{env_option_danger, option_danger, write_danger};
use super::git_options::{is_valued, subcommand_index};
use super::invocation::{Arg, Invocation};
use super::paths::is_whole_workspace;

/// Why `git` with `args` (run from `dirs`) is dangerous, if it is.
pub(super) fn dangerous_git(inv: &Invocation, workspace: &Path) -> Option<String> {
    let args = inv.args();
    let at = subcommand_index(args);
    let mut i = 0;
    while let Some(arg) = args[..at].get(i) {
        let text = arg.text.as_str();
        let why = match text {
            "-c" => args.get(i + 1).and_then(option_danger),
            "--config-env" => args.get(i + 1).and_then(env_option_danger),
            _ if text.starts_with("--config-env=") => env_option_danger(&Arg {
                text: text.trim_start_matches("--config-env=").to_string(),
                ..arg.clone()
            }),
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

/// Whether `opts` (before any `--`) hold one of the long options `long` (with or without a value,
/// or abbreviated as git's option parser accepts: `--forc` for `--force`) or one of the letters
/// `short` in a cluster of short options (conservative: a letter inside an option's attached value
/// counts too).
fn has(opts: &[Arg], long: &[&str], short: &str) -> bool {
    opts.iter().take_while(|o| o.text != "--").any(|o| {
        let t = o.text.as_str();
        match t.strip_prefix("--") {
            Some(name) => {
                let name = name.split('=').next().unwrap_or(name);
                !name.is_empty()
                    && long
                        .iter()
                        .any(|l| l.trim_start_matches('-').starts_with(name))
            }
            None => t.len() > 1 && t.starts_with('-') && t[1..].contains(|c| short.contains(c)),
        }
    })
}

/// Whether the first word of `opts` that is not an option (a subcommand's own subcommand: `stash
/// drop`) is one of `words`, or only known when the line runs.
fn first_operand_is(opts: &[Arg], words: &[&str]) -> bool {
    opts.iter()
        .find(|o| o.unknown || !o.text.starts_with('-'))
        .is_some_and(|o| o.unknown || words.contains(&o.text.as_str()))
}

/// Whether `git clean` with `opts` only reports what it would delete (`-n`, `--dry-run`), read as
/// git reads it: a cluster of short options up to `-e` (whose value is the rest of the word or the
/// next one), `--exclude` with its value, and any `--no-…` as a `--no-dry-run` that undoes it. An
/// unknown word may be any option, so it makes the run a real one.
fn clean_dry_run(opts: &[Arg]) -> bool {
    let mut dry = false;
    let mut i = 0;
    while let Some(opt) = opts.get(i) {
        let text = opt.text.as_str();
        i += 1;
        if opt.unknown {
            return false;
        }
        if text == "--" {
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            if name.starts_with("no-") {
                dry = false;
            } else if !name.is_empty() && "dry-run".starts_with(name) {
                dry = true;
            } else if !name.is_empty() && "exclude".starts_with(name) && !long.contains('=') {
                i += 1;
            }
        } else if let Some(cluster) = text.strip_prefix('-') {
            for (at, c) in cluster.char_indices() {
                match c {
                    'n' => dry = true,
                    'e' => {
                        i += usize::from(at + 1 == cluster.len());
                        break;
                    }
                    _ => {}
                }
            }
        }
    }
    dry
}

/// Subcommands that throw away work or history for good (besides `checkout`, `restore`, `switch`
/// and `reset --hard`, which depend on their pathspecs or the tree).
fn discard_danger(sub: &str, opts: &[Arg]) -> Option<&'static str> {
    let operand = |words: &[&str]| first_operand_is(opts, words);
    Some(match sub {
        "clean" if !clean_dry_run(opts) => {
            "`git clean` (without `-n`) deletes untracked files for good"
        }
        "read-tree" if has(opts, &[], "u") => {
            "`git read-tree -u` overwrites the work tree, throwing away uncommitted changes"
        }
        "checkout-index" if has(opts, &["--force", "--all"], "fa") => {
            "`git checkout-index -f`/`-a` overwrites files of the work tree"
        }
        "update-ref" if has(opts, &["--stdin"], "d") => {
            "`git update-ref -d` (or `--stdin`) deletes or moves references"
        }
        "branch"
            if has(opts, &[], "D")
                || (has(opts, &["--delete"], "d") && has(opts, &["--force"], "f")) =>
        {
            "`git branch -D` deletes a branch even when its commits are merged nowhere"
        }
        "reflog" if operand(&["expire", "delete"]) => {
            "`git reflog expire`/`delete` removes the history that recovers lost commits"
        }
        "gc" if opts.iter().any(|o| prune_now(&o.text)) => {
            "`git gc --prune=…` deletes unreachable commits, which could still be recovered"
        }
        "prune" => "`git prune` deletes unreachable commits, which could still be recovered",
        "stash" if operand(&["drop", "clear"]) => {
            "`git stash drop`/`clear` deletes stashed changes for good"
        }
        "rm" if has(opts, &["--force"], "f") && !has(opts, &["--cached"], "") => {
            "`git rm -f` deletes files together with their uncommitted changes"
        }
        "worktree" if operand(&["remove"]) && has(opts, &["--force"], "f") => {
            "`git worktree remove --force` deletes a work tree with its uncommitted changes"
        }
        "filter-branch" => "`git filter-branch` rewrites the repository's history",
        _ => return None,
    })
}

/// Whether `word` is `gc`'s `--prune=<date>` (abbreviated too): an explicit date, such as `now`.
fn prune_now(word: &str) -> bool {
    word.strip_prefix("--")
        .and_then(|w| w.split_once('='))
        .is_some_and(|(name, _)| !name.is_empty() && "prune".starts_with(name))
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
    if let Some(why) = remote_program_danger(sub, opts) {
        return Some(why);
    }
    let why = match sub {
        "push" => push_danger(opts)?,
        "config" => return write_danger(opts),
        "init" | "clone" => return new_repository_danger(sub, opts),
        "reset" if has(opts, &["--hard"], "") => {
            "`git reset --hard` throws away uncommitted changes"
        }
        "checkout" if has(opts, &["--force"], "f") => {
            "`git checkout -f` throws away uncommitted changes"
        }
        "checkout" if explicit && broad() => {
            "`git checkout -- .` throws away the uncommitted changes of the whole tree"
        }
        "checkout" if broad() => {
            "`git checkout .` throws away the uncommitted changes of the whole tree"
        }
        "restore"
            if (!has(opts, &["--staged"], "S") || has(opts, &["--worktree"], "W")) && broad() =>
        {
            "`git restore .` throws away the uncommitted changes of the whole tree"
        }
        "switch" if has(opts, &["--discard-changes", "--force"], "f") => {
            "`git switch --discard-changes` throws away uncommitted changes"
        }
        _ => discard_danger(sub, opts)?,
    };
    Some(why.to_string())
}

/// `git init`/`git clone` given a template directory (its hooks would run in the new repository)
/// or, for `clone`, configuration (`-c key=value`, `--config key=value`) as `git -c` is judged.
fn new_repository_danger(sub: &str, opts: &[Arg]) -> Option<String> {
    if has(opts, &["--template"], "") {
        return Some(format!(
            "`git {sub} --template` copies hooks of the command line's choosing into the repository"
        ));
    }
    if sub != "clone" {
        return None;
    }
    let mut i = 0;
    while let Some(opt) = opts.get(i) {
        i += 1;
        let text = opt.text.as_str();
        let with = |value: &str| Arg {
            text: value.to_string(),
            ..opt.clone()
        };
        let setting = if let Some(long) = text.strip_prefix("--") {
            let (name, value) = long.split_once('=').unwrap_or((long, ""));
            let config = !name.is_empty() && "config".starts_with(name);
            match (config, long.contains('=')) {
                (true, true) => Some(with(value)),
                (true, false) => opts.get(i).cloned(),
                _ => None,
            }
        } else {
            // Short options: `-o`, `-b`, `-u`, `-c`, `-j` take the rest of the word or the next.
            let cluster = text.strip_prefix('-').unwrap_or("");
            let at = cluster.find(|c| "obucj".contains(c));
            match at.map(|at| (&cluster[at..at + 1], &cluster[at + 1..])) {
                Some(("c", "")) => opts.get(i).cloned(),
                Some(("c", value)) => Some(with(value)),
                _ => None,
            }
        };
        if let Some(why) = setting.as_ref().and_then(option_danger) {
            return Some(why.replace("`git -c ", "`git clone -c "));
        }
    }
    None
}

/// Options that make git run a program of the line's choosing to talk to a remote
/// (`--upload-pack`, `--receive-pack`, `push --exec`, `clone -u`, `ls-remote -u`, `archive --exec`).
fn remote_program_danger(sub: &str, opts: &[Arg]) -> Option<String> {
    let short = if matches!(sub, "clone" | "ls-remote") {
        "u"
    } else {
        ""
    };
    let long: &[&str] = match sub {
        "fetch" | "pull" | "clone" | "ls-remote" | "submodule" => &["--upload-pack"],
        "push" | "send-pack" => &["--receive-pack", "--exec"],
        "archive" => &["--exec"],
        "fetch-pack" => &["--upload-pack", "--exec"],
        _ => return None,
    };
    has(opts, long, short).then(|| {
        format!(
            "`git {sub}` is told which program to run for the remote (`--upload-pack`, `--exec`, …)"
        )
    })
}

/// `git push --force` (or `+ref`), `--mirror`, `--delete` (or `:ref`), `--prune`.
fn push_danger(opts: &[Arg]) -> Option<&'static str> {
    let force = [
        "--force",
        "--force-with-lease",
        "--mirror",
        "--force-if-includes",
    ];
    if has(opts, &force, "f") || opts.iter().any(|o| o.text.starts_with('+')) {
        return Some("`git push --force` rewrites history on the remote");
    }
    (has(opts, &["--delete", "--prune"], "d") || opts.iter().any(|o| o.text.starts_with(':')))
        .then_some("`git push --delete` deletes branches on the remote")
}
