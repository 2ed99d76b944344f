//! The instruction files that reach the model, at every level: the user's own
//! (`~/.config/tunacode/AGENTS.md`), then every `AGENTS.md` from the repository root (the nearest
//! `.git` above the working directory) down to the working directory, nearest last. A directory without
//! one gives its `CLAUDE.md` instead (many repositories have only that). `settings.guide_file` names
//! the file looked for (default `AGENTS.md`; empty: none). Each file is capped, and all of them
//! together, with a notice where one was cut.

use std::path::{Path, PathBuf};

use crate::history::estimate_tokens;

/// The most of one file included (bytes).
const MAX_FILE_BYTES: usize = 32 * 1024;
/// The most of all files together (bytes).
const MAX_TOTAL_BYTES: usize = 64 * 1024;
/// Read where a directory has no guide file.
const FALLBACK_FILE: &str = "CLAUDE.md";

/// One instruction file as included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstructionFile {
    /// Where it was read.
    pub path: PathBuf,
    /// What is included (cut when too long).
    pub text: String,
    /// Whether it was cut.
    pub truncated: bool,
}

impl InstructionFile {
    /// Its estimated token cost.
    pub fn tokens(&self) -> u64 {
        estimate_tokens(&self.text)
    }
}

/// The directories from the repository root (or the working directory, outside a repository) down to
/// the working directory.
fn project_levels(cwd: &Path) -> Vec<PathBuf> {
    let root = cwd
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(cwd);
    let mut levels: Vec<PathBuf> = cwd
        .ancestors()
        .take_while(|dir| dir.starts_with(root))
        .map(Path::to_path_buf)
        .collect();
    levels.reverse();
    levels
}

/// The instruction files for `cwd`, in the order they are given to the model; `user_dir` is
/// `~/.config/tunacode`.
pub fn find_instructions(user_dir: &Path, cwd: &Path, guide_file: &str) -> Vec<InstructionFile> {
    if guide_file.is_empty() {
        return Vec::new();
    }
    let mut candidates = vec![user_dir.join(guide_file)];
    for dir in project_levels(cwd) {
        let own = dir.join(guide_file);
        candidates.push(if own.is_file() {
            own
        } else {
            dir.join(FALLBACK_FILE)
        });
    }
    let mut budget = MAX_TOTAL_BYTES;
    let mut files = Vec::new();
    for path in candidates {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let text = text.trim();
        if text.is_empty() || budget == 0 {
            continue;
        }
        let limit = MAX_FILE_BYTES.min(budget);
        let (kept, truncated) = cut(text, limit);
        budget -= kept.len();
        files.push(InstructionFile {
            path,
            text: kept.to_string(),
            truncated,
        });
    }
    files
}

fn cut(text: &str, limit: usize) -> (&str, bool) {
    if text.len() <= limit {
        return (text, false);
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

/// The files as system prompt sections, each labelled with its path.
pub fn render_instructions(files: &[InstructionFile]) -> String {
    let mut out = String::new();
    for file in files {
        out.push_str(&format!(
            "\n# Instructions from {}\n{}\n",
            file.path.display(),
            file.text
        ));
        if file.truncated {
            out.push_str(&format!(
                "[… {} was cut here: instruction files are limited to {} KiB each and {} KiB in all]\n",
                file.path.display(),
                MAX_FILE_BYTES / 1024,
                MAX_TOTAL_BYTES / 1024
            ));
        }
    }
    out
}

/// What `/context` and `tunacode context` show: each file with its estimated token cost.
pub fn describe_instructions(files: &[InstructionFile]) -> String {
    if files.is_empty() {
        return "Instruction files: none found (AGENTS.md or CLAUDE.md from the repository root down \
                to here, or ~/.config/tunacode/AGENTS.md)."
            .to_string();
    }
    let total: u64 = files.iter().map(InstructionFile::tokens).sum();
    let mut text =
        format!("Instruction files (in the order the model reads them), ~{total} tokens:");
    for file in files {
        let cut = if file.truncated { ", cut" } else { "" };
        text.push_str(&format!(
            "\n  {}  ~{} tokens{cut}",
            file.path.display(),
            file.tokens()
        ));
    }
    text
}

/// What `/context` shows: the instruction files, then the skills with what listing them costs.
pub fn describe_context(files: &[InstructionFile], skills: &[crate::skills::Skill]) -> String {
    let mut text = describe_instructions(files);
    if skills.is_empty() {
        text.push_str("\nSkills: none (folders with a SKILL.md in .tunacode/skills, .agents/skills or ~/.config/tunacode/skills).");
        return text;
    }
    let listing = estimate_tokens(&crate::skills::render_skills(skills));
    text.push_str(&format!(
        "\nSkills (names and descriptions in the prompt, ~{listing} tokens; bodies load on demand):"
    ));
    for skill in skills {
        text.push_str(&format!(
            "\n  {}  {}  ({})",
            skill.name,
            skill.description,
            skill.dir.display()
        ));
    }
    text
}

/// The instruction files for `cwd` under the config at `paths` (for `tunacode context`).
pub fn instructions_for(
    paths: &tunacode_store::Paths,
    cwd: &Path,
) -> Result<Vec<InstructionFile>, tunacode_store::StoreError> {
    let config = tunacode_store::UserConfig::load(&paths.config_file)?;
    Ok(find_instructions(
        &paths.user_dir(),
        cwd,
        &config.settings.guide_file,
    ))
}

#[cfg(test)]
#[path = "instructions_tests.rs"]
mod tests;
