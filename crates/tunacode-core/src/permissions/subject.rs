//! What a tool call touches, as permission rules see it: the commands a `bash` or `run_command`
//! call runs (every simple command of the real parse, wrappers stripped, inside `sh -c`, `eval`,
//! substitutions, functions, `xargs` and `find -exec` too) and the files their operands name; the
//! paths of the file tools (all of an `apply_patch`), normalised as the tools normalise them
//! ([`resolve_lexically`]: trimmed, `..` resolved) and, for a symbolic link, where it leads.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tunacode_tools::shell::{Analysis, CommandLine};
use tunacode_tools::{patch_paths, resolve_lexically};

/// What a rule's argument pattern is matched against.
#[derive(Debug, Default)]
pub(super) struct Subject {
    /// Every command the call runs, as text (deny and ask rules look at each).
    pub commands: Vec<String>,
    /// The call as one command, when it is a single simple command (allow rules need that).
    pub simple: Vec<String>,
    /// The paths the tool itself reads or writes, relative to the workspace (absolute outside it).
    pub paths: Vec<String>,
    /// The files the commands' operands and redirections name (read-file rules cover them).
    pub operands: Vec<String>,
    /// The operands among them that are globs the shell expands (`secr*`): read-file rules cover
    /// them when they may name a file the rule matches.
    pub operand_globs: Vec<String>,
}

impl Subject {
    /// The subject of a call of `tool` with `args` in `workspace`.
    pub fn of(tool: &str, args: &Value, workspace: &Path) -> Subject {
        let text = |key: &str| args.get(key).and_then(Value::as_str).map(str::to_string);
        let ws = Roots::of(workspace);
        match tool {
            "bash" => match text("command") {
                Some(line) => Subject::of_line(&line, workspace, &ws),
                None => Subject::default(),
            },
            "run_command" => {
                let mut argv = vec![text("command").unwrap_or_default()];
                if let Some(Value::Array(items)) = args.get("args") {
                    argv.extend(items.iter().filter_map(Value::as_str).map(str::to_string));
                }
                let analysis = Analysis::of_argv(&argv, workspace);
                Subject {
                    commands: analysis.command_lines(),
                    simple: vec![argv.join(" ")],
                    operands: ws.relative_all(analysis.operand_paths(workspace)),
                    ..Subject::default()
                }
            }
            // One path of a patch (`file_path`: the protected-path check asks about each alone).
            "apply_patch" if args.get("input").is_none() => Subject {
                paths: text("file_path")
                    .map(|p| ws.resolve(&p))
                    .unwrap_or_default(),
                ..Subject::default()
            },
            "apply_patch" => Subject {
                paths: patch_paths(&text("input").unwrap_or_default())
                    .iter()
                    .flat_map(|p| ws.resolve(p))
                    .collect(),
                ..Subject::default()
            },
            "grep" | "glob" | "list_dir" => {
                let path = text("path")
                    .or_else(|| text("directory"))
                    .filter(|p| !p.trim().is_empty())
                    .unwrap_or_else(|| ".".into());
                Subject {
                    paths: ws.resolve(&path),
                    ..Subject::default()
                }
            }
            _ => Subject {
                paths: text("file_path")
                    .or_else(|| text("path"))
                    .or_else(|| text("directory"))
                    .map(|p| ws.resolve(&p))
                    .unwrap_or_default(),
                ..Subject::default()
            },
        }
    }
}

impl Subject {
    /// The subject of a `bash` command line.
    fn of_line(line: &str, workspace: &Path, ws: &Roots) -> Subject {
        let analysis = Analysis::of_line(line, workspace);
        let mut simple: Vec<String> = CommandLine::parse(line)
            .simple()
            .map(|argv| argv.join(" "))
            .into_iter()
            .collect();
        if !simple.is_empty() {
            simple.push(line.trim().to_string());
        }
        let mut commands = analysis.command_lines();
        commands.push(line.trim().to_string());
        Subject {
            commands,
            simple,
            paths: Vec::new(),
            operands: ws.relative_all(analysis.operand_paths(workspace)),
            operand_globs: analysis
                .glob_operand_paths(workspace)
                .iter()
                .map(|p| ws.relative(p))
                .collect(),
        }
    }
}

/// The workspace as given and as the file system names it (symbolic links resolved).
struct Roots {
    given: PathBuf,
    real: Option<PathBuf>,
}

impl Roots {
    fn of(workspace: &Path) -> Roots {
        Roots {
            given: workspace.to_path_buf(),
            real: std::fs::canonicalize(workspace).ok(),
        }
    }

    /// `path` as the tools resolve it, relative to the workspace; and where it leads, when a
    /// symbolic link on the way points elsewhere in the workspace.
    fn resolve(&self, path: &str) -> Vec<String> {
        let Some(normal) = resolve_lexically(&self.given, path) else {
            return Vec::new();
        };
        self.relative_all(vec![normal])
    }

    fn relative_all(&self, paths: Vec<PathBuf>) -> Vec<String> {
        let mut out = Vec::new();
        for path in paths {
            let real = std::fs::canonicalize(&path).ok();
            for candidate in std::iter::once(path).chain(real) {
                let text = self.relative(&candidate);
                if !out.contains(&text) {
                    out.push(text);
                }
            }
        }
        out
    }

    fn relative(&self, path: &Path) -> String {
        let inside = path
            .strip_prefix(&self.given)
            .ok()
            .or_else(|| self.real.as_ref().and_then(|r| path.strip_prefix(r).ok()));
        match inside {
            Some(rel) => rel.to_string_lossy().into_owned(),
            None => path.to_string_lossy().into_owned(),
        }
    }
}
