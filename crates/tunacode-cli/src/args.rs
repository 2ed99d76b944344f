//! Command-line arguments (clap).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// TunaCode: an AI coding agent for the terminal.
#[derive(Debug, Parser)]
#[command(name = "tunacode", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do (none: the interactive UI).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Interactive UI: open the provider setup screen first.
    #[arg(long)]
    pub setup: bool,
    /// Interactive UI: model as provider:model.
    #[arg(short, long, env = "TUNACODE_MODEL")]
    pub model: Option<String>,
    /// Interactive UI: base URL of the provider.
    #[arg(long, env = "TUNACODE_BASE_URL")]
    pub base_url: Option<String>,
    /// Interactive UI: color theme (dark, light, plain; NO_COLOR forces plain).
    /// (Default: the theme `/theme` last saved, else dark.)
    #[arg(long)]
    pub theme: Option<String>,
    /// Interactive UI: continue this directory's most recent session.
    #[arg(short = 'c', long = "continue")]
    pub continue_last: bool,
    /// Interactive UI: continue a saved session by id.
    #[arg(long, value_name = "ID", conflicts_with = "continue_last")]
    pub session: Option<String>,
    /// Interactive UI: work in this directory.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Interactive UI: where commands run: workspace-write (default: write only in the working
    /// directory and the temp dir, no network), read-only, or off.
    #[arg(long, value_name = "MODE", env = "TUNACODE_SANDBOX")]
    pub sandbox: Option<String>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the agent on one task without the interactive UI (for scripts and CI).
    Run(RunArgs),
    /// Serve the Agent Client Protocol on stdin/stdout, for editors (Zed, JetBrains, Neovim, Emacs).
    Acp(AcpArgs),
    /// List this project's saved sessions, newest first.
    Sessions(SessionsArgs),
    /// List known models with context window and prices.
    Models(ModelsArgs),
    /// MCP servers: list them (with their state and tools), add, remove, approve the project's.
    Mcp(McpArgs),
    /// Put back the files the agent changed in the last prompt of a session (or the last N).
    Undo(crate::tree_args::UndoArgs),
    /// Go back to just before prompt N of a session: conversation and files, or one of them.
    Rewind(crate::tree_args::RewindArgs),
    /// Return a session to where it was before its rewinds (until its next prompt).
    Redo(crate::tree_args::RedoArgs),
    /// Copy a session's history up to prompt N into a new session; the original is unchanged.
    Fork(crate::tree_args::ForkArgs),
    /// Write a session's transcript (secrets redacted) as Markdown, JSON or HTML.
    Export(crate::tree_args::ExportArgs),
    /// Add a session from a JSON export to this project.
    Import(crate::tree_args::ImportArgs),
    /// The checks that prove a change here; `approve` this project's .tunacode/checks.json.
    Checks(ProjectFileArgs),
    /// The lifecycle hooks in force here; `approve` this project's .tunacode/hooks.json.
    Hooks(ProjectFileArgs),
    /// The agent types sub-agents start as; `approve` this project's .tunacode/agents.
    Agents(ProjectFileArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), e.g. `tunacode man > tunacode.1`.
    Man,
    /// Print the JSON schema of `run`'s stream-json output and input lines.
    Schema,
    /// Show what the next request to the model holds here, part by part (system prompt,
    /// instruction files, skills, tools, conversation, attachments), against its window.
    Context(ContextArgs),
}

/// Arguments of `tunacode checks` and `tunacode hooks`.
#[derive(Debug, Args)]
pub struct ProjectFileArgs {
    /// `approve`: approve this project's file as it is now (what it declares then runs).
    #[arg(value_enum)]
    pub action: Option<ProjectFileAction>,
    /// The project directory (default: the current one).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<std::path::PathBuf>,
}

/// What `tunacode checks` and `tunacode hooks` do besides listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ProjectFileAction {
    /// Approve the project's file.
    Approve,
}

/// Arguments of `tunacode mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: McpCommand,
}

/// `tunacode mcp` subcommands.
#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Start every configured server, show its state and tools, stop them.
    List {
        /// The project directory (its approved .mcp.json counts; default: the current one).
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Add a server to the config: `tunacode mcp add NAME -- COMMAND ARGS…` or `--url URL`.
    Add(McpAddArgs),
    /// Remove a server from the config.
    Remove {
        /// Its name.
        name: String,
    },
    /// Approve this project's .mcp.json as it is now (its servers then start with each session).
    Approve {
        /// The project directory (default: the current one).
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
    },
}

