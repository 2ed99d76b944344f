//! `/checks` and `/hooks` in the runtime: the checks or hooks in force described, and a repository's
//! file of them approved (its content remembered in the data dir); the engine is then rebuilt over
//! the re-read settings, so what was approved runs from the next request on. The reading and writing run off the async
//! threads.

use std::sync::Arc;

use tunacode_protocol::runtime::ProjectFileKind;

use crate::checks::{approve_project_checks, describe_checks};
use crate::hooks::{approve_project_hooks, describe_hooks};
use crate::runtime::actor::Actor;
use crate::runtime::blocking::off_thread;
use crate::runtime::config_ops::resolve_model;
use crate::runtime::events::{OpFailure, RuntimeEvent, settings_failure};
use crate::runtime::ops::Op;
use crate::subagents::approval::{approve_project_agents, describe_agents};

impl Actor {
    pub(super) async fn on_project_file_op(&mut self, op: Op) {
        let (kind, approve) = match op {
            Op::DescribeProjectFile { kind } => (kind, false),
            Op::ApproveProjectFile { kind } => (kind, true),
            _ => return,
        };
        if approve && self.busy("approve a project file") {
            return;
        }
        let settings = &self.parts.settings;
        let (paths, cwd) = (settings.paths.clone(), settings.cwd.clone());
        // Only what the user was shown (at start, or by the last description) can be approved.
        let shown = match kind {
            ProjectFileKind::Checks => settings.project_checks.as_ref(),
            ProjectFileKind::Hooks => settings.project_hooks.as_ref(),
            ProjectFileKind::Agents => settings.agent_types.project.as_ref(),
        }
        .map(|state| state.text.clone())
        .unwrap_or_default();
        let text = off_thread("reading the project's file", move || {
            let shown = Some(shown.as_str());
            let text = match (kind, approve) {
                (ProjectFileKind::Checks, true) => approve_project_checks(&paths, &cwd, shown),
                (ProjectFileKind::Checks, false) => describe_checks(&paths, &cwd),
                (ProjectFileKind::Hooks, true) => approve_project_hooks(&paths, &cwd, shown),
                (ProjectFileKind::Hooks, false) => describe_hooks(&paths, &cwd),
                (ProjectFileKind::Agents, true) => approve_project_agents(&paths, &cwd, shown),
                (ProjectFileKind::Agents, false) => describe_agents(&paths, &cwd),
            }
            .map_err(settings_failure)?;
            let agent_types = (kind == ProjectFileKind::Agents)
                .then(|| crate::subagents::approval::resolve_types(&paths, &cwd, &mut Vec::new()));
            Ok((text, state_now(&paths, &cwd, kind), agent_types))
        })
        .await;
        let (text, state, agent_types) = match text {
            Ok(found) => found,
            Err(failure) => return self.fail(failure),
        };
        match kind {
            ProjectFileKind::Checks => self.parts.settings.project_checks = state,
            ProjectFileKind::Hooks => self.parts.settings.project_hooks = state,
            ProjectFileKind::Agents => {
                if let Some(types) = agent_types {
                    self.parts.settings.agent_types = types;
                }
            }
        }
        if approve && kind == ProjectFileKind::Agents {
            self.reload_subagents().await;
        }
        if approve && let Err(failure) = self.reload_options().await {
            return self.fail(failure);
        }
        self.parts
            .events
            .send(RuntimeEvent::ProjectFiles { kind, text });
    }

    /// Starts sub-agents of the types in force from the next request on.
    pub(super) async fn reload_subagents(&mut self) {
        self.parts.subagents = crate::subagents::host::host_for(&self.parts.settings).await;
        let agent = self
            .agent
            .with_session(self.agent.session().clone(), self.agent.tools.clone());
        self.agent = Arc::new(agent.with_subagents(self.parts.subagents.clone()));
    }

    /// Re-reads the current model's settings (the checks in force among them) and installs an
    /// engine over them.
    pub(super) async fn reload_options(&mut self) -> Result<(), OpFailure> {
        let model = self.parts.model.options.model.clone();
        let resolved = resolve_model(&self.parts.settings, model).await?;
        self.agent = Arc::new(
            self.agent
                .with_model(resolved.options.clone(), resolved.provider.clone()),
        );
        self.parts.model = resolved;
        Ok(())
    }
}

/// The project's file of `kind` as it reads now (what the user is being shown).
fn state_now(
    paths: &tunacode_store::Paths,
    cwd: &std::path::Path,
    kind: ProjectFileKind,
) -> Option<crate::project_file_state::ProjectFileState> {
    let config = tunacode_store::UserConfig::load(&paths.config_file).ok()?;
    match kind {
        ProjectFileKind::Checks => {
            crate::checks::resolve_checks(paths, &config, cwd)
                .ok()?
                .project
        }
        ProjectFileKind::Hooks => crate::hooks::resolve_hooks(paths, &config, cwd).project,
        ProjectFileKind::Agents => {
            crate::subagents::approval::resolve_types(paths, cwd, &mut Vec::new()).project
        }
    }
}
