//! What a command makes run besides itself: wrappers run the rest of their words as a command
//! (`env`, `nice`, `nohup`, `timeout`, `stdbuf`, `time`, `command`, `builtin`, `exec`, `sudo`,
//! `doas`, `xargs`, `flock`, `chroot`, `busybox`, …), code runners run a string as shell code (`sh
//! -c`, `eval`, `trap`, `alias`, `watch`, `su -c`, `script -c`, a shell fed a here-document, `git
//! rebase -x` and friends), and `find -exec`/`fd -x` run a command per file found.

use super::builtins::is_name;
use super::find::find_exec_commands;
use super::git_commands::git_steps;
use super::invocation::{Arg, Input};
use super::runners::{ShellRun, is_shell, shell_run};
use super::step::Step;

/// A wrapper's options: short options taking a value, long ones taking a value, and how many
/// operands come before the command.
struct Spec {
    short: &'static str,
    long: &'static [&'static str],
    operands: usize,
}

const fn spec(short: &'static str, long: &'static [&'static str], operands: usize) -> Spec {
    Spec {
        short,
        long,
        operands,
    }
}

/// The wrappers that run the rest of their words after options (and a few operands).
fn wrapper_spec(name: &str) -> Option<Spec> {
    Some(match name {
        "nohup" | "setsid" | "unbuffer" | "chronic" | "coproc" | "builtin" | "busybox"
        | "toybox" => spec("", &[], 0),
        "nice" => spec("n", &["--adjustment"], 0),
        "timeout" => spec("sk", &["--signal", "--kill-after"], 1),
        "stdbuf" => spec("ioe", &["--input", "--output", "--error"], 0),
        "time" => spec("fo", &["--format", "--output"], 0),
        "exec" => spec("a", &[], 0),
        "ionice" => spec("cnp", &["--class", "--classdata", "--pid"], 0),
        "taskset" | "chrt" => spec("", &[], 1),
        "xvfb-run" => spec(
            "nsfepw",
            &["--server-num", "--server-args", "--auth-file"],
            0,
        ),
        "unshare" | "firejail" | "catchsegv" | "caffeinate" => spec("", &[], 0),
        "chroot" => spec("", &["--userspec", "--groups"], 1),
        "doas" => spec("uC", &[], 0),
        "pkexec" => spec("", &["--user"], 0),
        "run0" => spec("uDg", &["--user", "--group", "--chdir"], 0),
        "strace" | "ltrace" => spec("eopsuEPaIXS", &[], 0),
        "flock" => spec("wE", &["--timeout", "--conflict-exit-code"], 1),
        "sudo" => spec(
            "ugpCDrthTUR",
            &[
                "--user",
                "--group",
                "--prompt",
                "--close-from",
                "--chdir",
                "--role",
                "--type",
                "--host",
                "--command-timeout",
                "--other-user",
                "--chroot",
            ],
            0,
        ),
        _ => return None,
    })
}

/// Where the command starts after the options of `spec` (and its operands).
fn skip_options(args: &[Arg], spec: &Spec) -> usize {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if text == "--" {
            i += 1;
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            let takes_value = !long.contains('=') && spec.long.contains(&text);
            i += if takes_value { 2 } else { 1 };
        } else if let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) {
            let value_at = cluster.find(|c| spec.short.contains(c));
            let takes_next = value_at.is_some_and(|at| at + 1 == cluster.len());
            i += if takes_next { 2 } else { 1 };
        } else {
            break;
        }
    }
    (i + spec.operands).min(args.len())
}

/// What running `argv` (its standard input `stdin`) makes run besides itself.
pub(super) fn steps(argv: &[Arg], stdin: &Input) -> Vec<Step> {
    let Some((program, args)) = argv.split_first() else {
        return Vec::new();
    };
    let name = program.base_name();
    if is_shell(name) {
        return shell_steps(name, args, stdin);
    }
    match name {
        "env" => env_steps(args),
        "command" => command_builtin(args),
        "eval" => {
            let text: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
            vec![code(name, joined(args, &text.join(" ")), None)]
        }
        "trap" => {
            let args: Vec<&Arg> = args.iter().filter(|a| !a.text.starts_with('-')).collect();
            match args.as_slice() {
                [action, _, ..] => vec![code(name, (*action).clone(), None)],
                _ => Vec::new(),
            }
        }
        "alias" => args
            .iter()
            .filter_map(|a| {
                let (alias, value) = a.text.split_once('=')?;
                is_name(alias).then(|| code(name, joined(std::slice::from_ref(a), value), None))
            })
            .collect(),
        "xargs" => xargs(args),
        "parallel" => parallel(args),
        "find" => find_exec_commands(args)
            .into_iter()
            .flat_map(|argv| command(argv, false))
            .collect(),
        "fd" | "fdfind" => fd_exec(args),
        "git" => git_steps(args),
        "watch" => watch(args),
        "su" | "script" => flag_code(name, args, "-c", "--command"),
        "flock" if args.iter().any(|a| a.text == "-c" || a.text == "--command") => {
            flag_code(name, args, "-c", "--command")
        }
        _ => wrapper_steps(name, args),
    }
}

