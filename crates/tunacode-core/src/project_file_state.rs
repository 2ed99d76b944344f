//! [`ProjectFileState`]: a repository's file that runs commands (its checks, its hooks), as a session
//! found it: approved for this content or not, or unusable.

use std::path::{Path, PathBuf};

use tunacode_protocol::runtime::{PendingProjectFile, ProjectFileKind};

/// A repository's checks or hooks file, as the session found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectFileState {
    /// The file.
    pub file: PathBuf,
    /// Whether the user approved this content of it.
    pub approved: bool,
    /// Its text (what an approval covers).
    pub text: String,
    /// What it declares (checks' names, hooks' events and commands).
    pub names: Vec<String>,
    /// Why it cannot be used (malformed, a bad glob), when it cannot.
    pub problem: Option<String>,
}

impl ProjectFileState {
    /// The file as a pending notice of `kind`.
    pub fn pending(&self, kind: ProjectFileKind) -> PendingProjectFile {
        PendingProjectFile {
            kind,
            file: self.file.clone(),
            names: self.names.clone(),
            problem: self.problem.clone(),
        }
    }

    /// Its line in `/checks` or `/hooks`: unusable, approved, or waiting.
    pub fn describe(&self, kind: ProjectFileKind) -> String {
        match (&self.problem, self.approved) {
            (Some(problem), _) => format!("{} is not used: {problem}\n", self.file.display()),
            (None, true) => format!("{}: approved.\n", self.file.display()),
            (None, false) => format!("{}\n", self.pending(kind).notice()),
        }
    }
}

/// A project's file of `kind` when it waits for approval or cannot be used (said when a session
/// opens).
pub fn waiting(
    kind: ProjectFileKind,
    state: Option<&ProjectFileState>,
) -> Option<PendingProjectFile> {
    state
        .filter(|p| p.problem.is_some() || (!p.approved && !p.names.is_empty()))
        .map(|p| p.pending(kind))
}

/// Reads a repository's file `relative` (`.tunacode/checks.json`) under `cwd`: `Ok(None)` when there
/// is none. Neither the file nor its folder may be a link (a link could point the approved name at
/// a file the file tools do not guard), and it is read as a regular file inside the repository, at
/// most 1 MiB (`project_files::read_inside`): a device or a FIFO cannot hang the start.
pub fn read_project_file(cwd: &Path, relative: &str) -> Result<Option<String>, String> {
    let path = cwd.join(relative);
    let mut walked = cwd.to_path_buf();
    for part in Path::new(relative).components() {
        walked.push(part);
        match std::fs::symlink_metadata(&walked) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(format!(
                    "{} is a link, which is not followed",
                    walked.display()
                ));
            }
            Ok(_) => {}
            Err(_) => return Ok(None),
        }
    }
    let Some(within) = crate::project_files::boundary(cwd) else {
        return Ok(None);
    };
    crate::project_files::read_inside(&path, &within).map_err(|e| e.to_string())
}

/// Refuses an approval when the file's `text` is no longer what the user was `shown`.
pub(crate) fn still_shown(
    file: &Path,
    text: &str,
    shown: Option<&str>,
) -> Result<(), crate::settings_error::SettingsError> {
    match shown {
        Some(shown) if shown != text => {
            Err(crate::settings_error::SettingsError::Invalid(format!(
                "{} changed since it was shown; review it again (/checks or /hooks) before approving",
                file.display()
            )))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_a_device_or_a_fifo_is_refused_and_a_plain_file_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path();
        let relative = ".tunacode/checks.json";
        assert_eq!(read_project_file(cwd, relative), Ok(None));
        std::fs::create_dir(cwd.join(".tunacode")).unwrap();
        let file = cwd.join(relative);
        std::os::unix::fs::symlink("/dev/zero", &file).unwrap();
        let err = read_project_file(cwd, relative).unwrap_err();
        assert!(err.contains("is a link"), "{err}");
        std::fs::remove_file(&file).unwrap();
        nix::unistd::mkfifo(&file, nix::sys::stat::Mode::S_IRWXU).unwrap();
        assert!(
            read_project_file(cwd, relative).is_err(),
            "a FIFO does not hang the start"
        );
        std::fs::remove_file(&file).unwrap();
        std::fs::write(&file, "[]").unwrap();
        assert_eq!(read_project_file(cwd, relative), Ok(Some("[]".to_string())));
        // A linked folder is refused too.
        let other = tempfile::tempdir().unwrap();
        std::fs::create_dir(other.path().join("x")).unwrap();
        std::fs::write(other.path().join("x/checks.json"), "[]").unwrap();
        std::fs::remove_dir_all(cwd.join(".tunacode")).unwrap();
        std::os::unix::fs::symlink(other.path().join("x"), cwd.join(".tunacode")).unwrap();
        assert!(
            read_project_file(cwd, relative)
                .unwrap_err()
                .contains("is a link")
        );
    }
}
