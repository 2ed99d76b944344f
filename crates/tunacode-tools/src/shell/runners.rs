//! Programs that run code: shells (`sh -c CODE`, a script, or what they read on standard input) and
//! interpreters (`python3 -c`, `perl -e`, `node -e`, … or a script, or their input).

use super::invocation::{Arg, Input, Invocation};

/// Shells whose `-c` code the walk follows.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish", "csh", "tcsh",
];

/// Whether `name` is a shell.
pub(super) fn is_shell(name: &str) -> bool {
    SHELLS.contains(&name)
}

/// What a shell invocation runs.
#[derive(Debug)]
pub(super) enum ShellRun {
    /// `-c CODE [ARG0 [ARGS…]]`: the code, with `ARGS` as `$1`, `$2`, ….
    Code {
        /// The code.
        code: Arg,
        /// `$1`, `$2`, ….
        positional: Vec<Arg>,
    },
    /// A script file.
    Script(Arg),
    /// What it reads on standard input (no operand, or `-s`).
    Stdin,
}

/// How a shell with arguments `args` gets its code.
pub(super) fn shell_run(args: &[Arg]) -> ShellRun {
    let mut code_flag = false;
    let mut stdin_flag = false;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if text == "--" || text == "-" {
            i += 1;
            break;
        }
        if text.starts_with("--") {
            i += if matches!(text, "--rcfile" | "--init-file") {
                2
            } else {
                1
            };
            continue;
        }
        let Some(cluster) = text
            .strip_prefix('-')
            .or_else(|| text.strip_prefix('+'))
            .filter(|c| !c.is_empty())
        else {
            break;
        };
        if text.starts_with('-') {
            code_flag |= cluster.contains('c');
            stdin_flag |= cluster.contains('s');
        }
        i += if cluster.ends_with(['o', 'O']) { 2 } else { 1 };
    }
    let rest = args.get(i..).unwrap_or(&[]);
    match (code_flag, rest.split_first()) {
        (true, Some((code, names))) => ShellRun::Code {
            code: code.clone(),
            positional: names.get(1..).unwrap_or(&[]).to_vec(),
        },
        (true, None) => ShellRun::Code {
            code: Arg::known(""),
            positional: Vec::new(),
        },
        (false, Some((script, _))) if !stdin_flag => ShellRun::Script(script.clone()),
        _ => ShellRun::Stdin,
    }
}

/// Interpreters, and the options that give them code on the command line.
fn interpreter(name: &str) -> Option<&'static [&'static str]> {
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    Some(match base {
        "python" | "pypy" => &["-c"],
        "perl" => &["-e", "-E"],
        "ruby" | "lua" | "luajit" | "julia" | "osascript" | "Rscript" | "R" => &["-e", "-E"],
        "node" | "nodejs" | "bun" => &["-e", "--eval", "-p", "--print"],
        "deno" => &["eval"],
        "php" => &["-r"],
        "pwsh" | "powershell" => &["-c", "-Command", "-command"],
        "tclsh" | "wish" | "irb" | "jshell" | "groovy" => &[],
        _ => return None,
    })
}

/// Whether `arg` gives code through `flag`: the flag itself, a subcommand (`deno eval`, when
/// `first`), a short flag with the code attached (`-cprint(1)`), or a cluster of letters ending in
/// it (`perl -ne`).
fn is_inline_flag(arg: &str, flag: &str, first: bool) -> bool {
    if arg == flag {
        return true;
    }
    let Some(letter) = flag.strip_prefix('-').filter(|l| l.len() == 1) else {
        return first && !flag.starts_with('-') && arg == flag;
    };
    let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.starts_with('-')) else {
        return false;
    };
    cluster.starts_with(letter)
        || (cluster.len() <= 6
            && cluster.chars().all(|c| c.is_ascii_alphabetic())
            && cluster.ends_with(letter))
}

/// Whether `path` names the program's standard input.
fn is_stdin_path(arg: &Arg) -> bool {
    !arg.generated && matches!(arg.text.as_str(), "-" | "/dev/stdin")
}

/// Whether `path` is another command's output (`<(…)`, a descriptor).
fn is_generated_path(arg: &Arg) -> bool {
    arg.generated || arg.text.starts_with("/dev/fd/") || arg.text.starts_with("/proc/self/fd/")
}

/// The script file a shell, an interpreter or `source` runs, if it runs one.
pub(super) fn script_operand(inv: &Invocation) -> Option<Arg> {
    let name = inv.name();
    let args = inv.args();
    if is_shell(name) {
        return match shell_run(args) {
            ShellRun::Script(script) => Some(script),
            _ => None,
        };
    }
    if matches!(name, "source" | ".") {
        return args.first().cloned();
    }
    interpreter(name)?;
    if args.iter().any(|a| a.text == "-m") {
        return None;
    }
    args.iter().find(|a| !a.text.starts_with('-')).cloned()
}

/// Why an invocation of a shell or an interpreter runs code this check cannot read, if it does:
/// inline code of an interpreter, code piped in, or a script that is another command's output.
pub(super) fn runner_danger(inv: &Invocation) -> Option<String> {
    let name = inv.name();
    let args = inv.args();
    let script = if is_shell(name) {
        match shell_run(args) {
            ShellRun::Code { .. } => return None, // followed by the walk
            ShellRun::Script(script) => Some(script),
            ShellRun::Stdin => None,
        }
    } else {
        let inline = interpreter(name)?;
        let inline_flag = args.iter().enumerate().find(|(i, a)| {
            inline
                .iter()
                .any(|flag| is_inline_flag(&a.text, flag, *i == 0))
        });
        if let Some((_, flag)) = inline_flag {
            return Some(format!(
                "`{name} {}` runs inline code that this check cannot follow",
                flag.text
            ));
        }
        if args.iter().any(|a| a.text == "-m") {
            return None; // a module (`python3 -m pytest`)
        }
        args.iter()
            .find(|a| !a.text.starts_with('-') || a.text == "-")
            .cloned()
    };
    match script {
        Some(script) if is_generated_path(&script) => Some(format!(
            "`{name}` runs code produced by another command, which this check cannot read"
        )),
        Some(script) if !is_stdin_path(&script) => None,
        _ => match &inv.stdin {
            Input::Pipe { download: true } => Some(format!(
                "a download is piped into `{name}`, which runs whatever it fetched"
            )),
            Input::Pipe { download: false } => Some(format!(
                "`{name}` runs code piped into it, which this check cannot read"
            )),
            Input::File(file) if file.generated => Some(format!(
                "`{name}` runs code produced by another command, which this check cannot read"
            )),
            Input::Text(_) if !is_shell(name) => Some(format!(
                "`{name}` runs code from a here-document that this check cannot follow"
            )),
            _ => None,
        },
    }
}
