//! What a line writes, for two dangers: running a script the same line writes (`echo 'rm -rf /' >
//! s.sh; sh s.sh`, which no check of the line could read) and writing into `.git` (its hooks and
//! config run code on the next `git`). Writes are redirections, `tee` and the destination of `cp`,
//! `mv`, `install` and `ln`.

use std::path::{Component, Path, PathBuf};

use super::invocation::{Analysis, Arg};
use super::runners::script_operand;

/// The paths `arg` names from each of `dirs` (unknown directories are skipped).
fn resolve(arg: &Arg, dirs: &[Option<PathBuf>]) -> Vec<PathBuf> {
    if arg.unknown || arg.text.is_empty() {
        return Vec::new();
    }
    dirs.iter()
        .flatten()
        .filter_map(|dir| crate::workspace::resolve_lexically(dir, &arg.text))
        .collect()
}

/// Every file the line writes.
fn written(analysis: &Analysis) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for redirect in analysis.redirects.iter().filter(|r| r.writes) {
        paths.extend(resolve(&redirect.target, &redirect.dirs));
    }
    for inv in &analysis.invocations {
        let operands: Vec<&Arg> = inv
            .args()
            .iter()
            .filter(|a| !a.text.starts_with('-'))
            .collect();
        let targets: Vec<&Arg> = match inv.name() {
            "tee" => operands,
            "cp" | "mv" | "install" | "ln" => operands.last().copied().into_iter().collect(),
            _ => Vec::new(),
        };
        for target in targets {
            paths.extend(resolve(target, &inv.dirs));
        }
    }
    paths
}

/// Why what the line writes is dangerous, if it is.
pub(super) fn write_danger(analysis: &Analysis) -> Option<String> {
    let written = written(analysis);
    let in_git = |p: &PathBuf| {
        p.components()
            .any(|c| c == Component::Normal(".git".as_ref()))
    };
    if let Some(path) = written.iter().find(|p| in_git(p)) {
        return Some(format!(
            "it writes {} inside .git, whose hooks and config run code",
            shown(path)
        ));
    }
    for inv in &analysis.invocations {
        let program = inv.argv.first().filter(|p| p.text.contains('/')).cloned();
        for script in script_operand(inv).into_iter().chain(program) {
            if resolve(&script, &inv.dirs)
                .iter()
                .any(|p| written.contains(p))
            {
                return Some(format!(
                    "it runs `{}`, which the same command line writes",
                    script.text
                ));
            }
        }
    }
    None
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}
