//! `tunacode acp`: serves the Agent Client Protocol on stdin/stdout until stdin closes. stdout carries
//! protocol messages only; logs go to the log file.

use tunacode_core::SettingsFlags;
use tunacode_store::Paths;

use crate::args::AcpArgs;

/// Serves ACP; returns the exit code (0 when the editor closed the connection).
pub async fn run(args: AcpArgs) -> anyhow::Result<u8> {
    let paths = Paths::from_env()?;
    crate::logging::init_private(&paths).await;
    let flags = SettingsFlags {
        model: args.provider.model,
        base_url: args.provider.base_url,
        wire_api: args.provider.wire_api,
        cwd: None,
        max_iterations: args.max_iterations,
        timeout: args.timeout,
        sandbox: args.sandbox,
        max_cost: None,
    };
    tunacode_acp::serve(tunacode_acp::AcpOptions { paths, flags }).await?;
    Ok(crate::output::EXIT_OK)
}
