//! Which program invocations only read: the lists of read-only programs and the rules for the
//! programs that are read-only only in some forms (`sort` without `-o`, `find` without `-exec`,
//! `git status`/`diff`/`log`, …).

/// Programs that only read whatever their arguments (a few have exceptions, see [`is_read_only_argv`]).
const ALWAYS_READ_ONLY: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "pwd",
    "echo",
    "printf",
    "true",
    "false",
    "which",
    "type",
    "file",
    "stat",
    "du",
    "df",
    "nl",
    "uniq",
    "cut",
    "tr",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "diff",
    "cmp",
    "comm",
    "grep",
    "egrep",
    "fgrep",
    "tree",
    "date",
    "whoami",
    "uname",
    "id",
    "cd",
    "column",
    "jq",
    "md5sum",
    "sha256sum",
    "sha1sum",
];

/// Always-read-only programs with an option that writes, hangs or depends on the operand count.
const GLOB_UNSAFE: &[&str] = &["tail", "uniq", "tree", "date", "file"];

/// Other programs with read-only forms; they answer `--version`/`--help` too.
const CONDITIONALLY_READ_ONLY: &[&str] =
    &["sort", "rg", "fd", "fdfind", "find", "sed", "git", "cargo"];

/// Directories whose programs are trusted to be what their name says (a relative path is not).
const SYSTEM_BIN_DIRS: &[&str] = &["/bin", "/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"];

/// `find` primaries that run programs, delete or write files.
const FIND_UNSAFE: &[&str] = &[
    "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
];

/// `git branch` options that keep it in listing mode.
const GIT_BRANCH_LIST: &[&str] = &[
    "-a",
    "-r",
    "-v",
    "-vv",
    "--list",
    "--show-current",
    "--all",
    "--remotes",
    "--verbose",
    "--no-color",
    "--color",
];

/// Whether one argv (program and arguments) is a known read-only invocation that names no secret
/// file.
pub fn is_read_only_argv(argv: &[String]) -> bool {
    let Some((program, args)) = argv.split_first() else {
        return false;
    };
    let Some(name) = trusted_program_name(program) else {
        return false;
    };
    // A command that names a secret file asks, however harmless it is.
    if args.iter().any(|a| {
        super::analysis::operand_texts(a)
            .into_iter()
            .any(super::secret_names::names_secret_file)
    }) {
        return false;
    }
    let version_or_help =
        matches!(args, [only] if matches!(only.as_str(), "--version" | "-V" | "--help"));
    if version_or_help
        && (ALWAYS_READ_ONLY.contains(&name) || CONDITIONALLY_READ_ONLY.contains(&name))
    {
        return true;
    }
    let any = |danger: &str, takes_value: &str, long: &[&str]| {
        args.iter()
            .any(|a| short_opt(a, danger, takes_value) || long_opt(a, long))
    };
    match name {
        "tail" => {
            !any("fF", "cns", &["--follow"])
                && !args
                    .iter()
                    .any(|a| a.starts_with('+') && a.contains(['f', 'F']))
        }
        "uniq" => uniq_read_only(args),
        "tree" => !any("oR", "LPIHT", &["--output"]),
        "date" => !any("s", "dfIr", &["--set"]),
        "file" => !any("C", "eFfmP", &["--compile"]),
        "sort" => !any("o", "ktST", &["--output", "--compress-program"]),
        "rg" => !any(
            "z",
            "",
            &["--pre", "--pre-glob", "--hostname-bin", "--search-zip"],
        ),
        "fd" | "fdfind" => !any("xX", "", &["--exec", "--exec-batch"]),
        "find" => !args.iter().any(|a| FIND_UNSAFE.contains(&a.as_str())),
        "sed" => sed_read_only(args),
        "git" => git_read_only(args),
        // `cargo metadata`/`tree` ask rustc about the target, and a repository's
        // `.cargo/config.toml` may name a `rustc-wrapper` to run: only `--version` is read-only.
        "cargo" => false,
        _ => ALWAYS_READ_ONLY.contains(&name),
    }
}

/// The program's name when `word` names it without a path or through a system bin directory;
/// `None` for other paths (`./ls` could be anything).
fn trusted_program_name(word: &str) -> Option<&str> {
    match word.rsplit_once('/') {
        None => Some(word),
        Some((dir, name)) => SYSTEM_BIN_DIRS.contains(&dir).then_some(name),
    }
}

