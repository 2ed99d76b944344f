//! Instruction files at every level.

use super::*;

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("dir");
    }
    std::fs::write(path, text).expect("write");
}

#[test]
fn user_then_root_down_to_the_working_directory_with_claude_md_as_fallback() {
    let home = tempfile::tempdir().expect("home");
    let repo = tempfile::tempdir().expect("repo");
    let root = repo.path();
    std::fs::create_dir_all(root.join(".git")).expect("git");
    let cwd = root.join("crates/app");
    write(&home.path().join("AGENTS.md"), "user rules");
    write(&root.join("AGENTS.md"), "root rules");
    write(&root.join("crates/CLAUDE.md"), "claude rules");
    write(&cwd.join("AGENTS.md"), "app rules");
    write(&cwd.join("CLAUDE.md"), "ignored: AGENTS.md is there");
    // Above the repository root: not read.
    write(&root.parent().expect("parent").join("AGENTS.md"), "outside");

    let files = find_instructions(home.path(), &cwd, "AGENTS.md", &mut Vec::new());
    let texts: Vec<&str> = files.iter().map(|f| f.text.as_str()).collect();
    assert_eq!(
        texts,
        ["user rules", "root rules", "claude rules", "app rules"]
    );
    let rendered = render_instructions(&files);
    assert!(rendered.contains(&format!(
        "# Instructions from {}\nroot rules",
        root.join("AGENTS.md").display()
    )));
    assert!(
        find_instructions(home.path(), &cwd, "", &mut Vec::new()).is_empty(),
        "an empty guide_file reads none"
    );
    let custom = find_instructions(home.path(), &cwd, "CONVENTIONS.md", &mut Vec::new());
    assert_eq!(custom.len(), 2, "CLAUDE.md still stands in: {custom:?}");
}

#[test]
fn long_files_are_cut_with_a_notice() {
    let home = tempfile::tempdir().expect("home");
    let ws = tempfile::tempdir().expect("ws");
    write(&ws.path().join("AGENTS.md"), &"x".repeat(40 * 1024));
    let files = find_instructions(home.path(), ws.path(), "AGENTS.md", &mut Vec::new());
    assert!(files[0].truncated);
    assert_eq!(files[0].text.len(), 32 * 1024);
    assert!(render_instructions(&files).contains("was cut here"));
    assert_eq!(files[0].tokens(), 8 * 1024);
}
