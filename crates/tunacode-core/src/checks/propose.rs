//! The checks `/init` proposes from a repository's build files: Cargo, npm scripts, Python, Go, a
//! Makefile's `test` target. A proposal only: the model verifies the commands and writes
//! `.tunacode/checks.json`, which runs once the user approves it.

use std::path::Path;

use tunacode_store::{CheckKind, CheckSpec, CheckWhen};

fn check(name: &str, kind: CheckKind, command: &str, files: &[&str], when: CheckWhen) -> CheckSpec {
    CheckSpec {
        name: name.to_string(),
        kind,
        command: command.to_string(),
        files: files.iter().map(|f| f.to_string()).collect(),
        when,
        timeout_secs: None,
        from_project: false,
    }
}

/// The checks the build files under `root` suggest (reads a few files: call off the async threads).
pub fn propose_checks(root: &Path) -> Vec<CheckSpec> {
    let mut checks = Vec::new();
    let read = |name: &str| std::fs::read_to_string(root.join(name)).ok();
    if root.join("Cargo.toml").is_file() {
        checks.push(check(
            "cargo check",
            CheckKind::Typecheck,
            "cargo check --quiet --all-targets",
            &["**/*.rs", "**/Cargo.toml"],
            CheckWhen::AfterEdit,
        ));
        checks.push(check(
            "cargo test",
            CheckKind::Test,
            "cargo test --quiet",
            &["**/*.rs"],
            CheckWhen::AtCompletion,
        ));
    }
    if let Some(text) = read("package.json") {
        checks.extend(npm_checks(&text, root.join("tsconfig.json").is_file()));
    }
    if let Some(text) = read("pyproject.toml").or_else(|| read("setup.cfg")) {
        checks.extend(python_checks(&text, root));
    } else if has_python_files(root) {
        checks.extend(python_checks("", root));
    }
    if root.join("go.mod").is_file() {
        let go = ["**/*.go"];
        checks.push(check(
            "go vet",
            CheckKind::Lint,
            "go vet ./...",
            &go,
            CheckWhen::AfterEdit,
        ));
        checks.push(check(
            "go test",
            CheckKind::Test,
            "go test ./...",
            &go,
            CheckWhen::AtCompletion,
        ));
    }
    let make_test = read("Makefile").is_some_and(|m| m.lines().any(|l| l.starts_with("test:")));
    if make_test && !checks.iter().any(|c| c.kind == CheckKind::Test) {
        checks.push(check(
            "make test",
            CheckKind::Test,
            "make test",
            &[],
            CheckWhen::AtCompletion,
        ));
    }
    checks
}

fn npm_checks(package_json: &str, typescript: bool) -> Vec<CheckSpec> {
    let scripts = serde_json::from_str::<serde_json::Value>(package_json)
        .ok()
        .and_then(|v| v.get("scripts").cloned())
        .unwrap_or_default();
    let has = |name: &str| scripts.get(name).is_some();
    let js = ["**/*.js", "**/*.ts", "**/*.jsx", "**/*.tsx"];
    let mut checks = Vec::new();
    if has("typecheck") {
        checks.push(check(
            "typecheck",
            CheckKind::Typecheck,
            "npm run --silent typecheck",
            &js,
            CheckWhen::AfterEdit,
        ));
    } else if typescript {
        checks.push(check(
            "tsc",
            CheckKind::Typecheck,
            "npx --no-install tsc --noEmit",
            &js,
            CheckWhen::AfterEdit,
        ));
    }
    if has("lint") {
        checks.push(check(
            "lint",
            CheckKind::Lint,
            "npm run --silent lint",
            &js,
            CheckWhen::AtCompletion,
        ));
    }
    let placeholder = scripts
        .get("test")
        .and_then(|t| t.as_str())
        .is_some_and(|t| t.contains("no test specified"));
    if has("test") && !placeholder {
        checks.push(check(
            "npm test",
            CheckKind::Test,
            "npm test --silent",
            &js,
            CheckWhen::AtCompletion,
        ));
    }
    checks
}

fn python_checks(config: &str, root: &Path) -> Vec<CheckSpec> {
    let py = ["**/*.py"];
    let mut checks = vec![check(
        "python compiles",
        CheckKind::Typecheck,
        "python3 -m compileall -q -f -x '(^|/)(\\.venv|venv|node_modules|\\.git)/' .",
        &py,
        CheckWhen::AfterEdit,
    )];
    if config.contains("ruff") {
        checks.push(check(
            "ruff",
            CheckKind::Lint,
            "ruff check --quiet .",
            &py,
            CheckWhen::AfterEdit,
        ));
    }
    if config.contains("mypy") {
        checks.push(check(
            "mypy",
            CheckKind::Typecheck,
            "mypy .",
            &py,
            CheckWhen::AtCompletion,
        ));
    }
    if config.contains("pytest") || root.join("tests").is_dir() {
        checks.push(check(
            "pytest",
            CheckKind::Test,
            "python3 -m pytest -q",
            &py,
            CheckWhen::AtCompletion,
        ));
    }
    checks
}

fn has_python_files(root: &Path) -> bool {
    std::fs::read_dir(root).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "py"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(root: &Path) -> Vec<String> {
        propose_checks(root).into_iter().map(|c| c.name).collect()
    }

    #[test]
    fn build_files_suggest_their_checks() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert!(names(root).is_empty());
        std::fs::write(root.join("Cargo.toml"), "[package]").unwrap();
        assert_eq!(names(root), vec!["cargo check", "cargo test"]);
        std::fs::write(
            root.join("package.json"),
            r#"{"scripts": {"lint": "eslint .", "test": "echo \"Error: no test specified\" && exit 1"}}"#,
        )
        .unwrap();
        std::fs::write(root.join("tsconfig.json"), "{}").unwrap();
        assert_eq!(
            names(root),
            vec!["cargo check", "cargo test", "tsc", "lint"]
        );
    }

    #[test]
    fn python_gets_a_compile_check_and_what_its_config_names() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("main.py"), "print(1)\n").unwrap();
        assert_eq!(names(root), vec!["python compiles"]);
        std::fs::write(
            root.join("pyproject.toml"),
            "[tool.ruff]\n[tool.pytest.ini_options]\n",
        )
        .unwrap();
        assert_eq!(names(root), vec!["python compiles", "ruff", "pytest"]);
    }
}
