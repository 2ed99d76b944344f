//! Paths whose contents are secrets: the user's credentials (`~/.ssh`, `~/.aws`, …), the agent's own
//! config and data, other processes' `/proc/<pid>/environ` and memory, and the workspace's `.env*`
//! files. The file tools refuse them; the sandbox does not grant commands read access to the first
//! three groups (workspace `.env*` files stay readable by commands unless the user hides them).

use std::path::{Path, PathBuf};

use crate::resolve::normalize;

/// Credentials under the user's home that no tool or command reads by default.
pub const HOME_SECRETS: [&str; 14] = [
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".config/gh",
    ".kube",
    ".netrc",
    ".docker/config.json",
    ".git-credentials",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".password-store",
];

/// Files under `/proc/<pid>/` that expose a process's secrets.
const PROC_SECRETS: [&str; 6] = ["environ", "mem", "maps", "cmdline", "auxv", "fd"];

/// Example `.env` files, which are meant to be read.
const ENV_EXAMPLES: [&str; 4] = ["example", "sample", "template", "dist"];

/// Whether `name` is a workspace secret file: `.env`, direnv's `.envrc`, or `.env` followed by `.`,
/// `-` or `_` and anything (`.env.local`, `.env-prod`), but not an example (`.env.example`,
/// `.env.sample`, `.env.template`, `.env.dist`).
pub fn is_secret_file_name(name: &str) -> bool {
    let Some(rest) = name.trim().strip_prefix(".env") else {
        return false;
    };
    if rest.is_empty() || rest == "rc" {
        return true;
    }
    let Some(suffix) = rest.strip_prefix(['.', '-', '_']) else {
        return false;
    };
    !ENV_EXAMPLES
        .iter()
        .any(|e| suffix == *e || suffix.starts_with(&format!("{e}.")))
}

/// The paths secrets live at, for one session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecretPaths {
    denied: Vec<PathBuf>,
    hide_env_files: bool,
    rules: Option<DenyRules>,
}

/// The user's `read_file(…)` deny rules, so the file tools that search (grep, glob, list_dir) skip
/// the files they name as they skip secrets.
#[derive(Debug, Clone)]
struct DenyRules {
    root: PathBuf,
    texts: Vec<String>,
    set: globset::GlobSet,
}

impl PartialEq for DenyRules {
    fn eq(&self, other: &Self) -> bool {
        self.root == other.root && self.texts == other.texts
    }
}

impl Eq for DenyRules {}

impl SecretPaths {
    /// The default list for a user whose home is `home`, plus the agent's own config file and data
    /// directory (`agent`) and the paths the config adds (`extra`, absolute).
    pub fn new(home: Option<&Path>, agent: &[PathBuf], extra: &[PathBuf]) -> Self {
        let mut denied: Vec<PathBuf> = home
            .map(|h| HOME_SECRETS.iter().map(|s| h.join(s)).collect())
            .unwrap_or_default();
        denied.extend(agent.iter().cloned());
        denied.extend(extra.iter().cloned());
        let mut denied: Vec<PathBuf> = denied.iter().map(|p| normalize(p)).collect();
        // Canonical forms too, so a home reached through a symlink is covered either way.
        let real: Vec<PathBuf> = denied
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .collect();
        denied.extend(real);
        denied.sort();
        denied.dedup();
        SecretPaths {
            denied,
            hide_env_files: false,
            rules: None,
        }
    }

    /// The same paths, and the files that `read_file` deny rules name (`rules`: the rules as
    /// written, e.g. `read_file(secrets/**)`; their patterns are relative to `root`, the workspace).
    /// A rule that is not a `read_file` path rule is ignored here.
    pub fn with_deny_rules(mut self, root: &Path, rules: &[String]) -> Self {
        let mut builder = globset::GlobSetBuilder::new();
        let mut texts = Vec::new();
        for rule in rules {
            let Some(pattern) = ["read_file(", "Read("]
                .iter()
                .find_map(|p| rule.trim().strip_prefix(p))
                .and_then(|rest| rest.strip_suffix(')'))
                .map(|p| p.trim().trim_start_matches("./"))
                .filter(|p| !p.is_empty())
            else {
                continue;
            };
            if let Ok(glob) = globset::Glob::new(pattern) {
                builder.add(glob);
                texts.push(rule.clone());
            }
        }
        self.rules = builder
            .build()
            .ok()
            .filter(|_| !texts.is_empty())
            .map(|set| DenyRules {
                root: root.to_path_buf(),
                texts,
                set,
            });
        self
    }

    /// The same paths, the workspace's `.env*` files also hidden from sandboxed commands.
    pub fn hiding_env_files(mut self, hide: bool) -> Self {
        self.hide_env_files = hide;
        self
    }