/// `command [-p] COMMAND…` runs the command in the same shell; `command -v`/`-V` only looks it up.
fn command_builtin(args: &[Arg]) -> Vec<Step> {
    let at = args.iter().take_while(|a| a.text.starts_with('-')).count();
    if args[..at].iter().any(|a| a.text.contains(['v', 'V'])) {
        return Vec::new();
    }
    command(args[at..].to_vec(), true)
}

/// A wrapper runs the rest of its words after its options and operands, with the variables it
/// assigns (and, for `sudo -D`, in another directory); not a wrapper: nothing.
fn wrapper_steps(name: &str, args: &[Arg]) -> Vec<Step> {
    let Some(spec) = wrapper_spec(name) else {
        return Vec::new();
    };
    let rest = args.get(skip_options(args, &spec)..).unwrap_or(&[]);
    let env = rest.iter().take_while(|a| assignment(a).is_some()).count();
    let mut steps = command(rest[env..].to_vec(), name == "builtin");
    if let Some(Step::Command { env: vars, dir, .. }) = steps.first_mut() {
        vars.extend(rest[..env].iter().filter_map(assignment));
        *dir = option_value(args, "-D", "--chdir").filter(|_| name == "sudo");
    }
    steps
}

/// A step running `argv`, if there is one.
fn command(argv: Vec<Arg>, same_shell: bool) -> Vec<Step> {
    if argv.is_empty() {
        return Vec::new();
    }
    vec![Step::Command {
        argv,
        same_shell,
        dir: None,
        env: Vec::new(),
    }]
}

fn code(runner: &str, code: Arg, new_shell: Option<Vec<Arg>>) -> Step {
    Step::Code {
        runner: runner.to_string(),
        code,
        new_shell,
        input: None,
    }
}

/// `text` as a word, unknown or generated when one of `parts` is.
fn joined(parts: &[Arg], text: &str) -> Arg {
    Arg {
        text: text.to_string(),
        unknown: parts.iter().any(|a| a.unknown),
        generated: parts.iter().any(|a| a.generated),
        glob: false,
    }
}

/// `NAME=value` as a variable and its value.
fn assignment(arg: &Arg) -> Option<(String, Arg)> {
    let (name, value) = arg.text.split_once('=')?;
    is_name(name).then(|| (name.to_string(), joined(std::slice::from_ref(arg), value)))
}

/// The value of option `short`/`long` (`-D dir`, `--chdir=dir`, `--chdir dir`).
fn option_value(args: &[Arg], short: &str, long: &str) -> Option<Arg> {
    args.iter().enumerate().find_map(|(i, a)| {
        if a.text == short || a.text == long {
            return args.get(i + 1).cloned();
        }
        let value = a.text.strip_prefix(&format!("{long}="))?;
        Some(joined(std::slice::from_ref(a), value))
    })
}

/// `sh -c CODE [ARG0 ARGS…]`, or a shell reading a here-document.
fn shell_steps(name: &str, args: &[Arg], stdin: &Input) -> Vec<Step> {
    match (shell_run(args), stdin) {
        (
            ShellRun::Code {
                code: text,
                positional,
            },
            _,
        ) => vec![code(name, text, Some(positional))],
        (ShellRun::Stdin, Input::Text(text)) => vec![Step::Code {
            runner: name.to_string(),
            code: Arg::known(text.clone()),
            new_shell: Some(Vec::new()),
            input: Some(Input::Inherited),
        }],
        _ => Vec::new(),
    }
}

/// `env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=value]… COMMAND…`.
fn env_steps(args: &[Arg]) -> Vec<Step> {
    let spec = spec("uCSP", &["--unset", "--chdir", "--split-string"], 0);
    let start = skip_options(args, &spec);
    let rest = args.get(start..).unwrap_or(&[]);
    let env_count = rest.iter().take_while(|a| assignment(a).is_some()).count();
    let mut argv: Vec<Arg> = Vec::new();
    if let Some(split) = option_value(&args[..start], "-S", "--split-string") {
        match shell_words::split(&split.text) {
            Ok(words) if !split.unknown => argv.extend(words.into_iter().map(Arg::known)),
            _ => argv.push(Arg::unknown()),
        }
    }
    argv.extend(rest[env_count..].iter().cloned());
    if argv.is_empty() {
        return Vec::new();
    }
    vec![Step::Command {
        argv,
        same_shell: false,
        dir: option_value(&args[..start], "-C", "--chdir"),
        env: rest[..env_count].iter().filter_map(assignment).collect(),
    }]
}

