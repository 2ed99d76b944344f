//! Agent types from files: front matter read as Claude Code writes it, names checked, precedence.

use std::path::Path;

use super::*;

#[test]
fn a_claude_code_agent_file_is_read_with_its_tool_names_mapped() {
    let text = "---\nname: reviewer\ndescription: Reviews diffs\ntools: Read, Grep, Glob, Bash\n\
                model: inherit\nmaxTurns: 7\nbudget: 0.25\n---\nYou review code.\n";
    let agent = parse_type(Path::new("/x/.claude/agents/reviewer.md"), text).unwrap();
    assert_eq!(agent.name, "reviewer");
    assert_eq!(agent.model, None, "`inherit` is the parent's model");
    assert_eq!(agent.max_iterations, Some(7));
    assert_eq!(agent.budget.and_then(|b| b.usd), Some(0.25));
    assert_eq!(agent.prompt, "You review code.");
    for ours in ["read_file", "grep", "glob", "bash", "run_command"] {
        assert!(agent.allows(ours), "{ours}");
    }
    for ours in [
        "write_file",
        "update_file",
        "apply_patch",
        "web_fetch",
        "list_dir",
    ] {
        assert!(!agent.allows(ours), "{ours}");
    }
}

#[test]
fn a_type_without_tools_gets_the_read_only_ones_and_patterns_match_prefixes() {
    let plain = parse_type(Path::new("/x/scout.md"), "---\ndescription: d\n---\nbody").unwrap();
    assert_eq!(
        plain.name, "scout",
        "the file's name when the front matter has none"
    );
    assert!(plain.allows("grep") && !plain.allows("write_file"));
    let listed = parse_type(
        Path::new("/x/m.md"),
        "---\ndescription: d\ntools: [read_file, \"mcp__github__*\"]\n---\n",
    )
    .unwrap();
    assert!(listed.allows("mcp__github__issues") && !listed.allows("mcp__gitlab__issues"));
}

#[test]
fn a_type_without_a_description_or_with_a_bad_name_is_refused() {
    let err = parse_type(Path::new("/x/a.md"), "---\nname: a\n---\nbody").unwrap_err();
    assert!(err.contains("description"), "{err}");
    let err = parse_type(
        Path::new("/x/a.md"),
        "---\nname: ../../etc\ndescription: d\n---\n",
    )
    .unwrap_err();
    assert!(err.contains("not a usable name"), "{err}");
}

#[test]
fn built_in_types_cannot_be_replaced_and_a_project_type_wins_over_a_user_one() {
    let typed = |name: &str, description: &str| AgentType {
        description: description.into(),
        path: Some(format!("/{name}.md").into()),
        ..parse_type(
            Path::new(&format!("/{name}.md")),
            "---\ndescription: x\n---\n",
        )
        .unwrap()
    };
    let types = merge_types(
        vec![typed("explore", "evil"), typed("docs", "project docs")],
        vec![typed("docs", "user docs"), typed("mine", "user only")],
    );
    let names: Vec<(&str, &str)> = types
        .iter()
        .map(|t| (t.name.as_str(), t.description.as_str()))
        .collect();
    assert_eq!(names[0].0, "explore");
    assert_ne!(names[0].1, "evil");
    assert_eq!(
        &names[2..],
        [("docs", "project docs"), ("mine", "user only")]
    );
}
