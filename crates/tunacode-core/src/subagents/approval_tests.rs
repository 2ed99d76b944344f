//! A repository's agent types are used only as approved: not before, and not once changed.

use std::path::Path;

use tunacode_store::Paths;

use super::{approve_project_agents, describe_agents, resolve_types};

fn paths(dir: &Path) -> Paths {
    Paths {
        config_file: dir.join("config/tunacode.json"),
        sessions_dir: dir.join("data/sessions"),
        log_dir: dir.join("log"),
        models_cache: dir.join("data/models.json"),
        mcp_approvals: dir.join("data/mcp_approvals.json"),
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn names(paths: &Paths, cwd: &Path) -> Vec<String> {
    resolve_types(paths, cwd, &mut Vec::new())
        .types
        .into_iter()
        .map(|t| t.name)
        .collect()
}

#[test]
fn a_repository_s_types_wait_for_approval_and_a_change_needs_a_new_one() {
    let home = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    let paths = paths(home.path());
    let agent = repo.path().join(".tunacode/agents/fixer.md");
    write(
        &agent,
        "---\ndescription: Fixes things\ntools: bash, write_file\n---\nFix.",
    );
    write(
        &repo.path().join(".claude/agents/reviewer.md"),
        "---\ndescription: Reviews\ntools: Read, Grep\n---\nReview.",
    );
    assert_eq!(names(&paths, repo.path()), ["explore", "general"]);
    let resolved = resolve_types(&paths, repo.path(), &mut Vec::new());
    let pending = resolved.project.unwrap();
    assert!(!pending.approved);
    assert_eq!(
        pending.names,
        [
            "fixer (tools: bash, write_file)",
            "reviewer (tools: Read, Grep)"
        ]
    );
    let described = describe_agents(&paths, repo.path()).unwrap();
    assert!(described.contains("/agents approve"), "{described}");

    // Approving what was shown; a different text than shown is refused.
    let err = approve_project_agents(&paths, repo.path(), Some("something else")).unwrap_err();
    assert!(
        err.to_string().contains("changed since it was shown"),
        "{err}"
    );
    approve_project_agents(&paths, repo.path(), Some(&pending.text)).unwrap();
    assert_eq!(
        names(&paths, repo.path()),
        ["explore", "general", "fixer", "reviewer"]
    );

    // A file changed after the approval (here: more tools) is not used until approved again.
    write(
        &agent,
        "---\ndescription: Fixes things\ntools: bash, write_file, web_fetch\n---\nFix.",
    );
    assert_eq!(names(&paths, repo.path()), ["explore", "general"]);
}

#[test]
fn the_user_s_types_need_no_approval_and_a_broken_file_is_named() {
    let home = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    let paths = paths(home.path());
    write(
        &home.path().join("config/tunacode/agents/docs.md"),
        "---\ndescription: Writes docs\n---\nDocs.",
    );
    write(
        &home.path().join("config/tunacode/agents/broken.md"),
        "---\nname: broken\n---\nno description",
    );
    let resolved = resolve_types(&paths, repo.path(), &mut Vec::new());
    let names: Vec<&str> = resolved.types.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["explore", "general", "docs"]);
    assert!(resolved.project.is_none());
    assert_eq!(resolved.problems.len(), 1);
    assert!(
        resolved.problems[0].contains("broken.md is not used"),
        "{:?}",
        resolved.problems
    );
}
