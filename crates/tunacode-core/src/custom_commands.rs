//! Custom slash commands: markdown files in `.tunacode/commands/` (the working directory's, then the
//! repository root's) and `~/.config/tunacode/commands/`, a project file winning over a user file of the
//! same name. Front matter: `description`, optional `model`. The body is the message sent, with
//! `$ARGUMENTS` (everything after the name) and `$1`…`$9` (the arguments split like shell words); `@file`
//! mentions in it are attached like the user's own. Only regular files whose real path stays inside
//! their own folder (the repository, the user's config folder) are read (`project_files.rs`).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::markdown_files::{collect_by_name, search_dirs, split_front_matter};
use crate::project_files::{Skipped, read_inside};

/// One command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomCommand {
    /// Its name (`/name`).
    pub name: String,
    /// What it does (shown in completion and `/help`).
    pub description: String,
    /// The model it runs with, instead of the session's.
    pub model: Option<String>,
    /// The message template.
    pub body: String,
    /// Where it was read.
    pub path: PathBuf,
}

#[derive(Debug, Default, Deserialize)]
struct Front {
    description: Option<String>,
    model: Option<String>,
}

/// The commands for `cwd`; `user_dir` is `~/.config/tunacode`. A file that cannot be read, or that is
/// not a regular file inside its own folder (the repository, the user's config folder), is skipped
/// with a warning in the log; the second kind is also added to `skipped`.
pub fn find_commands(
    user_dir: &Path,
    cwd: &Path,
    skipped: &mut Vec<Skipped>,
) -> Vec<CustomCommand> {
    let dirs = search_dirs(cwd, &[".tunacode/commands"], user_dir, "commands");
    collect_by_name(&dirs, skipped, |path, within, skipped| {
        if path.extension().and_then(|e| e.to_str()) != Some("md") {
            return None;
        }
        let name = path.file_stem()?.to_str()?.to_string();
        let text = match read_inside(path, within) {
            Ok(text) => text?,
            Err(skip) => {
                skipped.push(skip);
                return None;
            }
        };
        match split_front_matter::<Front>(&text) {
            Ok((front, body)) => Some((
                name.clone(),
                CustomCommand {
                    description: front
                        .description
                        .unwrap_or_else(|| format!("custom command from {}", path.display())),
                    model: front.model,
                    body,
                    path: path.to_path_buf(),
                    name,
                },
            )),
            Err(e) => {
                tracing::warn!(path = %path.display(), "custom command skipped: {e}");
                None
            }
        }
    })
    .into_values()
    .collect()
}

impl CustomCommand {
    /// The message for `/name ARGS`.
    pub fn expand(&self, arguments: &str) -> String {
        let words = shell_words::split(arguments)
            .unwrap_or_else(|_| arguments.split_whitespace().map(str::to_string).collect());
        let mut text = self.body.replace("$ARGUMENTS", arguments.trim());
        // From $9 down, so `$1` never eats the start of `$10`-like text first.
        for n in (1..=9).rev() {
            let value = words.get(n - 1).map(String::as_str).unwrap_or("");
            text = text.replace(&format!("${n}"), value);
        }
        text.trim().to_string()
    }
}

/// The command a typed line runs and its arguments, if the line is `/name …` for one of `commands`.
pub fn match_command<'a>(
    commands: &'a [CustomCommand],
    line: &str,
) -> Option<(&'a CustomCommand, String)> {
    let rest = line.trim_start().strip_prefix('/')?;
    let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    commands
        .iter()
        .find(|c| c.name == name)
        .map(|c| (c, args.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
        std::fs::write(path, text).expect("write");
    }

    #[test]
    fn project_commands_win_and_arguments_expand() {
        let home = tempfile::tempdir().expect("home");
        let ws = tempfile::tempdir().expect("ws");
        write(&home.path().join("commands/review.md"), "user review");
        write(
            &home.path().join("commands/hello.md"),
            "---\ndescription: Say hi\n---\nHi $ARGUMENTS!",
        );
        write(
            &ws.path().join(".tunacode/commands/review.md"),
            "---\ndescription: Review a file\nmodel: openai:gpt-5\n---\nReview @$1 for $2 issues. All: $ARGUMENTS",
        );
        let commands = find_commands(home.path(), ws.path(), &mut Vec::new());
        let names: Vec<&str> = commands.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["hello", "review"]);
        let (review, args) =
            match_command(&commands, "/review src/lib.rs \"error handling\"").expect("found");
        assert_eq!(review.model.as_deref(), Some("openai:gpt-5"));
        assert_eq!(
            review.expand(&args),
            "Review @src/lib.rs for error handling issues. All: src/lib.rs \"error handling\""
        );
        assert_eq!(commands[0].expand("there"), "Hi there!");
        assert!(match_command(&commands, "/nope x").is_none());
        assert!(match_command(&commands, "review x").is_none());
    }
}