/// `xargs [OPTIONS] [COMMAND [ARGS]]`: the command gets words from its input (unknown), appended or
/// in place of the `-I` string.
fn xargs(args: &[Arg]) -> Vec<Step> {
    let spec = spec(
        "adEILnPs",
        &[
            "--arg-file",
            "--delimiter",
            "--max-lines",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--process-slot-var",
        ],
        0,
    );
    let start = skip_options(args, &spec);
    let options = &args[..start];
    let replace = option_value(options, "-I", "--replace")
        .map(|a| a.text)
        .or_else(|| {
            options.iter().find_map(|a| {
                let t = a.text.as_str();
                (t == "-i" || t == "--replace")
                    .then(|| "{}".to_string())
                    .or_else(|| {
                        t.strip_prefix("-I")
                            .or_else(|| t.strip_prefix("-i"))
                            .filter(|r| !r.is_empty())
                            .map(str::to_string)
                    })
            })
        });
    let mut argv: Vec<Arg> = args[start..].to_vec();
    if argv.is_empty() {
        argv.push(Arg::known("echo"));
    }
    match replace {
        Some(r) => {
            for arg in &mut argv {
                if arg.text.contains(&r) {
                    *arg = Arg::unknown();
                }
            }
        }
        None => argv.push(Arg::unknown()),
    }
    command(argv, false)
}

/// `parallel [OPTIONS] COMMAND ::: ARGS`: the command runs with `sh -c`, `{}` (or an appended word)
/// standing for each argument (unknown).
fn parallel(args: &[Arg]) -> Vec<Step> {
    let start = skip_options(
        args,
        &spec("jSIdEn", &["--jobs", "--sshlogin", "--delimiter"], 0),
    );
    let words: Vec<&Arg> = args[start..]
        .iter()
        .take_while(|a| !a.text.starts_with(":::"))
        .collect();
    let mut text = String::new();
    for word in &words {
        let shown = if word.text.contains('{') {
            "\"$1\""
        } else {
            word.text.as_str()
        };
        text.push_str(shown);
        text.push(' ');
    }
    if !words.iter().any(|w| w.text.contains('{')) {
        text.push_str("\"$1\"");
    }
    let parts: Vec<Arg> = words.into_iter().cloned().collect();
    vec![code(
        "parallel",
        joined(&parts, &text),
        Some(vec![Arg::unknown()]),
    )]
}

/// `fd … -x COMMAND …` / `-X`: the command runs on the files found (unknown).
fn fd_exec(args: &[Arg]) -> Vec<Step> {
    let Some(at) = args
        .iter()
        .position(|a| matches!(a.text.as_str(), "-x" | "--exec" | "-X" | "--exec-batch"))
    else {
        return Vec::new();
    };
    let mut argv: Vec<Arg> = args[at + 1..]
        .iter()
        .take_while(|a| a.text != ";")
        .map(|a| {
            if a.text.contains('{') {
                Arg::unknown()
            } else {
                a.clone()
            }
        })
        .collect();
    if !argv.iter().skip(1).any(|a| a.unknown) {
        argv.push(Arg::unknown());
    }
    command(argv, false)
}

/// `watch [-n N] COMMAND…`: the words joined run with `sh -c` (with `-x`, as a command).
fn watch(args: &[Arg]) -> Vec<Step> {
    let start = skip_options(args, &spec("nq", &["--interval"], 0));
    let rest = &args[start..];
    if args[..start]
        .iter()
        .any(|a| a.text == "-x" || a.text == "--exec")
    {
        return command(rest.to_vec(), false);
    }
    let text: Vec<&str> = rest.iter().map(|a| a.text.as_str()).collect();
    vec![code(
        "watch",
        joined(rest, &text.join(" ")),
        Some(Vec::new()),
    )]
}

/// `su -c CODE`, `script -c CODE`, `flock … -c CODE`.
fn flag_code(name: &str, args: &[Arg], short: &str, long: &str) -> Vec<Step> {
    // `-c` may end a cluster of flags (`script -qc CODE`).
    let letter = short.trim_start_matches('-');
    let clustered = args.iter().position(|a| {
        a.text.len() > 2
            && a.text.starts_with('-')
            && !a.text.starts_with("--")
            && a.text.ends_with(letter)
    });
    let value = option_value(args, short, long)
        .or_else(|| clustered.and_then(|at| args.get(at + 1).cloned()));
    match value {
        Some(text) => vec![code(name, text, Some(Vec::new()))],
        None => Vec::new(),
    }
}
