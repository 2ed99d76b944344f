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
        let (paths, cwd) = (
            self.parts.settings.paths.clone(),
            self.parts.settings.cwd.clone(),
        );
        let text = off_thread("reading the project's file", move || {
            match (kind, approve) {
                (ProjectFileKind::Checks, true) => approve_project_checks(&paths, &cwd),
                (ProjectFileKind::Checks, false) => describe_checks(&paths, &cwd),
                (ProjectFileKind::Hooks, true) => approve_project_hooks(&paths, &cwd),
                (ProjectFileKind::Hooks, false) => describe_hooks(&paths, &cwd),
            }
            .map_err(settings_failure)
        })
        .await;
        let text = match text {
            Ok(text) => text,
            Err(failure) => return self.fail(failure),
        };
        if approve && let Err(failure) = self.reload_options().await {
            return self.fail(failure);
        }
        self.parts
            .events
            .send(RuntimeEvent::ProjectFiles { kind, text });
    }

    /// Re-reads the current model's settings (the checks in force among them) and installs an
    /// engine over them.
    async fn reload_options(&mut self) -> Result<(), OpFailure> {
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