/// Whether a glob in `argv` may expand to arbitrary names without making it unsafe.
pub(super) fn glob_safe(argv: &[String]) -> bool {
    argv.first()
        .and_then(|p| trusted_program_name(p))
        .is_some_and(|name| ALWAYS_READ_ONLY.contains(&name) && !GLOB_UNSAFE.contains(&name))
}

/// Whether `arg` is a cluster of short options (`-abc`) with a letter of `danger` before any letter
/// of `takes_value` (whose value is the rest of the cluster).
fn short_opt(arg: &str, danger: &str, takes_value: &str) -> bool {
    let Some(cluster) = arg.strip_prefix('-') else {
        return false;
    };
    if cluster.starts_with('-') {
        return false;
    }
    for c in cluster.chars() {
        if danger.contains(c) {
            return true;
        }
        if takes_value.contains(c) {
            return false;
        }
    }
    false
}

/// Whether `arg` is one of the long options `names` (with or without `=value`) or an abbreviation
/// of one, as GNU getopt and git accept.
fn long_opt(arg: &str, names: &[&str]) -> bool {
    let name = arg.split_once('=').map_or(arg, |(name, _)| name);
    name.len() > 2 && name.starts_with("--") && names.iter().any(|full| full.starts_with(name))
}

/// `uniq` reads with at most one operand: a second one is its output file.
fn uniq_read_only(args: &[String]) -> bool {
    let mut operands = 0;
    let mut options_done = false;
    for arg in args {
        if arg.contains(['*', '?', '[']) {
            return false; // a glob may expand to several operands
        }
        if options_done || arg == "-" || !arg.starts_with('-') {
            operands += 1;
        } else if arg == "--" {
            options_done = true;
        }
    }
    operands <= 1
}

/// `sed -n SCRIPT [FILE...]` where the script only prints lines by number or range.
fn sed_read_only(args: &[String]) -> bool {
    let [flag, script, files @ ..] = args else {
        return false;
    };
    flag == "-n"
        && script.split(';').all(is_print_command)
        && files.iter().all(|f| f == "-" || !f.starts_with('-'))
}

/// Whether `command` is `p`, `Np`, `$p` or `A,Bp` (A, B line numbers or `$`).
fn is_print_command(command: &str) -> bool {
    let is_line = |a: &str| a == "$" || (!a.is_empty() && a.bytes().all(|b| b.is_ascii_digit()));
    let Some(address) = command.trim().strip_suffix('p') else {
        return false;
    };
    let address = address.trim();
    match address.split_once(',') {
        _ if address.is_empty() => true,
        Some((from, to)) => is_line(from.trim()) && is_line(to.trim()),
        None => is_line(address),
    }
}

/// `git [--no-pager] [-C DIR]... SUBCOMMAND ARGS` for the read-only subcommands and forms.
fn git_read_only(args: &[String]) -> bool {
    let mut i = 0;
    loop {
        match args.get(i).map(String::as_str) {
            Some("--no-pager") => i += 1,
            Some("-C") if i + 1 < args.len() => i += 2,
            _ => break,
        }
    }
    let Some((sub, rest)) = args.get(i..).and_then(<[String]>::split_first) else {
        return false;
    };
    const WRITES_OR_RUNS: &[&str] = &[
        "--output",
        "--ext-diff",
        "--textconv",
        "--filters",
        "--open-files-in-pager",
    ];
    if rest.iter().any(|a| long_opt(a, WRITES_OR_RUNS)) {
        return false;
    }
    let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
    match sub.as_str() {
        "status" | "diff" | "log" | "show" | "blame" | "ls-files" | "rev-parse" | "describe"
        | "shortlog" | "cat-file" => true,
        "grep" => !rest.iter().any(|a| short_opt(a, "O", "")),
        "branch" => rest.iter().all(|a| GIT_BRANCH_LIST.contains(a)),
        "remote" => matches!(rest.as_slice(), [] | ["-v"] | ["--verbose"]),
        "tag" => match rest.split_first() {
            None => true,
            Some((flag, patterns)) => {
                matches!(*flag, "-l" | "--list") && patterns.iter().all(|p| !p.starts_with('-'))
            }
        },
        "stash" => rest.first() == Some(&"list"),
        _ => false,
    }
}
