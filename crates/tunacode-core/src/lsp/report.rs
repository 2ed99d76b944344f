//! What the language servers said after an edit, as the model reads it: the new errors of each
//! file (at most [`MAX_PER_FILE`] a file, [`MAX_FILES`] files), and which servers did not answer in
//! time ("incomplete": their silence is not a clean bill).

use std::path::{Path, PathBuf};

use tunacode_lsp::Diagnostic;

/// Most errors shown for one file.
pub const MAX_PER_FILE: usize = 20;
/// Most files shown.
pub const MAX_FILES: usize = 5;

/// One file's new errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileErrors {
    /// The file.
    pub path: PathBuf,
    /// The errors it did not have before the edit.
    pub errors: Vec<Diagnostic>,
}

/// The servers' word on one batch of edits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EditReport {
    /// Files with new errors (the edited ones first).
    pub files: Vec<FileErrors>,
    /// Servers that did not publish in time for an edited file.
    pub incomplete: Vec<String>,
}

impl EditReport {
    /// The text appended to the edit's result; `None` when there is nothing to say.
    pub fn describe(&self, root: &Path) -> Option<String> {
        if self.files.is_empty() && self.incomplete.is_empty() {
            return None;
        }
        let mut text = String::from("[language server: new errors after this edit]");
        for file in self.files.iter().take(MAX_FILES) {
            let shown = file.path.strip_prefix(root).unwrap_or(&file.path);
            text.push_str(&format!("\n{}:", shown.display()));
            for error in file.errors.iter().take(MAX_PER_FILE) {
                text.push_str(&format!("\n  {}", error.describe()));
            }
            if file.errors.len() > MAX_PER_FILE {
                text.push_str(&format!(
                    "\n  … and {} more",
                    file.errors.len() - MAX_PER_FILE
                ));
            }
        }
        if self.files.len() > MAX_FILES {
            let more = self.files.len() - MAX_FILES;
            text.push_str(&format!("\n… and {more} more files with new errors"));
        }
        if self.files.is_empty() {
            text.push_str("\nnone reported so far");
        }
        if !self.incomplete.is_empty() {
            text.push_str(&format!(
                "\n(incomplete: {} did not report in time; errors may be missing)",
                self.incomplete.join(", ")
            ));
        }
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use tunacode_lsp::Severity;

    use super::*;

    fn error(n: u32) -> Diagnostic {
        Diagnostic {
            line: n,
            column: 2,
            severity: Severity::Error,
            message: format!("problem {n}"),
            code: None,
            source: None,
        }
    }

    #[test]
    fn errors_are_listed_per_file_within_the_limits_and_silence_is_incomplete() {
        let root = Path::new("/ws");
        assert_eq!(EditReport::default().describe(root), None);
        let files = (0..7)
            .map(|n| FileErrors {
                path: root.join(format!("f{n}.py")),
                errors: (1..=25).map(error).collect(),
            })
            .collect();
        let report = EditReport {
            files,
            incomplete: vec!["pyright".into()],
        };
        let text = report.describe(root).unwrap();
        assert!(text.starts_with(
            "[language server: new errors after this edit]\nf0.py:\n  1:2 error: problem 1"
        ));
        assert_eq!(text.matches("error: problem").count(), 5 * 20);
        assert!(text.contains("… and 5 more\n"));
        assert!(text.contains("… and 2 more files with new errors"));
        assert!(
            text.ends_with("(incomplete: pyright did not report in time; errors may be missing)")
        );
        let silent = EditReport {
            files: vec![],
            incomplete: vec!["pyright".into()],
        };
        assert!(
            silent
                .describe(root)
                .unwrap()
                .contains("none reported so far")
        );
    }
}