/// Arguments of `tunacode mcp add`.
#[derive(Debug, Args)]
pub struct McpAddArgs {
    /// The server's name (tools are offered as mcp__NAME__TOOL).
    pub name: String,
    /// A Streamable HTTP server's URL.
    #[arg(long)]
    pub url: Option<String>,
    /// An environment variable for a stdio server, KEY=VALUE (`${VAR}` is read from the environment
    /// when the server starts). Repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// A header for an HTTP server, "Name: value". Repeatable.
    #[arg(long, value_name = "NAME: VALUE")]
    pub header: Vec<String>,
    /// The command and its arguments, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// Arguments of `tunacode models`.
#[derive(Debug, Args)]
pub struct ModelsArgs {
    /// Only this provider's models.
    #[arg(long)]
    pub provider: Option<String>,
    /// Update the catalogue from models.dev first (the current table is kept when that fails).
    #[arg(long)]
    pub refresh: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// How `run` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// The answer streamed to stdout; tool activity and notices on stderr.
    Text,
    /// One JSON result object on stdout at the end.
    Json,
    /// One JSON event per line on stdout, ending with a `result` line.
    StreamJson,
}

/// How `run` reads its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    /// The task from the arguments or stdin.
    Text,
    /// Operations from stdin, one JSON object a line (needs `--output stream-json`).
    StreamJson,
}

/// Arguments of `tunacode run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The task. `-` (or nothing, with stdin not a terminal) reads it from stdin.
    #[arg(value_name = "PROMPT")]
    pub prompt: Vec<String>,
    /// An image to send with the task (PNG, JPEG, GIF or WebP, up to 5 MiB); repeat for more.
    /// `@shot.png` in the task attaches one from the workspace too.
    #[arg(long, value_name = "FILE")]
    pub image: Vec<PathBuf>,
    /// The model and how to reach it.
    #[command(flatten)]
    pub provider: ProviderArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub output: OutputFormat,
    /// Input format: `stream-json` reads user messages, approvals and interrupts from stdin, one JSON
    /// object a line, until stdin closes (a PROMPT, if given, is the first message).
    #[arg(long, value_enum, default_value_t = InputFormat::Text)]
    pub input_format: InputFormat,
    /// Model calls allowed for this task (default: settings.max_iterations, 40).
    #[arg(long)]
    pub max_iterations: Option<u32>,
    /// Time limit for the whole task, in seconds (default: none).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// The most this run may spend, in USD: checked before every model call, which is shortened or
    /// not sent when it could pass the cap (exit 5, status budget_exhausted).
    #[arg(long, value_name = "USD")]
    pub max_cost: Option<f64>,
    /// Work in this directory instead of the current one.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Approve every write and command (and, with --plan, the plan) without asking.
    #[arg(short, long)]
    pub yes: bool,
    /// Plan mode: read-only tools only until the model's plan (saved to PLAN.md) is approved.
    #[arg(long)]
    pub plan: bool,
    /// Continue a saved session by id.
    #[arg(long, value_name = "ID", conflicts_with = "continue_last")]
    pub session: Option<String>,
    /// Continue this project's most recent session.
    #[arg(short = 'c', long = "continue")]
    pub continue_last: bool,
    /// Where commands run: workspace-write (default: write only in the working directory and the temp
    /// dir, no network), read-only, or off. --yes never lifts it.
    #[arg(long, value_name = "MODE", env = "TUNACODE_SANDBOX")]
    pub sandbox: Option<String>,
}

/// The model and how to reach it, as `run` and `acp` take them.
#[derive(Debug, Args)]
pub struct ProviderArgs {
    /// Model as provider:model, e.g. openai:gpt-4.1, openrouter:qwen/qwen3-coder, ollama:qwen3.
    #[arg(short, long, env = "TUNACODE_MODEL")]
    pub model: Option<String>,
    /// Base URL of an OpenAI-compatible server (overrides the provider's default).
    #[arg(long, env = "TUNACODE_BASE_URL")]
    pub base_url: Option<String>,
    /// Wire API to speak: openai-chat, openai-responses, anthropic or gemini (default: the provider's).
    #[arg(long, env = "TUNACODE_WIRE_API", value_name = "API")]
    pub wire_api: Option<String>,
}

/// Arguments of `tunacode acp`: the model settings every session uses (the working directory comes
/// from the editor with each session).
#[derive(Debug, Args)]
pub struct AcpArgs {
    /// The model and how to reach it.
    #[command(flatten)]
    pub provider: ProviderArgs,
    /// Model calls allowed per prompt (default: settings.max_iterations, 40).
    #[arg(long)]
    pub max_iterations: Option<u32>,
    /// Time limit for each prompt, in seconds (default: none).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Where commands run: workspace-write (default), read-only, or off.
    #[arg(long, value_name = "MODE", env = "TUNACODE_SANDBOX")]
    pub sandbox: Option<String>,
}

/// Arguments of `tunacode sessions`.
#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// The project directory (default: the current one).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Show forks under the session they came from.
    #[arg(long)]
    pub tree: bool,
}

/// `tunacode context`: the next request part by part.
#[derive(Debug, clap::Args)]
pub struct ContextArgs {
    /// The project directory (default: the current one).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Model as provider:model (default: the configured one).
    #[arg(short = 'm', long, env = "TUNACODE_MODEL")]
    pub model: Option<String>,
    /// Measure this saved session's next request (a unique prefix of its id is enough).
    #[arg(long, value_name = "ID", conflicts_with = "continue_last")]
    pub session: Option<String>,
    /// Measure this directory's most recent session.
    #[arg(short = 'c', long = "continue")]
    pub continue_last: bool,
    /// Print the breakdown as JSON (the stream-json `context` line's fields).
    #[arg(long)]
    pub json: bool,
}