    /// Whether sandboxed commands are kept from the workspace's `.env*` files too.
    pub fn hides_env_files(&self) -> bool {
        self.hide_env_files
    }

    /// The denied paths (absolute): the sandbox grants commands no read access to them.
    pub fn denied(&self) -> &[PathBuf] {
        &self.denied
    }

    /// Why a file tool may not read or write `path` (absolute, as the workspace resolved it), or
    /// `None` when it may.
    pub fn reason_for(&self, path: &Path) -> Option<String> {
        let path = normalize(path);
        if let Some(denied) = self.denied.iter().find(|d| path.starts_with(d)) {
            return Some(format!(
                "`{}` holds secrets ({} is on the deny-read list: `permissions.deny_read` in the \
                 config); it is not read or written by the agent",
                path.display(),
                denied.display()
            ));
        }
        if is_proc_secret(&path) {
            return Some(format!(
                "`{}` exposes a process's environment or memory; it is never read",
                path.display()
            ));
        }
        if let Some(rules) = &self.rules
            && let Ok(relative) = path.strip_prefix(&rules.root)
            && let Some(index) = rules.set.matches(relative).first()
        {
            return Some(format!(
                "`{}` is refused by the permission rule `{}` in the user's config",
                relative.display(),
                rules.texts[*index]
            ));
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if is_secret_file_name(name) {
            return Some(format!(
                "`{name}` is a secrets file; the agent does not read or edit `.env*` files (an example \
                 such as `.env.example` is fine). Ask the user for the names of the variables it \
                 needs, never their values"
            ));
        }
        None
    }
}

/// `/proc/<pid>/environ`, `/proc/self/mem`, `/proc/thread-self/…`, `/proc/<pid>/task/<tid>/environ`.
fn is_proc_secret(path: &Path) -> bool {
    let mut parts = path
        .components()
        .skip(1)
        .map(|c| c.as_os_str().to_string_lossy());
    if parts.next().as_deref() != Some("proc") {
        return false;
    }
    let rest: Vec<String> = parts.map(|p| p.into_owned()).collect();
    rest.iter()
        .skip(1)
        .any(|part| PROC_SECRETS.contains(&part.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_files_are_secrets_and_examples_are_not() {
        for name in [
            ".env",
            ".env.local",
            ".env.production",
            ".env.local.backup",
            ".env ",
            ".envrc",
            ".env-prod",
        ] {
            assert!(is_secret_file_name(name), "{name}");
        }
        for name in [
            ".env.example",
            ".env.sample",
            ".env.template",
            ".env.dist",
            ".environment",
            "env",
        ] {
            assert!(!is_secret_file_name(name), "{name}");
        }
    }

    #[test]
    fn files_named_by_read_file_deny_rules_are_refused_too() {
        let rules = [
            "read_file(secret.txt)".to_string(),
            "Read(keys/**)".to_string(),
            "bash(curl:*)".to_string(),
        ];
        let secrets = SecretPaths::default().with_deny_rules(Path::new("/nonexistent/w"), &rules);
        for path in ["/nonexistent/w/secret.txt", "/nonexistent/w/keys/a/b.pem"] {
            let why = secrets.reason_for(Path::new(path)).expect(path);
            assert!(why.contains("permission rule"), "{why}");
        }
        for path in ["/nonexistent/w/public.txt", "/elsewhere/secret.txt"] {
            assert!(secrets.reason_for(Path::new(path)).is_none(), "{path}");
        }
    }

    #[test]
    fn home_credentials_agent_files_and_proc_are_refused() {
        let home = Path::new("/home/u");
        let agent = [PathBuf::from("/home/u/.config/tunacode.json")];
        let secrets = SecretPaths::new(Some(home), &agent, &[PathBuf::from("/srv/keys")]);
        for path in [
            "/home/u/.ssh/id_ed25519",
            "/home/u/.aws/credentials",
            "/home/u/.config/gcloud/x",
            "/home/u/.docker/config.json",
            "/home/u/.config/tunacode.json",
            "/home/u/./.ssh/../.ssh/id_rsa",
            "/srv/keys/a",
            "/proc/1/environ",
            "/proc/self/mem",
            "/proc/123/task/124/environ",
            "/work/app/.env",
        ] {
            assert!(secrets.reason_for(Path::new(path)).is_some(), "{path}");
        }
        for path in [
            "/home/u/.docker/other.json",
            "/home/u/.sshrc",
            "/home/u/project/main.rs",
            "/proc/cpuinfo",
            "/work/app/.env.example",
        ] {
            assert!(secrets.reason_for(Path::new(path)).is_none(), "{path}");
        }
    }
}
