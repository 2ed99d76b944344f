//! Skills in the open Agent Skills format: a folder with a `SKILL.md` (front matter `name` and
//! `description`, then the instructions; scripts and files may sit beside it), found in
//! `.tunacode/skills/` and `.agents/skills/` (the working directory's, then the repository root's) and
//! `~/.config/tunacode/skills/`, a project skill winning over a user skill of the same name. Only the
//! names and descriptions go into the system prompt; the model loads a skill's body with the `skill`
//! tool when it needs it, so a hundred skills cost a few hundred tokens. A skill folder (or its
//! `SKILL.md`) whose real path leaves its own root (the repository, the user's config folder) is
//! skipped, and its listing never follows a link out of the skill (`project_files.rs`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tunacode_tools::{Tool, ToolContext, ToolError, ToolKind, ToolOutput};

use crate::markdown_files::{collect_by_name, search_dirs, split_front_matter};
use crate::project_files::{Skipped, folder_inside, read_inside, resolve_inside};

/// One skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Its name.
    pub name: String,
    /// When to use it.
    pub description: String,
    /// Its folder.
    pub dir: PathBuf,
    /// The real path of the folder it must stay inside (the repository, the user's config folder).
    pub within: PathBuf,
}

#[derive(Debug, Default, Deserialize)]
struct Front {
    name: Option<String>,
    description: Option<String>,
}

/// The skills for `cwd`; `user_dir` is `~/.config/tunacode`. A skill that leaves its own folder is
/// added to `skipped`.
pub fn find_skills(user_dir: &Path, cwd: &Path, skipped: &mut Vec<Skipped>) -> Vec<Skill> {
    let dirs = search_dirs(
        cwd,
        &[".tunacode/skills", ".agents/skills"],
        user_dir,
        "skills",
    );
    collect_by_name(&dirs, skipped, |dir, within, skipped| {
        // A link that leaves the root is said; a file beside the skills is not a skill.
        let inside = resolve_inside(dir, within)
            .and_then(|found| match found {
                Some(real) if real.is_dir() => read_inside(&dir.join("SKILL.md"), within),
                _ => Ok(None),
            })
            .map_err(|skip| skipped.push(skip));
        let text = inside.ok()??;
        let (front, _) = split_front_matter::<Front>(&text)
            .map_err(|e| tracing::warn!(dir = %dir.display(), "skill skipped: {e}"))
            .ok()?;
        let name = front
            .name
            .or_else(|| dir.file_name()?.to_str().map(str::to_string))?;
        let description = front.description.unwrap_or_default();
        let skill = Skill {
            name: name.clone(),
            description,
            dir: dir.to_path_buf(),
            within: within.to_path_buf(),
        };
        Some((name, skill))
    })
    .into_values()
    .collect()
}

/// The system prompt's list of skills (names and descriptions only).
pub fn render_skills(skills: &[Skill]) -> String {
    if skills.is_empty() {
        return String::new();
    }
    let mut text = String::from(
        "\n# Skills\nSkills hold instructions for particular tasks. When a task matches one, load it \
         with the `skill` tool first and follow it.\n",
    );
    for skill in skills {
        text.push_str(&format!("- {}: {}\n", skill.name, skill.description));
    }
    text
}

/// The `skill` tool: a skill's instructions and the files beside them.
#[derive(Debug, Clone)]
pub struct SkillTool {
    skills: Arc<Vec<Skill>>,
}

impl SkillTool {
    /// The tool over `skills`.
    pub fn new(skills: Vec<Skill>) -> Self {
        SkillTool {
            skills: Arc::new(skills),
        }
    }
}

fn load(skill: &Skill) -> Result<String, ToolError> {
    let path = skill.dir.join("SKILL.md");
    // Checked again: the folder may have changed since the skills were found.
    let real_dir = folder_inside(&skill.dir, &skill.within)
        .map_err(|skip| ToolError::Fatal(skip.to_string()))?
        .ok_or_else(|| ToolError::Fatal(format!("{} is gone", skill.dir.display())))?;
    let text = read_inside(&path, &skill.within)
        .map_err(|skip| ToolError::Fatal(skip.to_string()))?
        .ok_or_else(|| ToolError::Fatal(format!("{} is gone", path.display())))?;
    let body = split_front_matter::<Front>(&text)
        .map(|(_, body)| body)
        .unwrap_or(text);
    let mut files: Vec<String> = walk(&skill.dir, &real_dir)
        .into_iter()
        .filter_map(|p| {
            p.strip_prefix(&skill.dir)
                .ok()
                .map(|r| r.display().to_string())
        })
        .filter(|r| r != "SKILL.md")
        .collect();
    files.sort();
    let mut out = format!(
        "# Skill `{}` ({})\n\n{}",
        skill.name,
        skill.dir.display(),
        body.trim()
    );
    if !files.is_empty() {
        out.push_str(&format!(
            "\n\nFiles beside it (paths relative to {}):\n- {}",
            skill.dir.display(),
            files.join("\n- ")
        ));
    }
    Ok(out)
}

