//! The project's instruction files, skills and custom commands, read again before each request and
//! when the context is described: a new `AGENTS.md`, skill or `.tunacode/commands/*.md` is seen
//! without a restart. Nothing changes (and the provider's prompt cache is kept) unless a file did.
//! The files pass the same boundary checks as at start; the model cannot write them unasked
//! (`tools/src/protected.rs`), so reading them again loosens nothing. A custom `guide_file` name is
//! not guarded there, so instruction files under it are not read again.

use std::sync::Arc;

use tunacode_protocol::{AgentEvent, NoticeLevel};

use crate::custom_commands::{CustomCommand, find_commands};
use crate::instructions::{InstructionFile, find_instructions};
use crate::project_files::Skipped;
use crate::runtime::actor::Actor;
use crate::runtime::blocking::off_thread;
use crate::runtime::custom_ops::announce_commands;
use crate::skills::{Skill, find_skills};

/// The instruction file names `tools/src/protected.rs` guards (always asked before a change).
const PROTECTED_GUIDES: [&str; 2] = ["AGENTS.md", "CLAUDE.md"];

/// The project files as they read now.
#[derive(Debug, PartialEq)]
struct ProjectFiles {
    instructions: Vec<InstructionFile>,
    skills: Vec<Skill>,
    commands: Vec<CustomCommand>,
    skipped: Vec<Skipped>,
}

impl Actor {
    /// Reads the project files again; when one changed, the system prompt, the `skill` tool and
    /// the command list follow, and a notice says what was read.
    pub(super) async fn refresh_project_files(&mut self) {
        let (paths, cwd) = (
            self.parts.settings.paths.clone(),
            self.parts.settings.cwd.clone(),
        );
        let started_with = self.parts.settings.instructions.clone();
        let Ok(now) = off_thread("reading the project files", move || {
            let guide = tunacode_store::UserConfig::load(&paths.config_file)
                .map_or_else(|_| "AGENTS.md".to_string(), |c| c.settings.guide_file);
            let mut skipped = Vec::new();
            let user = paths.user_dir();
            // Only the names the model can never write unasked are read again: a custom
            // `guide_file` is not protected, so it stays as the session started with it.
            let instructions = if PROTECTED_GUIDES.contains(&guide.as_str()) {
                find_instructions(&user, &cwd, &guide, &mut skipped)
            } else {
                started_with
            };
            Ok(ProjectFiles {
                instructions,
                skills: find_skills(&user, &cwd, &mut skipped),
                commands: find_commands(&user, &cwd, &mut skipped),
                skipped,
            })
        })
        .await
        else {
            return;
        };
        let settings = &mut self.parts.settings;
        let what = changed(settings, &now);
        if what.is_empty() {
            return;
        }
        let skills_changed = settings.skills != now.skills;
        let commands_changed = settings.commands != now.commands;
        settings.instructions = now.instructions;
        settings.skills = now.skills;
        settings.commands = now.commands;
        settings.skipped_files = now.skipped;
        if let Err(failure) = self.reload_options().await {
            return self.fail(failure);
        }
        if skills_changed {
            let session = self.agent.session().clone();
            let todos = session.lock().todos.clone();
            let tools = self.parts.tools(&todos);
            self.agent = Arc::new(self.agent.with_session(session, tools));
        }
        if commands_changed {
            self.parts
                .events
                .send(announce_commands(&self.parts.settings));
        }
        self.parts.events.emit(AgentEvent::Notice {
            level: NoticeLevel::Info,
            message: format!("Read again (changed since): {}.", what.join(", ")),
        });
    }
}

impl Actor {
    /// `/context`: the next request part by part, with the project files as they read now
    /// (measured off the async threads: the history is serialized to be measured).
    pub(super) async fn on_describe_context(&mut self) {
        self.refresh_project_files().await;
        let (agent, instructions, skills) = (
            self.agent.clone(),
            self.parts.settings.instructions.clone(),
            self.parts.settings.skills.clone(),
        );
        let measured = off_thread("measuring the context", move || {
            Ok(crate::orchestrator::breakdown::context_breakdown(
                &agent,
                &instructions,
                &skills,
            ))
        })
        .await;
        match measured {
            Ok(breakdown) => self
                .parts
                .events
                .send(crate::runtime::events::RuntimeEvent::Context(Box::new(
                    breakdown,
                ))),
            Err(failure) => self.fail(failure),
        }
    }
}

/// What differs between the settings' project files and `now`, in words.
fn changed(settings: &crate::settings::RuntimeSettings, now: &ProjectFiles) -> Vec<&'static str> {
    let mut what = Vec::new();
    if settings.instructions != now.instructions {
        what.push("instruction files");
    }
    if settings.skills != now.skills {
        what.push("skills");
    }
    if settings.commands != now.commands {
        what.push("custom commands");
    }
    what
}
