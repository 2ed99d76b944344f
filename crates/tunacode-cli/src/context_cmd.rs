//! `tunacode context`: what the next request to the model would hold here, part by part, against
//! its window — the figures `/context` shows, from the same runtime. Without a usable model it lists
//! the instruction files and skills, and says why it cannot measure more.

use std::io::Write;

use tokio::sync::mpsc::UnboundedReceiver;
use tunacode_core::{LaunchOptions, Op, Runtime, RuntimeEvent, SessionChoice, SettingsFlags};
use tunacode_store::Paths;

use crate::args::ContextArgs;
use crate::sessions_cmd::project_dir;

/// Prints the breakdown; returns the exit code.
pub async fn run(args: ContextArgs) -> anyhow::Result<u8> {
    let paths = Paths::from_env()?;
    let cwd = project_dir(args.cwd.clone())?;
    let flags = SettingsFlags {
        model: args.model.clone(),
        cwd: Some(cwd.clone()),
        ..SettingsFlags::default()
    };
    let mut options = LaunchOptions::new(paths.clone(), flags);
    options.session = match (&args.session, args.continue_last) {
        (Some(id), _) => SessionChoice::Resume(id.clone()),
        (None, true) => SessionChoice::ContinueLatest,
        (None, false) => SessionChoice::New,
    };
    let (runtime, mut events) = match Runtime::launch(options).await {
        Ok(launched) => launched,
        Err(e) => return files_only(&paths, &cwd, &e.to_string()),
    };
    runtime.submit(Op::DescribeContext);
    let breakdown = context_of(&mut events).await;
    runtime.submit(Op::Shutdown);
    let Some(breakdown) = breakdown else {
        anyhow::bail!("the runtime stopped before it measured the context");
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&breakdown)?)?;
    } else {
        writeln!(out, "{}", breakdown.render())?;
    }
    Ok(0)
}

/// Waits for the runtime's answer to `DescribeContext`.
async fn context_of(
    events: &mut UnboundedReceiver<RuntimeEvent>,
) -> Option<tunacode_protocol::runtime::ContextBreakdown> {
    while let Some(event) = events.recv().await {
        match event {
            RuntimeEvent::Context(breakdown) => return Some(*breakdown),
            RuntimeEvent::OpFailed(failure) => {
                tracing::warn!(%failure, "describing the context");
                return None;
            }
            _ => {}
        }
    }
    None
}

/// Without a model: the instruction files and skills, and why nothing more is measured.
fn files_only(paths: &Paths, cwd: &std::path::Path, why: &str) -> anyhow::Result<u8> {
    let (files, mut skipped) = tunacode_core::instructions::instructions_for(paths, cwd)?;
    let skills = tunacode_core::skills::find_skills(&paths.user_dir(), cwd, &mut skipped);
    let mut err = std::io::stderr().lock();
    for skip in &skipped {
        writeln!(err, "warning: {skip}")?;
    }
    writeln!(
        err,
        "note: the request cannot be measured without a usable model ({why})"
    )?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{}",
        tunacode_core::instructions::describe_context(&files, &skills)
    )?;
    Ok(0)
}
