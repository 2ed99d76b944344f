//! `tunacode` with no subcommand: the interactive terminal UI, a front end over the same runtime as
//! `run`. This only gathers the command line's settings; the core resolves them.

use std::io::{IsTerminal, Write};

use anyhow::{Context, bail};
use tunacode_core::settings::load_registry;
use tunacode_core::{LaunchOptions, SessionChoice, SettingsFlags, SetupMode};
use tunacode_store::{Paths, UserConfig};
use tunacode_tui::TuiConfig;

use crate::args::Cli;

/// Runs the UI; returns the exit code.
pub async fn run(cli: Cli) -> anyhow::Result<u8> {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        bail!(
            "the interactive UI needs a terminal; use `tunacode run \"task\"` for scripts (see --help)"
        );
    }
    let paths = Paths::from_env()?;
    let config = UserConfig::load(&paths.config_file)?;
    crate::logging::init_private(&paths).await;
    let cwd = match &cli.cwd {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    let cwd =
        std::fs::canonicalize(&cwd).with_context(|| format!("{} is not usable", cwd.display()))?;
    let catalogue = tunacode_core::setup::catalogue_of(&load_registry(&paths, &config)?);
    let session = match (&cli.session, cli.continue_last) {
        (Some(id), _) => SessionChoice::Resume(id.clone()),
        (None, true) => SessionChoice::ContinueLatest,
        (None, false) => SessionChoice::New,
    };
    let history_dir = paths.sessions_dir.with_file_name("history");
    let flags = SettingsFlags {
        model: cli.model.clone(),
        base_url: cli.base_url.clone(),
        cwd: Some(cwd.clone()),
        sandbox: cli.sandbox.clone(),
        ..SettingsFlags::default()
    };
    let mut launch = LaunchOptions::new(paths, flags);
    launch.session = session;
    launch.setup = match cli.setup {
        true => SetupMode::Always,
        false => SetupMode::WhenNeeded,
    };
    let left = tunacode_tui::run(TuiConfig {
        project: tunacode_store::project_id(&cwd),
        cwd,
        launch,
        catalogue,
        history_dir,
        theme: cli
            .theme
            .clone()
            .or_else(|| config.settings.theme.clone())
            .unwrap_or_else(|| "dark".into()),
        show_thoughts: config.settings.show_thoughts,
    })
    .await?;
    if let Some(id) = left {
        let short = id.get(..8).unwrap_or(&id);
        let mut err = std::io::stderr().lock();
        let _ = writeln!(
            err,
            "Session {short} saved. Resume it with: tunacode --continue (or tunacode --session {short})"
        );
    }
    Ok(0)
}
