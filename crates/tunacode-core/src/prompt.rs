//! The system prompt: the built-in prompt file, the environment, and the project's context file
//! (`AGENTS.md` by default) from the working directory (seed 000 §2.2).

use std::path::Path;

/// The built-in prompt.
pub const BUILTIN_SYSTEM_PROMPT: &str = include_str!("../prompts/system.md");

/// Longest context file included (bytes); the rest is cut with a note.
const MAX_CONTEXT_FILE_BYTES: usize = 64 * 1024;

/// Builds the system prompt for a working directory.
pub fn compose_system_prompt(working_directory: &Path, guide_file: &str) -> String {
    let mut prompt = BUILTIN_SYSTEM_PROMPT.trim_end().to_string();
    prompt.push_str(&format!(
        "\n\n# Environment\nWorking directory: {}\nPlatform: {}\n",
        working_directory.display(),
        std::env::consts::OS
    ));
    if guide_file.is_empty() {
        return prompt;
    }
    let path = working_directory.join(guide_file);
    if let Ok(text) = std::fs::read_to_string(&path) {
        let text = text.trim();
        if !text.is_empty() {
            let cut = if text.len() > MAX_CONTEXT_FILE_BYTES {
                let mut end = MAX_CONTEXT_FILE_BYTES;
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                format!("{}\n[… {guide_file} truncated]", &text[..end])
            } else {
                text.to_string()
            };
            prompt.push_str(&format!("\n# Project context ({guide_file})\n{cut}\n"));
        }
    }
    prompt
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_the_builtin_prompt_and_agents_md() {
        let dir = tempfile::tempdir().unwrap();
        let without = compose_system_prompt(dir.path(), "AGENTS.md");
        assert!(without.starts_with(BUILTIN_SYSTEM_PROMPT.trim_end()));
        assert!(without.contains("TUNACODE DONE:"));
        assert!(!without.contains("Project context"));
        std::fs::write(dir.path().join("AGENTS.md"), "Use tabs.\n").unwrap();
        let with = compose_system_prompt(dir.path(), "AGENTS.md");
        assert!(with.contains("# Project context (AGENTS.md)\nUse tabs."));
    }
}
