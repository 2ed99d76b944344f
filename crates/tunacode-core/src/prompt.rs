//! The system prompt: the built-in prompt file, the environment, and the instruction files found for
//! the working directory (`instructions.rs`; seed 000 §2.2 read only the working directory's).

use std::path::Path;

/// The built-in prompt.
pub const BUILTIN_SYSTEM_PROMPT: &str = include_str!("../prompts/system.md");

/// Builds the system prompt for a working directory with its instruction files.
pub fn compose_system_prompt(
    working_directory: &Path,
    instructions: &[crate::instructions::InstructionFile],
    skills: &[crate::skills::Skill],
) -> String {
    let mut prompt = BUILTIN_SYSTEM_PROMPT.trim_end().to_string();
    prompt.push_str(&format!(
        "\n\n# Environment\nWorking directory: {}\nPlatform: {}\n",
        working_directory.display(),
        std::env::consts::OS
    ));
    prompt.push_str(&crate::instructions::render_instructions(instructions));
    prompt.push_str(&crate::skills::render_skills(skills));
    prompt
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instructions::InstructionFile;

    #[test]
    fn includes_the_builtin_prompt_and_the_instruction_files() {
        let dir = tempfile::tempdir().unwrap();
        let without = compose_system_prompt(dir.path(), &[], &[]);
        assert!(without.starts_with(BUILTIN_SYSTEM_PROMPT.trim_end()));
        assert!(without.contains("TUNACODE DONE:"));
        assert!(!without.contains("# Instructions from"));
        let file = InstructionFile {
            path: dir.path().join("AGENTS.md"),
            text: "Use tabs.".into(),
            truncated: false,
        };
        let with = compose_system_prompt(dir.path(), &[file], &[]);
        assert!(with.ends_with(&format!(
            "# Instructions from {}\nUse tabs.\n",
            dir.path().join("AGENTS.md").display()
        )));
    }
}
