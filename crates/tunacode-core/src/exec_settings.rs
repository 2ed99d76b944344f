//! How the agent's commands run, resolved from the config and flags: the sandbox (`--sandbox` >
//! `settings.sandbox` > `workspace-write`), its writable roots (the working directory, the temp dir,
//! and the config's), the network, and the environment: the agent's own minus anything that looks like
//! a secret (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*PASSWORD*`, every provider's key variable, every
//! name in the config's `env`), adjusted by `settings.shell_env`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::{Glob, GlobSet, GlobSetBuilder};
use tunacode_store::{Paths, UserConfig};
use tunacode_tools::{ExecPolicy, ProtectedPaths, SandboxMode, SandboxPolicy, SecretPaths};

use crate::settings_error::SettingsError;

/// Name patterns of variables that hold secrets.
const SECRET_PATTERNS: [&str; 4] = ["*_API_KEY", "*_TOKEN", "*_SECRET", "*PASSWORD*"];

/// Resolves the exec policy for a session in `cwd`; `flag` is `--sandbox`.
pub fn resolve_exec(
    paths: &Paths,
    config: &UserConfig,
    flag: Option<&str>,
    cwd: &Path,
) -> Result<ExecPolicy, SettingsError> {
    let sandbox = &config.settings.sandbox;
    let (named, source) = match (flag, sandbox.mode.as_deref()) {
        (Some(mode), _) => (Some(mode), "--sandbox"),
        (None, Some(mode)) => (Some(mode), "settings.sandbox"),
        (None, None) => (None, ""),
    };
    let mode = match named {
        None => SandboxMode::default(),
        Some(name) => SandboxMode::parse(name).ok_or_else(|| {
            SettingsError::Invalid(format!(
                "{source}: unknown sandbox mode `{name}` (use workspace-write, read-only or off)"
            ))
        })?,
    };
    let mut writable_roots = vec![cwd.to_path_buf(), std::env::temp_dir()];
    writable_roots.extend(sandbox.writable_roots.iter().map(|p| absolute(p, cwd)));
    writable_roots.dedup();
    let env = child_env(config, std::env::vars_os())?;
    Ok(ExecPolicy {
        sandbox: SandboxPolicy {
            mode,
            writable_roots,
            network: sandbox.network,
            proxy_port: None,
            allowed_hosts: sandbox.allowed_hosts.clone(),
            secrets: Arc::new(secret_paths(paths, config, cwd)),
            protected: Arc::new(protected_paths(paths, cwd)),
        },
        env: Some(Arc::new(env)),
    })
}

/// The secret paths: the built-in list under the home directory, the agent's config file and data,
/// and `permissions.deny_read` (`~/…` under the home, relative paths under the working directory).
pub fn secret_paths(paths: &Paths, config: &UserConfig, cwd: &Path) -> SecretPaths {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let extra: Vec<PathBuf> = config
        .permissions
        .deny_read
        .iter()
        .map(|p| absolute(&expand_home(p, home.as_deref()), cwd))
        .collect();
    let agent = [
        paths.config_file.clone(),
        paths.data_dir(),
        paths.log_dir.clone(),
    ];
    SecretPaths::new(home.as_deref(), &agent, &extra)
        .hiding_env_files(config.settings.sandbox.hide_env_files)
        .with_deny_rules(cwd, &config.permissions.deny)
}

/// The protected paths of a session in `cwd`: under the working directory and the repository root,
/// and the agent's own config, folder and data.
pub fn protected_paths(paths: &Paths, cwd: &Path) -> ProtectedPaths {
    // The working directory, and up to the repository root every folder instruction files are read
    // from.
    let mut roots = vec![cwd.to_path_buf()];
    if let Some(repo) = cwd.ancestors().find(|dir| dir.join(".git").exists()) {
        roots.extend(
            cwd.ancestors()
                .skip(1)
                .take_while(|dir| dir.starts_with(repo))
                .map(Path::to_path_buf),
        );
    }
    let agent = vec![
        paths.config_file.clone(),
        paths.user_dir(),
        paths.data_dir(),
    ];
    ProtectedPaths::new(roots, agent)
}

