//! Which words of a command name secret files: the file tools' predicate
//! ([`crate::is_secret_file_name`]: `.env`, `.envrc`, `.env.local`, …, not `.env.example`) on the
//! word's last component, and globs that may expand to such a name.

use globset::GlobBuilder;

/// Whether `path` (a path or a bare file name; a trailing `/` is ignored) names a secret file.
pub fn names_secret_file(path: &str) -> bool {
    let name = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    crate::secrets::is_secret_file_name(name)
}

/// Whether the glob `pattern` (as bash expands it: a leading dot only by a leading dot) may expand
/// to a secret file's name.
pub(super) fn glob_may_name_secret(pattern: &str) -> bool {
    let name = pattern
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("");
    if !name.starts_with('.') {
        return false;
    }
    GlobBuilder::new(name)
        .literal_separator(true)
        .build()
        .is_ok_and(|g| {
            let g = g.compile_matcher();
            [".env", ".env.local", ".env.production"]
                .iter()
                .any(|n| g.is_match(n))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_files_are_secret_and_their_templates_are_not() {
        for secret in [
            ".env",
            ".env.local",
            ".env.production",
            "app/.env",
            "/srv/x/.env.dev",
            ".env/",
            ".envrc",
        ] {
            assert!(names_secret_file(secret), "{secret}");
        }
        for plain in [
            ".env.example",
            "config/.env.sample",
            ".env.template",
            "env",
            "dotenv.rs",
            ".env/bin/activate",
        ] {
            assert!(!names_secret_file(plain), "{plain}");
        }
        assert!(glob_may_name_secret(".e*"));
        assert!(glob_may_name_secret("src/.env*"));
        assert!(glob_may_name_secret(".*"));
        assert!(!glob_may_name_secret("*"));
        assert!(!glob_may_name_secret("*.rs"));
    }
}
