//! The attacks: a repository's `AGENTS.md` linked to `/proc/self/environ`, a skill folder linked out
//! of the repository, a command linked to a key file, a fifo as an instruction file; and what stays
//! allowed (links inside the repository).

use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use super::*;
use crate::custom_commands::find_commands;
use crate::instructions::find_instructions;
use crate::skills::find_skills;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
    std::fs::write(path, text).expect("write");
}

/// A repository (`repo/`, with `.git`), the user's config folder (`home/`) and a folder outside both.
struct Layout {
    _dir: tempfile::TempDir,
    repo: PathBuf,
    home: PathBuf,
    outside: PathBuf,
}

fn layout() -> Layout {
    let dir = tempfile::tempdir().expect("dir");
    let (repo, home, outside) = (
        dir.path().join("repo"),
        dir.path().join("home"),
        dir.path().join("outside"),
    );
    for d in [&repo.join(".git"), &home, &outside] {
        std::fs::create_dir_all(d).expect("dir");
    }
    Layout {
        _dir: dir,
        repo,
        home,
        outside,
    }
}

fn reasons(skipped: &[Skipped]) -> String {
    skipped
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn an_agents_md_linked_to_proc_self_environ_is_skipped_and_said() {
    let l = layout();
    symlink("/proc/self/environ", l.repo.join("AGENTS.md")).expect("link");
    write(
        &l.repo.join("CLAUDE.md"),
        "not a stand-in for a bad AGENTS.md",
    );
    let mut skipped = Vec::new();
    let files = find_instructions(&l.home, &l.repo, "AGENTS.md", &mut skipped);
    assert_eq!(files, Vec::new());
    assert_eq!(skipped.len(), 1, "{}", reasons(&skipped));
    assert_eq!(skipped[0].path, l.repo.join("AGENTS.md"));
    assert!(
        skipped[0].reason.contains("environ") && skipped[0].reason.contains("under /proc"),
        "{}",
        skipped[0]
    );
}

#[test]
fn links_out_of_the_repository_or_to_devices_are_skipped_and_links_inside_are_read() {
    let l = layout();
    write(&l.outside.join("notes.md"), "outside text");
    write(&l.repo.join("docs/rules.md"), "linked inside");
    let sub = l.repo.join("sub");
    std::fs::create_dir_all(&sub).expect("sub");
    symlink(l.repo.join("docs/rules.md"), l.repo.join("AGENTS.md")).expect("link");
    symlink(l.outside.join("notes.md"), sub.join("AGENTS.md")).expect("link");
    let deeper = sub.join("deeper");
    std::fs::create_dir_all(&deeper).expect("deeper");
    symlink("/dev/zero", deeper.join("AGENTS.md")).expect("link");
    let mut skipped = Vec::new();
    let files = find_instructions(&l.home, &deeper, "AGENTS.md", &mut skipped);
    let texts: Vec<&str> = files.iter().map(|f| f.text.as_str()).collect();
    assert_eq!(texts, ["linked inside"]);
    let said = reasons(&skipped);
    assert!(
        said.contains("outside") && said.contains("notes.md"),
        "{said}"
    );
    assert!(said.contains("/dev/zero"), "{said}");
}

#[test]
fn the_users_own_file_must_stay_in_the_config_folder() {
    let l = layout();
    write(&l.outside.join("secret"), "SECRET");
    symlink(l.outside.join("secret"), l.home.join("AGENTS.md")).expect("link");
    let mut skipped = Vec::new();
    let files = find_instructions(&l.home, &l.repo, "AGENTS.md", &mut skipped);
    assert!(files.is_empty());
    assert!(reasons(&skipped).contains(&l.home.display().to_string()));
}

#[test]
fn a_fifo_is_never_opened_for_reading() {
    let l = layout();
    nix::unistd::mkfifo(
        &l.repo.join("AGENTS.md"),
        nix::sys::stat::Mode::from_bits_truncate(0o600),
    )
    .expect("fifo");
    let (tx, rx) = mpsc::channel();
    let (home, repo) = (l.home.clone(), l.repo.clone());
    std::thread::spawn(move || {
        let mut skipped = Vec::new();
        let files = find_instructions(&home, &repo, "AGENTS.md", &mut skipped);
        let _ = tx.send((files, skipped));
    });
    // A read would block until a writer came; none ever does.
    let (files, skipped) = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("returned without blocking");
    assert!(files.is_empty());
    assert!(
        reasons(&skipped).contains("a fifo"),
        "{}",
        reasons(&skipped)
    );
}

#[test]
fn a_skill_folder_linked_out_of_the_repository_is_skipped() {
    let l = layout();
    write(
        &l.outside.join("evil/SKILL.md"),
        "---\nname: evil\ndescription: from outside\n---\nbody",
    );
    write(
        &l.repo.join(".agents/skills/good/SKILL.md"),
        "---\nname: good\ndescription: inside\n---\nbody",
    );
    let skills_dir = l.repo.join(".tunacode/skills");
    std::fs::create_dir_all(&skills_dir).expect("dir");
    symlink(l.outside.join("evil"), skills_dir.join("evil")).expect("link");
    // A whole skills folder linked out is skipped too.
    let other = l.repo.join("pkg");
    std::fs::create_dir_all(other.join(".tunacode")).expect("dir");
    symlink(&l.outside, other.join(".tunacode/skills")).expect("link");
    let mut skipped = Vec::new();
    let skills = find_skills(&l.home, &other, &mut skipped);
    let names: Vec<&str> = skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["good"]);
    let said = reasons(&skipped);
    assert!(said.contains("evil") && said.contains("outside"), "{said}");
    assert!(said.contains(".tunacode/skills"), "{said}");
}

