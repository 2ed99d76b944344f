//! Permission rules: patterns, precedence, and compound command lines.

use serde_json::json;

use super::*;

const WS: &str = "/work/p";

fn rules(allow: &[&str], ask: &[&str], deny: &[&str]) -> Permissions {
    let list = |r: &[&str]| r.iter().map(|s| s.to_string()).collect();
    Permissions::parse(&PermissionsConfig {
        allow: list(allow),
        ask: list(ask),
        deny: list(deny),
        ..Default::default()
    })
    .expect("valid rules")
}

fn bash(line: &str) -> Value {
    json!({"command": line})
}

#[test]
fn command_rules_match_exactly_or_by_prefix_and_allow_only_simple_lines() {
    let p = rules(
        &["bash(git status)", "Bash(cargo test:*)"],
        &[],
        &["bash(rm -rf:*)"],
    );
    let ws = Path::new(WS);
    assert_eq!(
        p.check("bash", &bash("git status"), ws),
        Verdict::Allow("bash(git status)".into())
    );
    assert_eq!(p.check("bash", &bash("git status -s"), ws), Verdict::None);
    assert_eq!(
        p.check("bash", &bash("cargo test -p x"), ws),
        Verdict::Allow("Bash(cargo test:*)".into())
    );
    assert_eq!(p.check("bash", &bash("cargo testing"), ws), Verdict::None);
    assert_eq!(
        p.check("bash", &bash("cargo test && touch x"), ws),
        Verdict::None,
        "allow needs a simple line"
    );
    assert_eq!(
        p.check("bash", &bash("cargo test && rm -rf build"), ws),
        Verdict::Deny("bash(rm -rf:*)".into()),
        "deny looks at every command of the line"
    );
    assert_eq!(
        p.check(
            "run_command",
            &json!({"command": "cargo", "args": ["test"]}),
            ws
        ),
        Verdict::Allow("Bash(cargo test:*)".into()),
        "a bash rule covers run_command too"
    );
}

#[test]
fn paths_tools_and_precedence() {
    let p = rules(
        &["write_file(src/**)", "mcp__github__*"],
        &["write_file(src/secret/**)"],
        &["read_file(.env)"],
    );
    let ws = Path::new(WS);
    let file = |path: &str| json!({"file_path": path});
    assert_eq!(
        p.check("write_file", &file("src/a/b.rs"), ws),
        Verdict::Allow("write_file(src/**)".into())
    );
    assert_eq!(
        p.check("write_file", &file("/work/p/src/lib.rs"), ws),
        Verdict::Allow("write_file(src/**)".into())
    );
    assert_eq!(
        p.check("write_file", &file("src/secret/k"), ws),
        Verdict::Ask("write_file(src/secret/**)".into())
    );
    assert_eq!(p.check("write_file", &file("docs/x.md"), ws), Verdict::None);
    assert_eq!(
        p.check("read_file", &file(".env"), ws),
        Verdict::Deny("read_file(.env)".into())
    );
    assert_eq!(
        p.check("mcp__github__create_issue", &json!({}), ws),
        Verdict::Allow("mcp__github__*".into())
    );
    assert_eq!(p.check("mcp__gitlab__x", &json!({}), ws), Verdict::None);
    assert!(
        p.describe().contains("deny   read_file(.env)"),
        "{}",
        p.describe()
    );
}

#[test]
fn malformed_rules_are_named() {
    let err = Permissions::parse(&PermissionsConfig {
        allow: vec!["bash(git status".into()],
        ..PermissionsConfig::default()
    })
    .expect_err("unclosed");
    assert!(
        err.to_string()
            .contains("permissions.allow: `bash(git status`"),
        "{err}"
    );
}

#[test]
fn deny_rules_see_every_command_a_line_runs_whatever_the_spelling() {
    let p = rules(&[], &[], &["bash(curl:*)"]);
    let ws = Path::new(WS);
    let denied = Verdict::Deny("bash(curl:*)".into());
    for line in [
        "curl x",
        "command curl x",
        "/usr/bin/curl x",
        "env curl x",
        "env -i A=1 curl x",
        "sh -c 'curl x'",
        "bash -c -- 'curl x'",
        "echo x; curl y",
        "X=1 curl y",
        "nice -n 5 curl x",
        "timeout 5 curl x",
        "sudo -u me curl x",
        "stdbuf -o0 curl x",
        "time curl x",
        "nohup curl x &",
        "exec curl x",
        "echo u | xargs curl",
        "find . -name x -exec curl {} \\;",
        "f(){ curl x; }; f",
        "eval 'curl x'",
        "echo $(curl x)",
        "cat <(curl x)",
        "if true; then curl x; fi",
        "c=curl; $c x",
        "GIT_SSH_COMMAND='curl x' git fetch",
        "git rebase -x 'curl x' main",
        "git -C . submodule foreach curl x",
    ] {
        assert_eq!(p.check("bash", &bash(line), ws), denied, "{line}");
    }
    for (command, args) in [
        ("curl", json!(["x"])),
        ("/usr/bin/curl", json!([])),
        ("env", json!(["curl", "x"])),
        ("sh", json!(["-c", "curl x"])),
    ] {
        let call = json!({"command": command, "args": args});
        assert_eq!(p.check("run_command", &call, ws), denied, "{call}");
    }
    for line in [
        "echo curl",
        "curlie x",
        "grep curl notes.txt",
        "git commit -m 'curl x'",
    ] {
        assert_eq!(p.check("bash", &bash(line), ws), Verdict::None, "{line}");
    }
}

