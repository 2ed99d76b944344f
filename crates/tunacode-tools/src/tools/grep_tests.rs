//! Tests of the `grep` tool.

use super::*;
use crate::testutil::{args, ctx};
use serde_json::json;

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src/nested")).unwrap();
    std::fs::create_dir_all(root.join("target")).unwrap();
    std::fs::write(root.join(".gitignore"), "target/\n*.log\n").unwrap();
    std::fs::write(root.join("src/main.rs"), "fn main() {\n    helper();\n}\n").unwrap();
    std::fs::write(
        root.join("src/nested/lib.rs"),
        "pub fn helper() {}\n// Helper docs\n",
    )
    .unwrap();
    std::fs::write(root.join("src/app.ts"), "function helper() {}\n").unwrap();
    std::fs::write(root.join("target/out.rs"), "fn helper() {}\n").unwrap();
    std::fs::write(root.join("debug.log"), "helper\n").unwrap();
    std::fs::write(root.join(".hidden.rs"), "helper\n").unwrap();
    std::fs::write(root.join("blob.bin"), b"helper\x00\x01binary").unwrap();
    dir
}

async fn grep(dir: &Path, a: Value) -> Result<String, ToolError> {
    Grep::default()
        .call(args(a), &ctx(dir))
        .await
        .map(|o| o.content)
}

/// Adds `n` files without a match, so a tree of more than [`SMALL_TREE`] entries is walked in
/// parallel.
fn fill(root: &Path, n: usize) {
    std::fs::create_dir_all(root.join("filler")).unwrap();
    for i in 0..n {
        std::fs::write(root.join(format!("filler/f{i}.txt")), "nothing here\n").unwrap();
    }
}

#[tokio::test]
async fn honours_gitignore_hidden_and_binary_without_a_git_dir() {
    // A small tree is searched on the calling thread, a big one in parallel: the same answer.
    for filler in [0, SMALL_TREE + 50] {
        honours_gitignore_hidden_and_binary(filler).await;
    }
}

async fn honours_gitignore_hidden_and_binary(filler: usize) {
    let dir = tree();
    fill(dir.path(), filler);
    assert!(!dir.path().join(".git").exists());
    let out = grep(dir.path(), json!({"pattern": "helper"}))
        .await
        .unwrap();
    assert_eq!(
        out,
        "src/app.ts:1:function helper() {}\n\
         src/main.rs:2:    helper();\n\
         src/nested/lib.rs:1:pub fn helper() {}\n\
         src/nested/lib.rs:2:// Helper docs\n"
    );
}

#[tokio::test]
async fn smart_case_and_explicit_case_sensitivity() {
    let dir = tree();
    let out = grep(dir.path(), json!({"pattern": "Helper"}))
        .await
        .unwrap();
    assert_eq!(out, "src/nested/lib.rs:2:// Helper docs\n");
    let out = grep(
        dir.path(),
        json!({"pattern": "helper", "case_sensitive": true, "path": "src/nested"}),
    )
    .await
    .unwrap();
    assert_eq!(out, "src/nested/lib.rs:1:pub fn helper() {}\n");
    let out = grep(
        dir.path(),
        json!({"pattern": "HELPER", "case_sensitive": false, "path": "src/nested/lib.rs"}),
    )
    .await
    .unwrap();
    assert_eq!(out.lines().count(), 2, "{out}");
}

#[tokio::test]
async fn include_globs_match_names_or_paths() {
    let dir = tree();
    let out = grep(dir.path(), json!({"pattern": "helper", "include": "*.rs"}))
        .await
        .unwrap();
    assert!(
        out.contains("src/main.rs:2:") && out.contains("src/nested/lib.rs:1:"),
        "{out}"
    );
    assert!(!out.contains("app.ts") && !out.contains("target/"), "{out}");
    let out = grep(
        dir.path(),
        json!({"pattern": "helper", "include": "src/nested/**/*.rs"}),
    )
    .await
    .unwrap();
    assert_eq!(out.lines().count(), 2, "{out}");
    let out = grep(
        dir.path(),
        json!({"pattern": "helper", "include": "*.{ts,tsx}"}),
    )
    .await
    .unwrap();
    assert_eq!(out, "src/app.ts:1:function helper() {}\n");
    let err = grep(dir.path(), json!({"pattern": "x", "include": "a[b"}))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Retry(m) if m.contains("invalid glob")));
}