#[tokio::test]
async fn a_skills_listing_does_not_follow_links_out_of_it() {
    use tunacode_tools::{Tool, ToolContext};
    let l = layout();
    write(
        &l.repo.join(".agents/skills/pdf/SKILL.md"),
        "---\nname: pdf\ndescription: PDFs\n---\nUse fill.py.",
    );
    write(&l.repo.join(".agents/skills/pdf/fill.py"), "print()");
    write(&l.outside.join("private/key.pem"), "KEY");
    symlink(
        l.outside.join("private"),
        l.repo.join(".agents/skills/pdf/private"),
    )
    .expect("link");
    symlink(
        l.outside.join("private/key.pem"),
        l.repo.join(".agents/skills/pdf/key.pem"),
    )
    .expect("link");
    let skills = find_skills(&l.home, &l.repo, &mut Vec::new());
    let tool = crate::skills::SkillTool::new(skills);
    let ctx = ToolContext {
        workspace: tunacode_tools::Workspace::new(&l.repo),
        cancel: tokio_util::sync::CancellationToken::new(),
        exec: Default::default(),
        output: None,
        call_id: String::new(),
    };
    let mut args = serde_json::Map::new();
    args.insert("name".into(), serde_json::json!("pdf"));
    let out = tool.call(args, &ctx).await.expect("loads");
    assert!(out.content.contains("- fill.py"), "{}", out.content);
    assert!(!out.content.contains("key.pem"), "{}", out.content);
    // The skill's file swapped for a link out after it was found is refused when loaded.
    let skill_md = l.repo.join(".agents/skills/pdf/SKILL.md");
    std::fs::remove_file(&skill_md).expect("rm");
    symlink(l.outside.join("private/key.pem"), &skill_md).expect("link");
    let mut args = serde_json::Map::new();
    args.insert("name".into(), serde_json::json!("pdf"));
    let refused = tool.call(args, &ctx).await.expect_err("refused");
    assert!(refused.to_string().contains("outside"), "{refused}");
}

#[test]
fn a_command_linked_to_a_key_file_is_skipped() {
    let l = layout();
    write(
        &l.outside.join(".ssh/id_rsa"),
        "-----BEGIN OPENSSH PRIVATE KEY-----",
    );
    write(&l.repo.join(".tunacode/commands/ok.md"), "fine");
    symlink(
        l.outside.join(".ssh/id_rsa"),
        l.repo.join(".tunacode/commands/x.md"),
    )
    .expect("link");
    let mut skipped = Vec::new();
    let commands = find_commands(&l.home, &l.repo, &mut skipped);
    let names: Vec<&str> = commands.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["ok"]);
    assert!(
        commands.iter().all(|c| !c.body.contains("PRIVATE KEY")),
        "{commands:?}"
    );
    assert!(
        reasons(&skipped).contains("id_rsa"),
        "{}",
        reasons(&skipped)
    );
}

#[test]
fn an_agents_md_linked_to_the_repository_s_env_file_is_skipped() {
    let l = layout();
    write(&l.repo.join(".env"), "OPENAI_API_KEY=sk-dotenv-leak");
    symlink(".env", l.repo.join("AGENTS.md")).expect("link");
    let mut skipped = Vec::new();
    let files = find_instructions(&l.home, &l.repo, "AGENTS.md", &mut skipped);
    assert_eq!(files, Vec::new());
    assert_eq!(skipped.len(), 1, "{}", reasons(&skipped));
    assert!(skipped[0].reason.contains("secrets file"), "{}", skipped[0]);
}
