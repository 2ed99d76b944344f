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
        Verdict::None,
        "a bash rule does not cover run_command"
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
