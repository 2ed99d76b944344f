//! What a server published: each file's latest diagnostics with the publication's number, and which
//! errors of a file are new against an earlier set (compared by message, code and source, not by
//! position: an edit above an old error moves it without making it new).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    /// An error.
    Error,
    /// A warning.
    Warning,
    /// Information or a hint.
    Other,
}

/// One diagnostic, as shown to the model.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    /// Its line, from 1.
    pub line: u32,
    /// Its column, from 1.
    pub column: u32,
    /// How serious.
    pub severity: Severity,
    /// What it says.
    pub message: String,
    /// Its code (`reportAttributeAccessIssue`, `E0308`), when it has one.
    pub code: Option<String>,
    /// Who said it (`Pyright`, `rustc`), when known.
    pub source: Option<String>,
}

impl From<&lsp_types::Diagnostic> for Diagnostic {
    fn from(d: &lsp_types::Diagnostic) -> Self {
        let severity = match d.severity {
            // The protocol says a missing severity is the client's call: an error.
            Some(lsp_types::DiagnosticSeverity::ERROR) | None => Severity::Error,
            Some(lsp_types::DiagnosticSeverity::WARNING) => Severity::Warning,
            Some(_) => Severity::Other,
        };
        let code = d.code.as_ref().map(|c| match c {
            lsp_types::NumberOrString::Number(n) => n.to_string(),
            lsp_types::NumberOrString::String(s) => s.clone(),
        });
        Diagnostic {
            line: d.range.start.line + 1,
            column: d.range.start.character + 1,
            severity,
            message: d.message.clone(),
            code,
            source: d.source.clone(),
        }
    }
}

impl Diagnostic {
    /// One line: `12:5 error: message [code]`.
    pub fn describe(&self) -> String {
        let code = self
            .code
            .as_deref()
            .map(|c| format!(" [{c}]"))
            .unwrap_or_default();
        let first = self.message.lines().next().unwrap_or_default();
        format!("{}:{} error: {first}{code}", self.line, self.column)
    }

    fn identity(&self) -> (&str, Option<&str>, Option<&str>) {
        (&self.message, self.code.as_deref(), self.source.as_deref())
    }
}

/// The errors of `after` that `before` does not have (as many times as it has them).
pub fn new_errors(before: &[Diagnostic], after: &[Diagnostic]) -> Vec<Diagnostic> {
    let mut old: HashMap<(&str, Option<&str>, Option<&str>), usize> = HashMap::new();
    for d in before.iter().filter(|d| d.severity == Severity::Error) {
        *old.entry(d.identity()).or_default() += 1;
    }
    after
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .filter(|d| match old.get_mut(&d.identity()) {
            Some(left) if *left > 0 => {
                *left -= 1;
                false
            }
            _ => true,
        })
        .cloned()
        .collect()
}

/// Every file's latest publication.
#[derive(Debug, Default)]
pub(crate) struct Published {
    /// Publications so far.
    pub count: u64,
    files: HashMap<PathBuf, (u64, Vec<Diagnostic>)>,
}

impl Published {
    pub(crate) fn record(&mut self, path: PathBuf, diagnostics: Vec<Diagnostic>) {
        self.count += 1;
        self.files.insert(path, (self.count, diagnostics));
    }

    /// `path`'s latest publication: its number and diagnostics.
    pub(crate) fn latest(&self, path: &Path) -> Option<(u64, Vec<Diagnostic>)> {
        self.files.get(path).cloned()
    }

    /// The files published after `mark`.
    pub(crate) fn since(&self, mark: u64) -> Vec<(PathBuf, Vec<Diagnostic>)> {
        self.files
            .iter()
            .filter(|(_, (at, _))| *at > mark)
            .map(|(path, (_, d))| (path.clone(), d.clone()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(line: u32, message: &str) -> Diagnostic {
        Diagnostic {
            line,
            column: 1,
            severity: Severity::Error,
            message: message.into(),
            code: Some("reportX".into()),
            source: Some("Pyright".into()),
        }
    }

    #[test]
    fn only_errors_the_file_did_not_have_are_new_wherever_they_moved() {
        let before = vec![
            error(3, "old problem"),
            error(9, "twice"),
            error(12, "twice"),
        ];
        let mut warning = error(1, "style");
        warning.severity = Severity::Warning;
        let after = vec![
            error(5, "old problem"),
            error(9, "twice"),
            error(12, "twice"),
            error(20, "twice"),
            error(2, "a new one"),
            warning,
        ];
        let new: Vec<String> = new_errors(&before, &after)
            .iter()
            .map(Diagnostic::describe)
            .collect();
        assert_eq!(
            new,
            vec![
                "20:1 error: twice [reportX]".to_string(),
                "2:1 error: a new one [reportX]".to_string()
            ]
        );
    }

    #[test]
    fn publications_are_numbered_and_read_since_a_mark() {
        let mut p = Published::default();
        p.record("/a.py".into(), vec![error(1, "x")]);
        let mark = p.count;
        p.record("/b.py".into(), vec![]);
        assert_eq!(p.latest(Path::new("/a.py")).unwrap().0, 1);
        let since: Vec<PathBuf> = p.since(mark).into_iter().map(|(path, _)| path).collect();
        assert_eq!(since, vec![PathBuf::from("/b.py")]);
    }
}
