//! `tunacode` with no subcommand: the interactive terminal UI, over the same engine as `run`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, bail};
use tunacode_core::Session;
use tunacode_store::{Paths, SessionStore, UserConfig, project_id};
use tunacode_tui::{Resolver, RunSettings, TuiConfig};

use crate::args::Cli;
use crate::resolve::{registry, resolve};

/// Runs the UI; returns the exit code.
pub async fn run(cli: Cli) -> anyhow::Result<u8> {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        bail!(
            "the interactive UI needs a terminal; use `tunacode run \"task\"` for scripts (see --help)"
        );
    }
    let paths = Paths::from_env()?;
    let config = UserConfig::load(&paths.config_file)?;
    crate::logging::init(&paths.log_dir);
    let cwd = match &cli.cwd {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    let cwd =
        std::fs::canonicalize(&cwd).with_context(|| format!("{} is not usable", cwd.display()))?;
    let registry = registry(&paths, &config)?;
    let resolver = make_resolver(&cli, cwd.clone());
    let session = open_session(&paths, &cwd, &cli)?;
    tunacode_tui::run(TuiConfig {
        cwd,
        paths,
        resolve: resolver,
        registry,
        session,
        theme: cli.theme.clone(),
        force_setup: cli.setup,
        tool_ignore: config.settings.tool_ignore.clone(),
        show_thoughts: config.settings.show_thoughts,
    })
    .await?;
    Ok(0)
}

/// Resolution as `run` does it, re-reading the config each time (setup may just have written it).
fn make_resolver(cli: &Cli, cwd: PathBuf) -> Resolver {
    let (flag_model, base_url) = (cli.model.clone(), cli.base_url.clone());
    Arc::new(move |model: Option<&str>| {
        let model = model.map(str::to_string).or_else(|| flag_model.clone());
        // A model picked in the UI speaks to its provider's own endpoint, not the start-up flag's.
        let base = if model.is_some() && model != flag_model {
            None
        } else {
            base_url.clone()
        };
        let resolved = resolve(
            model.as_deref(),
            base.as_deref(),
            None,
            Some(&cwd),
            None,
            None,
        )
        .map_err(|e| format!("{e:#}"))?;
        let paths = resolved.paths.clone();
        let config = UserConfig::load(&paths.config_file).map_err(|e| e.to_string())?;
        let window = registry(&paths, &config)
            .ok()
            .and_then(|r| {
                r.find(&resolved.model.provider, &resolved.model.model)
                    .map(|m| m.context_window)
            })
            .filter(|w| *w > 0);
        Ok(RunSettings {
            options: resolved.options,
            provider: resolved.provider,
            context_window: window,
        })
    })
}

fn open_session(
    paths: &Paths,
    cwd: &std::path::Path,
    cli: &Cli,
) -> anyhow::Result<Option<Session>> {
    let store = SessionStore::new(&paths.sessions_dir);
    let project = project_id(cwd);
    let id = match (&cli.session, cli.continue_last) {
        (Some(id), _) => id.clone(),
        (None, true) => match store.list(&project)?.0.first() {
            Some(s) => s.session_id.clone(),
            None => return Ok(None),
        },
        (None, false) => return Ok(None),
    };
    Ok(Some(Session::from_file(store.load(&project, &id)?)))
}