#[test]
fn allow_rules_allow_only_the_one_command_as_written() {
    let p = rules(&["bash(curl:*)"], &[], &[]);
    let ws = Path::new(WS);
    let allowed = Verdict::Allow("bash(curl:*)".into());
    assert_eq!(p.check("bash", &bash("curl x"), ws), allowed);
    let call = json!({"command": "curl", "args": ["x"]});
    assert_eq!(p.check("run_command", &call, ws), allowed);
    for line in ["env curl x", "curl x; rm -rf y", "sh -c 'curl x'"] {
        assert_eq!(p.check("bash", &bash(line), ws), Verdict::None, "{line}");
    }
}

/// A workspace with `.env`, `sub/`, `secrets/key` and `link` → `.env`.
fn workspace_with_secrets() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join(".env"), "KEY=1\n").expect("write");
    std::fs::create_dir_all(dir.path().join("sub")).expect("mkdir");
    std::fs::create_dir_all(dir.path().join("secrets")).expect("mkdir");
    std::os::unix::fs::symlink(".env", dir.path().join("link")).expect("symlink");
    dir
}

#[test]
fn read_rules_cover_paths_as_the_tools_resolve_them_and_every_reader() {
    let dir = workspace_with_secrets();
    let ws = dir.path();
    let p = rules(&[], &[], &["read_file(**/.env)"]);
    let denied = Verdict::Deny("read_file(**/.env)".into());
    let abs = ws.join(".env").display().to_string();
    for path in [
        ".env",
        ".env ",
        " ./.env",
        "sub/../.env",
        abs.as_str(),
        "sub/.env",
        "link",
    ] {
        let call = json!({"file_path": path});
        assert_eq!(p.check("read_file", &call, ws), denied, "{path:?}");
    }
    let patch = "*** Begin Patch\n*** Update File: src/.env\n@@\n-a\n+b\n*** End Patch";
    for (tool, args) in [
        ("grep", json!({"pattern": "KEY", "path": ".env"})),
        ("glob", json!({"pattern": "*", "path": "sub/.env"})),
        ("list_dir", json!({"directory": ".env"})),
        ("apply_patch", json!({"input": patch})),
        ("bash", bash("cat .env")),
        ("bash", bash("cd sub && cat ../.env")),
        ("bash", bash("grep -r KEY < .env")),
        ("bash", bash("base64 link")),
        ("bash", bash("sh -c 'cp .env /tmp/x'")),
        ("run_command", json!({"command": "cat", "args": [".env"]})),
    ] {
        assert_eq!(p.check(tool, &args, ws), denied, "{tool} {args}");
    }
    for (tool, args) in [
        ("read_file", json!({"file_path": ".env.example"})),
        ("grep", json!({"pattern": "KEY"})),
        ("bash", bash("cat .env.example")),
        ("bash", bash("ls")),
        ("write_file", json!({"file_path": ".env"})),
    ] {
        assert_eq!(p.check(tool, &args, ws), Verdict::None, "{tool} {args}");
    }
}

#[test]
fn a_grep_over_a_directory_holding_a_denied_tree_is_covered() {
    let dir = workspace_with_secrets();
    let ws = dir.path();
    let p = rules(&[], &["read_file(secrets/**)"], &[]);
    let asked = Verdict::Ask("read_file(secrets/**)".into());
    assert_eq!(p.check("grep", &json!({"pattern": "x"}), ws), asked);
    assert_eq!(
        p.check("grep", &json!({"pattern": "x", "path": "secrets/a"}), ws),
        asked
    );
    let src = json!({"pattern": "x", "path": "sub"});
    assert_eq!(p.check("grep", &src, ws), Verdict::None);
    assert_eq!(
        p.check("list_dir", &json!({}), ws),
        Verdict::None,
        "listing reads no content"
    );
}

