//! How `git` reads its own command line: the global options before the subcommand (`-C <path>`,
//! `-c <key=value>`, `--git-dir[=]<path>`, `--no-pager`, …), so that permission rules see
//! `git -C . push` as `git push`; and the `<rev>:<path>` words of subcommands that print a file
//! of a revision (`git show HEAD:secret.txt`, `git show :secret.txt`), which name that file.

use super::invocation::Arg;

/// Git's global options that take the next word as their value (as `git.c` reads them; each but
/// `-C` and `-c` also takes it after `=` in the same word).
const VALUED: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--shallow-file",
    "--attr-source",
    "--super-prefix",
];

/// Whether the global option `word` takes the next word as its value.
pub(super) fn is_valued(word: &str) -> bool {
    VALUED.contains(&word)
}

/// Where the subcommand is among `args` (the words after `git`): after the global options. Git
/// refuses an option it does not know, so every other word starting with `-` counts as one
/// option. An unknown word stops the scan (it may be anything, the subcommand included).
pub(super) fn subcommand_index(args: &[Arg]) -> usize {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg.unknown || !arg.text.starts_with('-') {
            break;
        }
        i += if is_valued(&arg.text) { 2 } else { 1 };
    }
    i.min(args.len())
}

/// The words of a `git` invocation (program first) without its global options, when it has some:
/// `git -C . -c k=v push origin` gives `git push origin`.
pub(super) fn without_global_options(argv: &[Arg]) -> Option<Vec<&str>> {
    let (program, args) = argv.split_first()?;
    let at = subcommand_index(args);
    (at > 0).then(|| {
        std::iter::once(program.text.as_str())
            .chain(args[at..].iter().map(|a| a.text.as_str()))
            .collect()
    })
}

/// The paths named by `<rev>:<path>` words among a git invocation's arguments (`HEAD:a/b`,
/// `:a/b` in the index, `:2:a/b` of a merge stage): `git show`, `cat-file`, `diff`, `archive`,
/// `grep`, … print such a file. Every git word with a `:` counts (conservative: a refspec such as
/// `HEAD:main` then also "names" `main`, which only makes a read rule about `main` look at it).
/// Such a path is relative to the top of the repository, or, starting with `./` or `../`, to the
/// directory git runs in.
pub(super) fn revision_paths(args: &[Arg]) -> Vec<&str> {
    args.iter()
        .skip(subcommand_index(args))
        .filter_map(|arg| revision_path(&arg.text))
        .collect()
}

/// The path of one `<rev>:<path>` word, option values too (`--src-prefix=…` are not paths, but
/// taking them as paths only widens what read rules look at).
fn revision_path(word: &str) -> Option<&str> {
    let (_, path) = word.split_once(':')?;
    // `:0:path` … `:3:path`: a stage of the index.
    let path = match path.split_once(':') {
        Some((stage, rest)) if word.starts_with(':') && matches!(stage, "0" | "1" | "2" | "3") => {
            rest
        }
        _ => path,
    };
    // `:/text` searches commit messages; taking `/text` as a path does no harm.
    (!path.is_empty()).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<Arg> {
        words.iter().map(|w| Arg::known(*w)).collect()
    }

    #[test]
    fn global_options_are_skipped_with_their_values() {
        for (words, at) in [
            (&["push"][..], 0),
            (&["-C", ".", "push"], 2),
            (&["-c", "a.b=c", "--no-pager", "status"], 3),
            (&["--git-dir=.git", "--work-tree", "w", "-P", "log"], 4),
            (&["--config-env", "a.b=E", "--bare", "log"], 3),
            (&["-C"], 1),
        ] {
            assert_eq!(subcommand_index(&args(words)), at, "{words:?}");
        }
        let mut unknown = args(&["-C", ".", "x", "push"]);
        unknown[2] = Arg::unknown();
        assert_eq!(
            subcommand_index(&unknown),
            2,
            "an unknown word stops the scan"
        );
        assert_eq!(
            without_global_options(&args(&["/usr/bin/git", "-C", ".", "push", "o"])),
            Some(vec!["/usr/bin/git", "push", "o"])
        );
        assert_eq!(without_global_options(&args(&["git", "push"])), None);
    }

    #[test]
    fn revision_words_name_their_paths() {
        let words = args(&[
            "-C",
            "x:y",
            "show",
            "HEAD:a.txt",
            ":b.txt",
            ":2:c.txt",
            "main~1:./d/e",
            "HEAD",
            "HEAD:",
        ]);
        assert_eq!(
            revision_paths(&words),
            vec!["a.txt", "b.txt", "c.txt", "./d/e"]
        );
    }
}
