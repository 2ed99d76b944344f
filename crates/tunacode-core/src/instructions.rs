//! The instruction files that reach the model, at every level: the user's own
//! (`~/.config/tunacode/AGENTS.md`), then every `AGENTS.md` from the repository root (the nearest
//! `.git` above the working directory) down to the working directory, nearest last. A directory without
//! one gives its `CLAUDE.md` instead (many repositories have only that). `settings.guide_file` names
//! the file looked for (default `AGENTS.md`; empty: none). Each file is capped, and all of them
//! together, with a notice where one was cut. A file is read only when it is a regular file whose real
//! path stays inside the repository (the user's config folder for the user's own), so a link to
//! `/proc/self/environ` or a key file is skipped and said (`project_files.rs`).

use std::path::{Path, PathBuf};

use crate::history::estimate_tokens;
use crate::markdown_files::project_root;
use crate::project_files::{Skipped, boundary, read_inside};

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
    let root = project_root(cwd);
    let mut levels: Vec<PathBuf> = cwd
        .ancestors()
        .take_while(|dir| dir.starts_with(root))
        .map(Path::to_path_buf)
        .collect();
    levels.reverse();
    levels
}

/// The instruction files for `cwd`, in the order they are given to the model; `user_dir` is
/// `~/.config/tunacode`. Files that are not regular files inside their own folder are added to
/// `skipped`.
pub fn find_instructions(
    user_dir: &Path,
    cwd: &Path,
    guide_file: &str,
    skipped: &mut Vec<Skipped>,
) -> Vec<InstructionFile> {
    if guide_file.is_empty() {
        return Vec::new();
    }
    let mut candidates = Vec::new();
    if let Some(within) = boundary(user_dir) {
        candidates.push((user_dir.join(guide_file), within));
    }
    if let Some(within) = boundary(project_root(cwd)) {
        for dir in project_levels(cwd) {
            let own = dir.join(guide_file);
            // Whatever is there under the name is looked at (and said when it is not usable).
            let file = if std::fs::symlink_metadata(&own).is_ok_and(|m| !m.is_dir()) {
                own
            } else {
                dir.join(FALLBACK_FILE)
            };
            candidates.push((file, within.clone()));
        }
    }
    let mut budget = MAX_TOTAL_BYTES;
    let mut files = Vec::new();
    for (path, within) in candidates {
        let text = match read_inside(&path, &within) {
            Ok(Some(text)) => text,
            Ok(None) => continue,
            Err(skip) => {
                skipped.push(skip);
                continue;
            }
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

/// The instruction files for `cwd` under the config at `paths` (for `tunacode context`), and those
/// skipped.
pub fn instructions_for(
    paths: &tunacode_store::Paths,
    cwd: &Path,
) -> Result<(Vec<InstructionFile>, Vec<Skipped>), tunacode_store::StoreError> {
    let config = tunacode_store::UserConfig::load(&paths.config_file)?;
    let mut skipped = Vec::new();
    let files = find_instructions(
        &paths.user_dir(),
        cwd,
        &config.settings.guide_file,
        &mut skipped,
    );
    Ok((files, skipped))
}

#[cfg(test)]
#[path = "instructions_tests.rs"]
mod tests;
