use super::*;
use pretty_assertions::assert_eq;

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_string()).collect()
}

#[test]
fn read_only_lines() {
    let cases = [
        "ls -la",
        "cat a.txt | head -5",
        "rg foo src | wc -l",
        "git status",
        "git diff HEAD~1 -- src",
        "git log --oneline -5",
        "cd sub && ls",
        "sed -n 1,20p f",
        "sed -n '5p'",
        "sed -n '1,$p;40p' f",
        "find . -name '*.rs'",
        "grep -rn \"a;b\" src",
        "echo 'x > y'",
        "ls src/*.rs",
        "wc -l *.rs",
        "git --no-pager -C sub log -p",
        "git branch -a",
        "git branch",
        "git remote -v",
        "git tag -l 'v1*'",
        "git stash list",
        "git grep -n foo",
        "git diff --output-indicator-new=+",
        "cargo --version",
        "cargo -V",
        "rg --version",
        "sort -k2 -t, x | uniq -c",
        "sort -to x",
        "tail -n 20 log",
        "date +%s",
        "fd -e rs -t x",
        "echo \"cost: $ 5\" || true",
        "/usr/bin/git status",
        "ls ~ && pwd",
        "echo \"it's\" 'a \"b\"' a\\;b",
        "grep -E '^a|b$' f",
        "jq .name package.json",
    ];
    for command in cases {
        assert!(
            is_read_only_command(command),
            "should be read-only: {command:?}"
        );
    }
}

#[test]
fn not_read_only_lines() {
    let cases = [
        "rm -rf x",
        "ls > out.txt",
        "ls 2>/dev/null",
        "ls &> out",
        "cat < x",
        "cat <<EOF",
        "diff <(ls a) <(ls b)",
        "ls; rm x",
        "ls && rm x",
        "cat x | tee y",
        "cat x | sh",
        "ls |& cat",
        "echo $(rm x)",
        "echo \"`rm x`\"",
        "echo `rm x`",
        "echo \"$(rm x)\"",
        "echo $HOME",
        "echo ${HOME}",
        "echo $'a'",
        "(ls)",
        "{ ls; }",
        "echo {a,b}",
        "ls &",
        "ls # comment",
        "find . -delete",
        "find . -exec rm {} +",
        "find . -name x -execdir rm {} ;",
        "find * -name x",
        "rg foo *",
        "git -c core.pager=x log",
        "git --git-dir=x log",
        "git branch -D x",
        "git branch new",
        "git push",
        "git diff --output=x",
        "git diff --output x",
        "git log --ext-diff",
        "git show --textconv HEAD",
        "git grep -O foo",
        "git tag v1",
        "git stash",
        "git remote add o url",
        "git",
        "sort -o f x",
        "sort -ro f x",
        "sort --output=f x",
        "sort --out=f x",
        "rg --pre cat x",
        "rg --pre=cat x",
        "rg -uz x",
        "fd -x rm",
        "fd --exec-batch rm",
        "sed -i s/a/b/ f",
        "sed -n 1p -i f",
        "sed -n '1w out' f",
        "sed s/a/b/ f",
        "sed -n 'e ls'",
        "FOO=1 ls",
        "ls && FOO=1 ls",
        "tail -f log",
        "tail -qf log",
        "tail -F log",
        "tail --follow=name log",
        "uniq a b",
        "uniq *.txt",
        "tree -o out",
        "date -s 2020-01-01",
        "date --set=x",
        "file -C -m magic",
        "cargo build",
        "cargo metadata --format-version 1",
        "cargo tree -p foo",
        "cargo metadata --config build.rustc=x",
        "ls 'unterminated",
        "ls \"unterminated",
        "ls \\",
        "",
        "   ",
        "ls &&",
        "| wc",
        "ls && && ls",
        "ls\nrm x",
        "ls \\\nx",
        "./ls",
        "./cat x",
        "/tmp/bin/ls",
        "python script.py",
        "sudo ls",
        "xargs cat",
    ];
    for command in cases {
        assert!(
            !is_read_only_command(command),
            "should not be read-only: {command:?}"
        );
    }
}

#[test]
fn commands_and_simple() {
    let line = CommandLine::parse("a | b && c");
    assert!(!line.is_complex());
    assert_eq!(line.commands(), [argv(&["a"]), argv(&["b"]), argv(&["c"])]);
    assert_eq!(line.simple(), None);

    let line = CommandLine::parse("git commit -m 'a | b; c'");
    assert_eq!(
        line.simple(),
        Some(argv(&["git", "commit", "-m", "a | b; c"]).as_slice())
    );
    assert_eq!(line.commands().len(), 1);

    let line = CommandLine::parse("a || b|c");
    assert_eq!(line.commands(), [argv(&["a"]), argv(&["b"]), argv(&["c"])]);

    for complex in ["a; b", "a & b", "a > b", "$(a)", "a 'b", "", "FOO=1 a"] {
        let line = CommandLine::parse(complex);
        assert!(line.is_complex(), "{complex:?}");
        assert!(line.commands().is_empty(), "{complex:?}");
        assert_eq!(line.simple(), None, "{complex:?}");
    }
}

#[test]
fn argv_checks() {
    let cases: [(&[&str], bool); 8] = [
        (&["ls", "-la"], true),
        (&["git", "log", "a;b"], true),
        (&["uniq", "-c", "in"], true),
        (&["uniq", "in", "out"], false),
        (&["/bin/cat", "x"], true),
        (&["./cat", "x"], false),
        (&["sed", "-n"], false),
        (&[], false),
    ];
    for (words, expected) in cases {
        assert_eq!(is_read_only_argv(&argv(words)), expected, "{words:?}");
    }
}

#[test]
fn session_prefixes() {
    let cases: [(&[&str], Option<&[&str]>); 12] = [
        (&["git", "commit", "-m", "x"], Some(&["git", "commit"])),
        (&["cargo", "test", "-p", "a"], Some(&["cargo", "test"])),
        (&["npm", "run", "build"], Some(&["npm", "run"])),
        (&["npm", "run:all"], Some(&["npm", "run:all"])),
        (
            &["/usr/bin/git", "status"],
            Some(&["/usr/bin/git", "status"]),
        ),
        (&["rm", "-rf", "x"], None),
        (&["git", "--no-pager", "log"], None),
        (&["git", "x;y"], None),
        (&["git"], None),
        (&["sudo", "apt", "install", "x"], None),
        (&["env", "make"], None),
        (&["python", "script.py"], None),
    ];
    for (words, expected) in cases {
        assert_eq!(
            session_prefix(&argv(words)),
            expected.map(argv),
            "{words:?}"
        );
    }
}