fn expand_home(path: &str, home: Option<&Path>) -> PathBuf {
    match (path.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ if path == "~" => home.map_or_else(|| PathBuf::from(path), Path::to_path_buf),
        _ => PathBuf::from(path),
    }
}

fn absolute(path: &Path, cwd: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    }
}

fn glob_set(patterns: impl IntoIterator<Item = String>) -> Result<GlobSet, SettingsError> {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = Glob::new(&pattern)
            .map_err(|e| SettingsError::Invalid(format!("settings.shell_env: `{pattern}`: {e}")))?;
        builder.add(glob);
    }
    builder
        .build()
        .map_err(|e| SettingsError::Invalid(format!("settings.shell_env: {e}")))
}

/// The environment commands get: `vars` minus secrets, with the config's `shell_env` applied.
pub fn child_env(
    config: &UserConfig,
    vars: impl Iterator<Item = (OsString, OsString)>,
) -> Result<Vec<(OsString, OsString)>, SettingsError> {
    let mut secret_names: Vec<String> = tunacode_llm::known_provider_names()
        .into_iter()
        .filter_map(tunacode_llm::known_provider)
        .filter_map(|p| p.key_env.map(str::to_string))
        .collect();
    secret_names.extend(config.providers.values().filter_map(|p| p.key_env.clone()));
    secret_names.extend(config.env.keys().cloned());
    let secrets = glob_set(SECRET_PATTERNS.iter().map(|p| p.to_string()))?;
    let include = glob_set(config.settings.shell_env.include.iter().cloned())?;
    let exclude = glob_set(config.settings.shell_env.exclude.iter().cloned())?;
    Ok(vars
        .filter(|(name, _)| {
            let name = name.to_string_lossy();
            if exclude.is_match(name.as_ref()) {
                return false;
            }
            if include.is_match(name.as_ref()) {
                return true;
            }
            let upper = name.to_uppercase();
            !secrets.is_match(upper.as_str()) && !secret_names.iter().any(|s| *s == *name)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(names: &[&str]) -> Vec<(OsString, OsString)> {
        names
            .iter()
            .map(|n| (OsString::from(n), OsString::from("v")))
            .collect()
    }

    fn kept(config: &UserConfig, names: &[&str]) -> Vec<String> {
        child_env(config, vars(names).into_iter())
            .expect("valid patterns")
            .into_iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn secrets_are_kept_from_commands_and_everything_else_stays() {
        let config: UserConfig = serde_json::from_str(
            r#"{"env": {"MY_SERVICE_KEY": "x"}, "providers": {"gpu": {"key_env": "GPU_KEY"}}}"#,
        )
        .expect("config");
        let names = [
            "PATH",
            "HOME",
            "LANG",
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "AWS_SECRET",
            "DB_PASSWORD",
            "my_password_file",
            "GEMINI_API_KEY",
            "MY_SERVICE_KEY",
            "GPU_KEY",
            "EDITOR",
        ];
        assert_eq!(kept(&config, &names), ["PATH", "HOME", "LANG", "EDITOR"]);
    }

    #[test]
    fn shell_env_includes_and_excludes_by_pattern() {
        let config: UserConfig = serde_json::from_str(
            r#"{"settings": {"shell_env": {"include": ["NPM_TOKEN"], "exclude": ["AWS_*"]}}}"#,
        )
        .expect("config");
        assert_eq!(
            kept(&config, &["NPM_TOKEN", "AWS_REGION", "PATH", "CI_TOKEN"]),
            ["NPM_TOKEN", "PATH"]
        );
    }

    fn paths() -> Paths {
        Paths {
            config_file: PathBuf::from("/home/u/.config/tunacode.json"),
            sessions_dir: PathBuf::from("/home/u/.local/share/tunacode/sessions"),
            log_dir: PathBuf::from("/home/u/.local/state/tunacode"),
            models_cache: PathBuf::from("/home/u/.local/share/tunacode/models.json"),
            mcp_approvals: PathBuf::from("/home/u/.local/share/tunacode/mcp_approvals.json"),
        }
    }

    #[test]
    fn protected_names_are_covered_in_every_folder_from_the_repository_root_down() {
        let dir = tempfile::tempdir().expect("dir");
        let repo = dir.path().canonicalize().expect("real");
        std::fs::create_dir_all(repo.join(".git")).expect("git");
        std::fs::create_dir_all(repo.join("a/b")).expect("cwd");
        let protected = protected_paths(&paths(), &repo.join("a/b"));
        for root in [repo.join("a/b"), repo.join("a"), repo.clone()] {
            assert!(protected.roots().contains(&root), "{}", root.display());
        }
        assert!(
            !protected
                .roots()
                .contains(&dir.path().parent().expect("up").to_path_buf())
        );
    }

    #[test]
    fn the_agent_files_are_secret_and_protected_and_deny_read_extends_the_list() {
        let config: UserConfig = serde_json::from_str(
            r#"{"permissions": {"deny_read": ["/srv/keys", "certs"]}, "settings": {"sandbox": {"hide_env_files": true}}}"#,
        )
        .expect("config");
        let policy = resolve_exec(&paths(), &config, None, Path::new("/w")).expect("resolves");
        let secrets = &policy.sandbox.secrets;
        for path in [
            "/home/u/.config/tunacode.json",
            "/home/u/.local/share/tunacode/x",
            "/srv/keys/k",
            "/w/certs/server.key",
        ] {
            assert!(secrets.reason_for(Path::new(path)).is_some(), "{path}");
        }
        assert!(secrets.hides_env_files());
        assert!(
            secrets
                .reason_for(Path::new("/home/u/.local/state/tunacode/tunacode.log"))
                .is_some()
        );
        let protected = &policy.sandbox.protected;
        assert!(
            protected
                .reason_for(Path::new("/home/u/.config/tunacode/skills/a/SKILL.md"))
                .is_some()
        );
        assert!(
            protected
                .reason_for(Path::new("/w/.git/hooks/pre-commit"))
                .is_some()
        );
    }

    #[test]
    fn the_sandbox_comes_from_the_flag_then_the_config() {
        let cwd = Path::new("/work/project");
        let config: UserConfig = serde_json::from_str(
            r#"{"settings": {"sandbox": {"mode": "read-only", "writable_roots": ["out"], "network": true}}}"#,
        )
        .expect("config");
        let policy = resolve_exec(&paths(), &config, None, cwd).expect("resolves");
        assert_eq!(policy.sandbox.mode, SandboxMode::ReadOnly);
        assert!(policy.sandbox.network);
        assert!(policy.sandbox.writable_roots.contains(&cwd.join("out")));
        assert!(policy.sandbox.writable_roots.contains(&cwd.to_path_buf()));
        let flagged = resolve_exec(&paths(), &config, Some("off"), cwd).expect("resolves");
        assert_eq!(flagged.sandbox.mode, SandboxMode::Off);
        let default = resolve_exec(&paths(), &UserConfig::default(), None, cwd).expect("resolves");
        assert_eq!(default.sandbox.mode, SandboxMode::WorkspaceWrite);
        let short: UserConfig =
            serde_json::from_str(r#"{"settings": {"sandbox": "off"}}"#).expect("config");
        assert_eq!(
            resolve_exec(&paths(), &short, None, cwd)
                .expect("ok")
                .sandbox
                .mode,
            SandboxMode::Off
        );
        let bad = resolve_exec(&paths(), &UserConfig::default(), Some("nope"), cwd);
        assert!(
            bad.expect_err("unknown")
                .to_string()
                .contains("--sandbox: unknown sandbox mode")
        );
    }
}
