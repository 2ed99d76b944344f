//! `find`: where it starts, whether a name or path test narrows what it finds, and what it runs
//! (`-exec`, `-execdir`, `-ok`, `-okdir`) or deletes (`-delete`). A file found stands for `{}`: below
//! the start when a test narrows it, else the start itself (everything under it).

use globset::GlobBuilder;

use super::invocation::Arg;

/// Tests that narrow what `find` finds by name or path.
const NAME_TESTS: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
];

/// Primaries that run a command up to `;` or `+`.
const EXEC: &[&str] = &["-exec", "-execdir", "-ok", "-okdir"];

/// A parsed `find` command line.
pub(super) struct Find<'a> {
    /// Where it starts (`.` when none is given).
    pub roots: Vec<Arg>,
    /// Its expression.
    pub expression: &'a [Arg],
}

impl<'a> Find<'a> {
    /// Splits `find`'s arguments into the starting points and the expression.
    pub fn parse(args: &'a [Arg]) -> Find<'a> {
        let mut i = 0;
        // Global options before the starting points: -H, -L, -P, -D debugopts, -Olevel.
        while let Some(arg) = args.get(i) {
            match arg.text.as_str() {
                "-H" | "-L" | "-P" => i += 1,
                "-D" => i += 2,
                t if t.starts_with("-O") => i += 1,
                _ => break,
            }
        }
        let start = i;
        while args.get(i).is_some_and(|a| {
            a.unknown
                || !(a.text.starts_with('-') || matches!(a.text.as_str(), "(" | "!" | ")" | ","))
        }) {
            i += 1;
        }
        let mut roots = args[start..i].to_vec();
        if roots.is_empty() {
            roots.push(Arg::known("."));
        }
        Find {
            roots,
            expression: &args[i..],
        }
    }

    /// Whether a name or path test narrows what it finds, with no `!`, `-not` or `-o` that could
    /// turn it around, and none of them matching `.git`.
    fn narrowed(&self) -> Option<bool> {
        let words: Vec<&str> = self.expression.iter().map(|a| a.text.as_str()).collect();
        if words
            .iter()
            .any(|w| matches!(*w, "!" | "-not" | "-o" | "-or"))
        {
            return Some(false);
        }
        let mut narrowed = false;
        for (i, word) in words.iter().enumerate() {
            if NAME_TESTS.contains(word) {
                let pattern = words.get(i + 1).copied().unwrap_or("");
                if matches_git(word, pattern) {
                    return None;
                }
                narrowed = true;
            }
        }
        Some(narrowed)
    }

    /// What `{}` stands for from each starting point: a file below it when a test narrows the
    /// search, the starting point itself when not, `.git` below it when a test matches `.git`.
    pub fn found(&self) -> Vec<Arg> {
        let narrowed = self.narrowed();
        self.roots
            .iter()
            .map(|root| {
                let below = |name: &str| Arg {
                    text: format!("{}/{name}", root.text.trim_end_matches('/')),
                    ..root.clone()
                };
                match narrowed {
                    Some(true) => below("{}"),
                    Some(false) => root.clone(),
                    None => below(".git"),
                }
            })
            .collect()
    }

    /// Whether it deletes what it finds (`-delete`, or `-exec rm`, `unlink`, `shred`).
    pub fn deletes(&self) -> bool {
        self.expression.iter().enumerate().any(|(i, a)| {
            a.text == "-delete"
                || (EXEC.contains(&a.text.as_str())
                    && self.expression.get(i + 1).is_some_and(|p| {
                        matches!(p.base_name(), "rm" | "unlink" | "shred" | "rmdir")
                    }))
        })
    }
}

/// Whether the `find` test `test PATTERN` could match `.git` or a file in it.
fn matches_git(test: &str, pattern: &str) -> bool {
    let glob = |text: &str| {
        GlobBuilder::new(pattern)
            .build()
            .is_ok_and(|g| g.compile_matcher().is_match(text))
    };
    match test.trim_start_matches("-i") {
        "-name" | "name" => glob(".git"),
        "-path" | "path" | "-wholename" | "wholename" => {
            ["./.git", "./.git/config", ".git"].iter().any(|p| glob(p))
        }
        // Regular expressions are not evaluated: one that mentions git or matches anything counts.
        _ => pattern.contains("git") || pattern == ".*",
    }
}

/// The commands `find`'s `-exec`/`-execdir`/`-ok`/`-okdir` run, once per starting point, `{}` in
/// them standing for what is found.
pub(super) fn find_exec_commands(args: &[Arg]) -> Vec<Vec<Arg>> {
    let find = Find::parse(args);
    let found = find.found();
    let mut commands = Vec::new();
    let mut words = find.expression.iter();
    while let Some(word) = words.next() {
        if !EXEC.contains(&word.text.as_str()) {
            continue;
        }
        let template: Vec<&Arg> = words
            .by_ref()
            .take_while(|a| a.text != ";" && a.text != "+")
            .collect();
        for target in &found {
            let argv: Vec<Arg> = template
                .iter()
                .map(|a| {
                    if a.text == "{}" {
                        target.clone()
                    } else if a.text.contains("{}") {
                        Arg::unknown()
                    } else {
                        (*a).clone()
                    }
                })
                .collect();
            commands.push(argv);
        }
    }
    commands
}