/// Every file below `dir` (at most a few hundred; skills are small), whose real path is `real`: links
/// are listed only when they point inside it, and never followed into.
fn walk(dir: &Path, real: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&next) else {
            continue;
        };
        for entry in entries.flatten() {
            let (path, Ok(kind)) = (entry.path(), entry.file_type()) else {
                continue;
            };
            let listed = kind.is_file()
                || (kind.is_symlink()
                    && std::fs::canonicalize(&path)
                        .is_ok_and(|p| p.starts_with(real) && p.is_file()));
            if kind.is_dir() {
                stack.push(path);
            } else if listed && out.len() < 500 {
                out.push(path);
            }
        }
    }
    out
}

#[async_trait]
impl Tool for SkillTool {
    fn name(&self) -> &str {
        "skill"
    }

    fn description(&self) -> &str {
        "Load a skill's instructions (listed under Skills in the system prompt) and the names of the \
         files that come with it. Load a skill before doing a task it covers."
    }

    fn parameters(&self) -> Value {
        static SCHEMA: LazyLock<Value> = LazyLock::new(|| {
            json!({"type": "object", "properties": {"name": {"type": "string",
                   "description": "The skill's name, as listed."}}, "required": ["name"]})
        });
        SCHEMA.clone()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::ReadOnly
    }

    async fn call(
        &self,
        args: Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let name = args
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim()
            .to_string();
        let Some(skill) = self.skills.iter().find(|s| s.name == name).cloned() else {
            let known: Vec<&str> = self.skills.iter().map(|s| s.name.as_str()).collect();
            return Err(ToolError::Retry(format!(
                "no skill `{name}`; the skills are: {}",
                known.join(", ")
            )));
        };
        let text = tokio::task::spawn_blocking(move || load(&skill))
            .await
            .map_err(|e| ToolError::Fatal(e.to_string()))??;
        Ok(ToolOutput::text(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
        std::fs::write(path, text).expect("write");
    }

    #[tokio::test]
    async fn skills_are_found_by_name_and_loaded_on_demand() {
        let home = tempfile::tempdir().expect("home");
        let ws = tempfile::tempdir().expect("ws");
        write(
            &home.path().join("skills/pdf/SKILL.md"),
            "---\nname: pdf\ndescription: user pdf\n---\nuser body",
        );
        write(
            &home.path().join("skills/deploy/SKILL.md"),
            "---\ndescription: Deploy the app\n---\nRun deploy.sh",
        );
        write(
            &ws.path().join(".agents/skills/pdf/SKILL.md"),
            "---\nname: pdf\ndescription: Fill PDF forms\n---\nUse fill.py.",
        );
        write(&ws.path().join(".agents/skills/pdf/fill.py"), "print('x')");
        let skills = find_skills(home.path(), ws.path(), &mut Vec::new());
        let listed: Vec<(&str, &str)> = skills
            .iter()
            .map(|s| (s.name.as_str(), s.description.as_str()))
            .collect();
        assert_eq!(
            listed,
            [("deploy", "Deploy the app"), ("pdf", "Fill PDF forms")]
        );
        let prompt = render_skills(&skills);
        assert!(
            prompt.contains("- pdf: Fill PDF forms") && !prompt.contains("fill.py"),
            "{prompt}"
        );
        let tool = SkillTool::new(skills);
        let ctx = ToolContext {
            workspace: tunacode_tools::Workspace::new(ws.path()),
            cancel: tokio_util::sync::CancellationToken::new(),
            exec: Default::default(),
            output: None,
            call_id: String::new(),
        };
        let mut args = Map::new();
        args.insert("name".into(), json!("pdf"));
        let out = tool.call(args, &ctx).await.expect("loads");
        assert!(
            out.content.contains("Use fill.py.") && out.content.contains("- fill.py"),
            "{}",
            out.content
        );
        let mut args = Map::new();
        args.insert("name".into(), json!("nope"));
        assert!(tool.call(args, &ctx).await.is_err());
    }
}
