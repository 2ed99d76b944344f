//! Runs the `grep` tool once, for benchmarks against ripgrep (`bench/run.sh`):
//! `grep_tool PATTERN DIR` prints the tool's output.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use serde_json::json;
use tokio_util::sync::CancellationToken;
use tunacode_tools::{ToolContext, ToolSet, Workspace};

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(pattern), Some(dir)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: grep_tool PATTERN DIR");
        std::process::exit(2);
    };
    let tools = ToolSet::builtin();
    let Some(grep) = tools.get("grep") else {
        eprintln!("no grep tool");
        std::process::exit(1);
    };
    let ctx = ToolContext {
        workspace: Workspace::new(dir),
        cancel: CancellationToken::new(),
        exec: Default::default(),
        output: None,
        call_id: String::new(),
    };
    let args = json!({"pattern": pattern, "max_results": 1000, "case_sensitive": true});
    let Some(args) = args.as_object().cloned() else {
        return;
    };
    match grep.call(args, &ctx).await {
        Ok(out) => println!("{}", out.content),
        Err(e) => {
            eprintln!("grep failed: {e}");
            std::process::exit(1);
        }
    }
}
