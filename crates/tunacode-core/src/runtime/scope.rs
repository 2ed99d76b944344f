//! [`SessionScope`]: what "allow for this session" covers. File edits (and other tools) are allowed by
//! tool; commands (`bash`, `run_command`) only by the exact command line or, for programs with
//! subcommands, by program and subcommand (`git commit`, `cargo test`), and only for simple commands:
//! allowing `git status` never allows `git status; rm -rf /`.

use serde_json::Value;
use tunacode_tools::shell::{CommandLine, session_prefix};

pub use tunacode_protocol::runtime::SessionScope;

/// The runtime's rules for session allowances: which scope a call asks for, and which calls a scope
/// covers.
pub trait ScopeRules {
    /// The scope a call of `tool` with `args` would be allowed under.
    fn of(tool: &str, args: &Value) -> SessionScope;
    /// Whether a call of `tool` with `args` falls under this allowance.
    fn covers(&self, tool: &str, args: &Value) -> bool;
}

impl ScopeRules for SessionScope {
    fn of(tool: &str, args: &Value) -> SessionScope {
        if let Some(host) = fetched_host(tool, args) {
            return SessionScope::Domain(host);
        }
        match command_words(tool, args) {
            Some(Command::Shell(line)) => {
                let parsed = CommandLine::parse(&line);
                match parsed.simple().and_then(session_prefix) {
                    Some(prefix) => SessionScope::CommandPrefix(prefix),
                    None => SessionScope::ExactCommand(line.trim().to_string()),
                }
            }
            Some(Command::Argv(argv)) => match session_prefix(&argv) {
                Some(prefix) => SessionScope::CommandPrefix(prefix),
                None => SessionScope::ExactCommand(argv.join(" ")),
            },
            None => SessionScope::Tool(tool.to_string()),
        }
    }

    fn covers(&self, tool: &str, args: &Value) -> bool {
        if let SessionScope::Domain(host) = self {
            return fetched_host(tool, args).as_ref() == Some(host);
        }
        match (self, command_words(tool, args)) {
            (SessionScope::Tool(name), None) => name == tool,
            (SessionScope::ExactCommand(allowed), Some(Command::Shell(line))) => {
                allowed == line.trim()
            }
            (SessionScope::ExactCommand(allowed), Some(Command::Argv(argv))) => {
                *allowed == argv.join(" ")
            }
            (SessionScope::CommandPrefix(prefix), Some(Command::Shell(line))) => {
                CommandLine::parse(&line)
                    .simple()
                    .is_some_and(|argv| argv.starts_with(prefix))
            }
            (SessionScope::CommandPrefix(prefix), Some(Command::Argv(argv))) => {
                argv.starts_with(prefix)
            }
            _ => false,
        }
    }
}

/// The host a `web_fetch` call reaches.
fn fetched_host(tool: &str, args: &Value) -> Option<String> {
    (tool == "web_fetch")
        .then(|| args.get("url").and_then(Value::as_str))
        .flatten()
        .and_then(tunacode_tools::url_host)
}

enum Command {
    /// A bash command line.
    Shell(String),
    /// A program and its arguments, run without a shell.
    Argv(Vec<String>),
}

/// The command a command tool's call runs; `None` for other tools.
fn command_words(tool: &str, args: &Value) -> Option<Command> {
    let command = args.get("command").and_then(Value::as_str);
    match tool {
        "bash" => Some(Command::Shell(command.unwrap_or_default().to_string())),
        "run_command" => {
            let mut argv = vec![command.unwrap_or_default().to_string()];
            argv.extend(
                args.get("args")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|a| a.as_str().map(str::to_string)),
            );
            Some(Command::Argv(argv))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bash(cmd: &str) -> Value {
        json!({ "command": cmd })
    }

    #[test]
    fn commands_are_allowed_by_prefix_or_exactly_never_wholesale() {
        let scope = SessionScope::of("bash", &bash("cargo test -p core"));
        assert_eq!(
            scope,
            SessionScope::CommandPrefix(vec!["cargo".into(), "test".into()])
        );
        assert!(scope.covers("bash", &bash("cargo test --workspace")));
        assert!(!scope.covers("bash", &bash("cargo build")));
        assert!(!scope.covers("bash", &bash("cargo test; rm -rf /")));
        assert!(scope.covers(
            "run_command",
            &json!({"command": "cargo", "args": ["test"]})
        ));
        assert!(!scope.covers("write_file", &json!({"file_path": "a"})));

        let exact = SessionScope::of("bash", &bash("ls -la | wc -l"));
        assert_eq!(exact, SessionScope::ExactCommand("ls -la | wc -l".into()));
        assert!(exact.covers("bash", &bash("  ls -la | wc -l ")));
        assert!(!exact.covers("bash", &bash("ls -la | sh")));

        let rm = SessionScope::of("bash", &bash("rm -rf build"));
        assert_eq!(rm, SessionScope::ExactCommand("rm -rf build".into()));
        assert!(!rm.covers("bash", &bash("rm -rf /")));
    }

    #[test]
    fn file_tools_are_allowed_by_tool() {
        let scope = SessionScope::of("write_file", &json!({"file_path": "a.txt"}));
        assert_eq!(scope, SessionScope::Tool("write_file".into()));
        assert!(scope.covers("write_file", &json!({"file_path": "b.txt"})));
        assert!(!scope.covers("update_file", &json!({"file_path": "b.txt"})));
        assert!(!scope.covers("bash", &bash("ls")));
        assert_eq!(scope.to_string(), "every write_file call");
    }

    #[test]
    fn web_fetch_is_allowed_by_domain() {
        let scope = SessionScope::of("web_fetch", &json!({"url": "https://docs.rs/serde"}));
        assert_eq!(scope, SessionScope::Domain("docs.rs".into()));
        assert!(scope.covers("web_fetch", &json!({"url": "https://docs.rs/tokio/latest"})));
        assert!(!scope.covers(
            "web_fetch",
            &json!({"url": "https://evil.docs.rs.example/"})
        ));
        assert!(!scope.covers("bash", &bash("curl https://docs.rs")));
        assert_eq!(scope.to_string(), "every web_fetch of docs.rs");
    }
}