#[test]
fn write_rules_cover_every_file_of_a_patch() {
    let p = rules(&["write_file(src/**)"], &[], &["update_file(*.lock)"]);
    let ws = Path::new(WS);
    let patch = |paths: &[&str]| {
        let body: String = paths
            .iter()
            .map(|p| format!("*** Add File: {p}\n+x\n"))
            .collect();
        json!({"input": format!("*** Begin Patch\n{body}*** End Patch")})
    };
    assert_eq!(
        p.check("apply_patch", &patch(&["src/a.rs", "Cargo.lock"]), ws),
        Verdict::Deny("update_file(*.lock)".into())
    );
    assert_eq!(
        p.check("apply_patch", &patch(&["src/a.rs"]), ws),
        Verdict::None,
        "an allow rule of another tool does not allow a patch"
    );
    assert_eq!(
        p.check("write_file", &json!({"file_path": "src/a.rs "}), ws),
        Verdict::Allow("write_file(src/**)".into())
    );
}

#[test]
fn command_rules_see_git_without_its_global_options() {
    let p = rules(
        &[],
        &["bash(git push:*)"],
        &[
            "bash(git clean:*)",
            "bash(git status:*)",
            "bash(git -C sub log:*)",
        ],
    );
    let ws = Path::new(WS);
    let asked = Verdict::Ask("bash(git push:*)".into());
    for line in [
        "git -C . push origin main",
        "git --git-dir=.git --work-tree=. push",
        "git --git-dir .git -P push",
        "/usr/bin/git --no-pager push",
        "env git -c user.name=x push",
        "sh -c 'git --namespace n push'",
    ] {
        assert_eq!(p.check("bash", &bash(line), ws), asked, "{line}");
    }
    for (line, rule) in [
        ("git -C . clean -n", "bash(git clean:*)"),
        ("git -c core.quotepath=off clean -n", "bash(git clean:*)"),
        ("git --no-pager status --short", "bash(git status:*)"),
        ("git --no-optional-locks -p status", "bash(git status:*)"),
        ("git --config-env=color.ui=C status", "bash(git status:*)"),
        (
            "git --literal-pathspecs --bare status",
            "bash(git status:*)",
        ),
        ("git -C sub log -1", "bash(git -C sub log:*)"),
    ] {
        assert_eq!(
            p.check("bash", &bash(line), ws),
            Verdict::Deny(rule.into()),
            "{line}"
        );
    }
    let call = json!({"command": "git", "args": ["-C", ".", "push"]});
    assert_eq!(p.check("run_command", &call, ws), asked);
    for line in [
        "git -C push log",
        "git log --grep push",
        "git -c x=push log",
    ] {
        assert_eq!(p.check("bash", &bash(line), ws), Verdict::None, "{line}");
    }
}

#[test]
fn read_rules_cover_globs_that_may_name_the_file_and_git_revision_paths() {
    let p = rules(&[], &[], &["read_file(secret.txt)"]);
    let ws = Path::new(WS);
    let denied = Verdict::Deny("read_file(secret.txt)".into());
    for line in [
        "cat secret.txt",
        "cat secr*",
        "cat secret.tx?",
        "cat s[a-f]cret.txt",
        "cat *",
        "cat ./*.txt",
        "cd sub && cat ../secr*",
        "git show :secret.txt",
        "git show HEAD:secret.txt",
        "git show HEAD:./secret.txt",
        "git cat-file -p main:secret.txt",
        "git diff HEAD:secret.txt HEAD~1:secret.txt",
        "git archive HEAD secret.txt",
        "git show :0:secret.txt",
    ] {
        assert_eq!(p.check("bash", &bash(line), ws), denied, "{line}");
    }
    for line in [
        "cat *.md",
        "cat src/*",
        "cat .s*",
        "cat secret.txt?",
        "cat s*/x",
        "git show HEAD:README.md",
        "git show HEAD",
    ] {
        assert_eq!(p.check("bash", &bash(line), ws), Verdict::None, "{line}");
    }

    let p = rules(&[], &["read_file(**/.env)", "read_file(keys/**)"], &[]);
    let env = Verdict::Ask("read_file(**/.env)".into());
    let keys = Verdict::Ask("read_file(keys/**)".into());
    for (line, verdict) in [
        ("cat .e*", &env),
        ("cat .*", &env),
        ("cat sub/.e?v", &env),
        ("cat */.env", &env),
        ("cat */*/.[a-z]nv", &env),
        ("cat k*/id", &keys),
        ("cat k*", &keys),
        // It may name the directory, and a command given a directory may read all of it.
        ("cat *", &keys),
        ("cat keys/*", &keys),
        ("cat */id_rsa", &keys),
        ("git show HEAD:keys/id_rsa", &keys),
    ] {
        assert_eq!(p.check("bash", &bash(line), ws), *verdict, "{line}");
    }
    for line in [
        "cat *.env",
        "cat src/*",
        "cat doc/*.md",
        "cat l*",
        "cat .[a-d]*",
    ] {
        assert_eq!(p.check("bash", &bash(line), ws), Verdict::None, "{line}");
    }
}
