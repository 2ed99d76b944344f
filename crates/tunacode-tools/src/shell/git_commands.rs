//! Commands git runs that its own command line names, followed like `sh -c`: `rebase -x CMD`
//! (`--exec`), `bisect run CMD…`, `submodule foreach CMD`, `difftool -x CMD` (`--extcmd`), `grep
//! -OCMD` (`--open-files-in-pager=CMD`) and `send-email --to-cmd=CMD` (`--cc-cmd`, `--header-cmd`,
//! `--sendmail-cmd`, and `--smtp-server=/a/program`).

use super::git_options::subcommand_index;
use super::invocation::Arg;
use super::step::Step;

/// `git rebase -x CMD`.
const REBASE_EXEC: Spec = Spec {
    short: Some(('x', "xsXSC")),
    long: &["--exec"],
    abbreviated: true,
};

/// `git difftool -x CMD`.
const DIFFTOOL_EXTCMD: Spec = Spec {
    short: Some(('x', "xt")),
    long: &["--extcmd"],
    abbreviated: true,
};

/// What `git` with `args` runs besides itself.
pub(super) fn git_steps(args: &[Arg]) -> Vec<Step> {
    let Some((sub, opts)) = args
        .get(subcommand_index(args)..)
        .and_then(<[Arg]>::split_first)
    else {
        return Vec::new();
    };
    let code = |text: Arg| Step::Code {
        runner: format!("git {}", sub.text),
        code: text,
        new_shell: Some(Vec::new()),
        input: None,
    };
    match sub.text.as_str() {
        "rebase" => option_values(opts, &REBASE_EXEC)
            .into_iter()
            .map(code)
            .collect(),
        "difftool" => option_values(opts, &DIFFTOOL_EXTCMD)
            .into_iter()
            .map(code)
            .collect(),
        "grep" => attached_values(opts, "efABCmO", 'O', "--open-files-in-pager")
            .into_iter()
            .map(code)
            .collect(),
        "send-email" => send_email(opts).into_iter().map(code).collect(),
        "bisect" | "submodule" => {
            let word = if sub.text == "bisect" {
                "run"
            } else {
                "foreach"
            };
            let Some(at) = opts.iter().position(|o| o.unknown || o.text == word) else {
                return Vec::new();
            };
            let rest: Vec<&Arg> = opts[at + 1..]
                .iter()
                .skip_while(|o| o.text == "--recursive")
                .collect();
            if rest.is_empty() {
                return Vec::new();
            }
            vec![code(joined(&rest))]
        }
        _ => Vec::new(),
    }
}

/// The words as one line of shell code (unknown when one of them is).
fn joined(words: &[&Arg]) -> Arg {
    let text: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
    Arg {
        text: text.join(" "),
        unknown: words.iter().any(|w| w.unknown || w.generated),
        ..Arg::default()
    }
}

/// `value` of the word `of` (unknown when it is).
fn part(of: &Arg, value: &str) -> Arg {
    Arg {
        text: value.to_string(),
        unknown: of.unknown,
        generated: of.generated,
        glob: false,
    }
}

/// How a subcommand's option that names a command is written.
struct Spec {
    /// Its letter, and every letter of the subcommand that takes a value (which ends a cluster).
    short: Option<(char, &'static str)>,
    /// Its long names.
    long: &'static [&'static str],
    /// Whether an unambiguous abbreviation of a long name counts (not when a shorter option
    /// shares its start: `send-email --to`).
    abbreviated: bool,
}

/// The values of the option `spec` (`-x V`, `-xV`, a cluster ending in it: `-ix V`, `--exec V`,
/// `--exec=V`).
fn option_values(opts: &[Arg], spec: &Spec) -> Vec<Arg> {
    let mut values = Vec::new();
    let mut i = 0;
    while let Some(opt) = opts.get(i) {
        i += 1;
        let text = opt.text.as_str();
        if text == "--" {
            break;
        }
        let value = if let Some(name) = text.strip_prefix("--") {
            let (name, value) = name
                .split_once('=')
                .map_or((name, None), |(n, v)| (n, Some(v)));
            let named = spec.long.iter().any(|l| {
                let l = l.trim_start_matches('-');
                l == name || (spec.abbreviated && name.len() >= 2 && l.starts_with(name))
            });
            if !named {
                continue;
            }
            value
        } else {
            let Some(((letter, valued), cluster)) = spec.short.zip(text.strip_prefix('-')) else {
                continue;
            };
            match cluster.find(|c| valued.contains(c)) {
                Some(at) if cluster[at..].starts_with(letter) => Some(&cluster[at + 1..]),
                _ => continue,
            }
        };
        match value {
            Some("") | None => values.extend(opts.get(i).cloned()),
            Some(value) => values.push(part(opt, value)),
        }
    }
    values
}

/// The values of an option whose value may only be attached (`-Oless`, `--open-files-in-pager=less`;
/// `valued`: the letters that take a value, which end a cluster).
fn attached_values(opts: &[Arg], valued: &str, short: char, long: &str) -> Vec<Arg> {
    opts.iter()
        .take_while(|o| o.text != "--")
        .filter_map(|o| {
            let text = o.text.as_str();
            if let Some((name, value)) = text.strip_prefix("--").and_then(|t| t.split_once('=')) {
                return (name.len() >= 2 && long[2..].starts_with(name)).then(|| part(o, value));
            }
            let cluster = text.strip_prefix('-').filter(|c| !c.starts_with('-'))?;
            let at = cluster.find(|c| valued.contains(c))?;
            let value = cluster[at..].strip_prefix(short)?;
            (!value.is_empty()).then(|| part(o, value))
        })
        .collect()
}

/// The commands `git send-email` is told to run.
fn send_email(opts: &[Arg]) -> Vec<Arg> {
    const COMMANDS: Spec = Spec {
        short: None,
        long: &["--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd"],
        abbreviated: false,
    };
    const SERVER: Spec = Spec {
        short: None,
        long: &["--smtp-server"],
        abbreviated: false,
    };
    let mut values = option_values(opts, &COMMANDS);
    // An absolute `--smtp-server` is a program to run instead of a server.
    values.extend(
        option_values(opts, &SERVER)
            .into_iter()
            .filter(|v| v.unknown || v.text.starts_with('/')),
    );
    values
}
