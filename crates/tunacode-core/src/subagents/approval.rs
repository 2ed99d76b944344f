//! A repository's agent types (`.tunacode/agents/*.md`, `.claude/agents/*.md`) are used only once
//! the user approved them as they read now, like `.mcp.json`: the files' names and texts together
//! are what an approval covers (a digest kept in the data dir), so a changed or added file needs a
//! new approval. `/agents` and `tunacode agents` describe them; `approve` approves.

use std::path::Path;

use tunacode_protocol::runtime::ProjectFileKind;
use tunacode_store::{Paths, approve_project_mcp, is_project_mcp_approved};

use super::types::{AgentType, merge_types, project_dirs, read_types, user_dirs};
use crate::project_file_state::ProjectFileState;
use crate::project_files::Skipped;
use crate::settings_error::SettingsError;

/// The agent types of a working directory: those in force, and the project's files as found.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedTypes {
    /// Every type in force (built in, the user's, the project's once approved).
    pub types: Vec<AgentType>,
    /// The project's files, approved or waiting (`None`: the project defines none).
    pub project: Option<ProjectFileState>,
    /// Files that could not be used, with why.
    pub problems: Vec<String>,
}

/// The types in force in `cwd`: the user's folder is the config's (`paths.config_dir`).
pub fn resolve_types(paths: &Paths, cwd: &Path, skipped: &mut Vec<Skipped>) -> ResolvedTypes {
    let mut problems = Vec::new();
    let user = read_types(&user_dirs(&paths.user_dir()), skipped, &mut problems);
    let project = read_types(&project_dirs(cwd), skipped, &mut problems);
    let state = project_state(paths, cwd, &project);
    let approved = state.as_ref().is_some_and(|s| s.approved);
    let types = merge_types(if approved { project } else { Vec::new() }, user);
    ResolvedTypes {
        types,
        project: state,
        problems,
    }
}

/// The project's types as one approvable text (`None`: there are none).
fn project_state(paths: &Paths, cwd: &Path, project: &[AgentType]) -> Option<ProjectFileState> {
    if project.is_empty() {
        return None;
    }
    let text = approvable_text(project);
    let file = cwd.join(ProjectFileKind::Agents.relative_path());
    Some(ProjectFileState {
        approved: is_project_mcp_approved(&paths.mcp_approvals, &file, &text),
        names: project
            .iter()
            .map(|t| format!("{} (tools: {})", t.name, tools_text(t)))
            .collect(),
        file,
        text,
        problem: None,
    })
}

/// Every field that decides what a type may do, per type: what an approval covers.
fn approvable_text(types: &[AgentType]) -> String {
    types
        .iter()
        .map(|t| {
            format!(
                "== {} ({})\ntools: {}\nmodel: {:?}\nmax_iterations: {:?}\nbudget: {:?}\nfork: {}\ndescription: {}\n{}\n",
                t.name,
                t.path.as_deref().map(Path::display).map(|d| d.to_string()).unwrap_or_default(),
                tools_text(t),
                t.model,
                t.max_iterations,
                t.budget,
                t.fork,
                t.description,
                t.prompt
            )
        })
        .collect()
}

fn tools_text(agent: &AgentType) -> String {
    match &agent.tools {
        Some(list) => list.join(", "),
        None => "the parent's".into(),
    }
}

/// The types in force in `cwd` and the project's, as text.
pub fn describe_agents(paths: &Paths, cwd: &Path) -> Result<String, SettingsError> {
    let resolved = resolve_types(paths, cwd, &mut Vec::new());
    let mut text = String::from("Agent types (the model starts them with the `task` tool):\n");
    for agent in &resolved.types {
        let from = match &agent.path {
            Some(path) => format!(" [{}]", path.display()),
            None => " [built in]".into(),
        };
        text.push_str(&format!(
            "  {}{from}: {} (tools: {})\n",
            agent.name,
            agent.description,
            tools_text(agent)
        ));
    }
    if let Some(project) = &resolved.project {
        text.push_str(&project.describe(ProjectFileKind::Agents));
    }
    for problem in &resolved.problems {
        text.push_str(&format!("{problem}\n"));
    }
    Ok(text)
}

/// Approves `cwd`'s agent types as they read now, when they are still what the user was `shown`
/// (`None`: the caller shows them now); the description after.
pub fn approve_project_agents(
    paths: &Paths,
    cwd: &Path,
    shown: Option<&str>,
) -> Result<String, SettingsError> {
    let resolved = resolve_types(paths, cwd, &mut Vec::new());
    let project = resolved.project.ok_or_else(|| {
        SettingsError::Invalid(format!(
            "there are no agent types in {} or .claude/agents to approve",
            cwd.join(ProjectFileKind::Agents.relative_path()).display()
        ))
    })?;
    crate::project_file_state::still_shown(&project.file, &project.text, shown)?;
    approve_project_mcp(&paths.mcp_approvals, &project.file, &project.text)?;
    describe_agents(paths, cwd)
}

#[cfg(test)]
#[path = "approval_tests.rs"]
mod tests;