#[tokio::test]
async fn caps_results_and_trims_long_lines() {
    let dir = tempfile::tempdir().unwrap();
    let many: String = (0..50).map(|i| format!("match {i}\n")).collect();
    for f in ["a.txt", "b.txt", "c.txt"] {
        std::fs::write(dir.path().join(f), &many).unwrap();
    }
    std::fs::write(
        dir.path().join("long.md"),
        format!("needle {}\n", "x".repeat(1000)),
    )
    .unwrap();
    let out = grep(dir.path(), json!({"pattern": "match", "max_results": 120}))
        .await
        .unwrap();
    let lines: Vec<_> = out.lines().collect();
    assert_eq!(lines.len(), 121, "{out}");
    assert!(
        lines[120].starts_with("(results capped at 120 matches"),
        "{}",
        lines[120]
    );
    let mut sorted = lines[..120].to_vec();
    sorted.sort_by_key(|l| {
        let mut parts = l.splitn(3, ':');
        (
            parts.next().unwrap().to_string(),
            parts.next().unwrap().parse::<u64>().unwrap(),
        )
    });
    assert_eq!(
        sorted,
        lines[..120].to_vec(),
        "results are sorted by path then line"
    );
    let out = grep(dir.path(), json!({"pattern": "match"})).await.unwrap();
    assert_eq!(out.lines().count(), DEFAULT_MAX_RESULTS + 1);
    let out = grep(dir.path(), json!({"pattern": "needle"}))
        .await
        .unwrap();
    let line = out.lines().next().unwrap();
    assert!(
        line.starts_with("long.md:1:needle ") && line.ends_with(" ..."),
        "{line}"
    );
    assert_eq!(line.len(), "long.md:1:".len() + MAX_LINE_CHARS + 4);
}

#[tokio::test]
async fn exactly_max_results_is_not_capped() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a"), "x\nx\nx\n").unwrap();
    let out = grep(dir.path(), json!({"pattern": "x", "max_results": 3}))
        .await
        .unwrap();
    assert_eq!(out, "a:1:x\na:2:x\na:3:x\n");
}

#[tokio::test]
async fn no_match_invalid_regex_and_bad_paths() {
    let dir = tree();
    let out = grep(dir.path(), json!({"pattern": "zzz_nothing"}))
        .await
        .unwrap();
    assert_eq!(out, "No matches for `zzz_nothing` in `.`.");
    let err = grep(dir.path(), json!({"pattern": "fn("}))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Retry(m) if m.starts_with("invalid regex `fn(`")));
    let err = grep(dir.path(), json!({"pattern": "x", "path": "../.."}))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Retry(m) if m.contains("outside the workspace")));
    let err = grep(dir.path(), json!({"pattern": "x", "path": "missing"}))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Retry(m) if m.contains("does not exist")));
}

#[tokio::test]
async fn deadline_and_cancel_stop_the_search() {
    let dir = tree();
    let tool = Grep::with_deadline(Duration::ZERO);
    let out = tool
        .call(args(json!({"pattern": "helper"})), &ctx(dir.path()))
        .await
        .unwrap();
    assert!(out.content.contains("cut short"), "{}", out.content);
    let ctx = ctx(dir.path());
    ctx.cancel.cancel();
    let err = Grep::default()
        .call(args(json!({"pattern": "helper"})), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err, ToolError::Cancelled);
}

#[tokio::test]
async fn secrets_are_skipped_and_counted_and_an_explicit_one_is_refused() {
    // On the calling thread and in parallel: the secret folder counts once, its files are neither
    // searched nor counted.
    for filler in [0, SMALL_TREE + 50] {
        secrets_are_skipped_and_counted(filler).await;
    }
}

async fn secrets_are_skipped_and_counted(filler: usize) {
    let dir = tree();
    let root = dir.path().canonicalize().unwrap();
    fill(&root, filler);
    std::fs::create_dir(root.join("private")).unwrap();
    std::fs::write(root.join("private/keys.txt"), "helper=secret-value\n").unwrap();
    for i in 0..20 {
        std::fs::write(
            root.join(format!("private/k{i}.txt")),
            "helper=secret-value\n",
        )
        .unwrap();
    }
    std::fs::write(root.join("creds.txt"), "helper=secret-value\n").unwrap();
    std::fs::write(root.join(".env"), "HELPER=secret-value\n").unwrap();
    let secrets = crate::secrets::SecretPaths::new(
        None,
        &[],
        &[root.join("private"), root.join("creds.txt")],
    );
    let mut ctx = ctx(&root);
    ctx.workspace = ctx.workspace.with_secrets(std::sync::Arc::new(secrets));

    let out = Grep::default()
        .call(args(json!({"pattern": "helper"})), &ctx)
        .await
        .unwrap()
        .content;
    assert!(!out.contains("secret-value"), "{out}");
    assert!(out.contains("src/main.rs:2:"), "{out}");
    assert!(
        out.ends_with("(2 secret file(s) skipped: the agent does not read secrets)\n"),
        "{out}"
    );
    for path in [".env", ".env ", "private", "creds.txt"] {
        let err = Grep::default()
            .call(args(json!({"pattern": "helper", "path": path})), &ctx)
            .await
            .unwrap_err();
        assert!(
            matches!(&err, ToolError::Fatal(m) if m.starts_with("refused")),
            "{path}: {err}"
        );
    }
}

#[tokio::test]
async fn links_out_of_the_workspace_are_never_followed() {
    // On the calling thread and in parallel.
    for filler in [0, SMALL_TREE + 50] {
        links_out_are_not_followed(filler).await;
    }
}

async fn links_out_are_not_followed(filler: usize) {
    let dir = tree();
    fill(dir.path(), filler);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("o.rs"), "helper outside\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("src/out")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("o.rs"), dir.path().join("src/o.rs")).unwrap();
    let out = grep(dir.path(), json!({"pattern": "helper"}))
        .await
        .unwrap();
    assert!(!out.contains("outside"), "{out}");
    let err = grep(dir.path(), json!({"pattern": "helper", "path": "src/out"}))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("outside the workspace"), "{err}");
}
