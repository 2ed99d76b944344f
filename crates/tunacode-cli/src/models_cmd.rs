//! `tunacode models`: the model registry (bundled table, refreshed catalogue, config overrides), with
//! `--refresh` to update the catalogue from models.dev; when that fails the current table is kept.

use std::io::Write;

use serde_json::json;
use tunacode_llm::models::{MODELS_DEV_URL, ModelRegistry, RegistrySource, refresh};
use tunacode_store::{Paths, UserConfig};

use crate::args::ModelsArgs;
use tunacode_core::settings::load_registry as registry;

/// Lists models; returns the exit code.
pub async fn run(args: ModelsArgs) -> anyhow::Result<u8> {
    let paths = Paths::from_env()?;
    let config = UserConfig::load(&paths.config_file)?;
    let mut err = std::io::stderr().lock();
    if args.refresh {
        let url =
            std::env::var("TUNACODE_MODELS_URL").unwrap_or_else(|_| MODELS_DEV_URL.to_string());
        match refresh(&url).await {
            Ok((fresh, listed)) => {
                fresh.save(&paths.models_cache)?;
                writeln!(err, "refreshed {listed} models from {url}")?;
            }
            Err(e) => writeln!(
                err,
                "warning: could not refresh the model catalogue ({e}); keeping the current table"
            )?,
        }
    }
    let registry: ModelRegistry = registry(&paths, &config)?;
    let provider = args
        .provider
        .as_deref()
        .map(|p| if p == "gemini" { "google" } else { p });
    let models = registry.list(provider);
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", json!(models))?;
        return Ok(0);
    }
    let source = match registry.source {
        RegistrySource::Bundled => "bundled table",
        RegistrySource::Refreshed => "refreshed catalogue",
    };
    writeln!(
        out,
        "{:<52} {:>9} {:>8} {:>8} {:>8}",
        "MODEL", "CONTEXT", "OUTPUT", "IN $/M", "OUT $/M"
    )?;
    for m in &models {
        writeln!(
            out,
            "{:<52} {:>9} {:>8} {:>8} {:>8}",
            m.key(),
            m.context_window,
            m.max_output,
            price(m.pricing.input),
            price(m.pricing.output)
        )?;
    }
    writeln!(err, "{} models ({source})", models.len())?;
    Ok(0)
}

fn price(p: f64) -> String {
    if p == 0.0 {
        "-".into()
    } else {
        format!("{p:.2}")
    }
}
