//! Git configuration a command line sets: `git -c key=value`, `git --config-env=key=VAR`, `git
//! clone -c key=value` and `git config key value`. Deny by default: a key is dangerous unless it is
//! on a short list of keys that cannot make git run anything. Git has dozens of keys that name a
//! program (`core.pager`, `core.fsmonitor`, `gpg.ssh.defaultKeyCommand`, `interactive.diffFilter`,
//! `core.alternateRefsCommand`, `*.textconv`, `alias.*` with `!`, …) or a place to load code from
//! (`core.hooksPath`, `init.templateDir`, `include.path`), and each release may add one: a list of
//! dangerous keys always misses some, a list of harmless ones only asks too often.

use super::invocation::Arg;

/// Keys (section and name in lower case) that neither name a program nor a place git loads code
/// or configuration from, whatever their value: identity, line endings, formatting, defaults.
/// (`pull.rebase=interactive` opens the user's own sequence editor, not one the line names.)
const HARMLESS: &[&str] = &[
    "user.name",
    "user.email",
    "author.name",
    "author.email",
    "committer.name",
    "committer.email",
    "core.quotepath",
    "core.autocrlf",
    "core.safecrlf",
    "core.eol",
    "core.filemode",
    "core.ignorecase",
    "core.abbrev",
    "core.longpaths",
    "core.excludesfile",
    "user.signingkey",
    "http.postbuffer",
    "init.defaultbranch",
    "log.date",
    "log.decorate",
    "log.abbrevcommit",
    "log.follow",
    "log.showroot",
    "diff.noprefix",
    "diff.mnemonicprefix",
    "diff.renames",
    "diff.algorithm",
    "diff.colormoved",
    "diff.context",
    "diff.indentheuristic",
    "diff.statgraphwidth",
    "status.short",
    "status.branch",
    "status.showuntrackedfiles",
    "status.relativepaths",
    "merge.conflictstyle",
    "push.default",
    "pull.rebase",
    "pull.ff",
    "merge.ff",
    "fetch.prune",
    "rebase.autostash",
    "rebase.autosquash",
    "rerere.enabled",
    "push.autosetupremote",
    "commit.verbose",
    "commit.cleanup",
    "gc.auto",
    "maintenance.auto",
    "column.ui",
    "grep.linenumber",
    "grep.patterntype",
    "grep.extendedregexp",
];

/// Sections whose every key only chooses colours or silences advice.
const HARMLESS_SECTIONS: &[&str] = &["color.", "advice."];

/// Keys harmless only when false: true makes git run the signing program (`gpg.program`,
/// `gpg.ssh.program`, `gpg.ssh.defaultKeyCommand`), which other configuration may name.
const FALSE_ONLY: &[&str] = &[
    "commit.gpgsign",
    "tag.gpgsign",
    "push.gpgsign",
    "log.showsignature",
];

/// The value a setting gives its key.
#[derive(Debug, Clone, Copy)]
pub(super) enum Value<'a> {
    /// This text.
    Text(&'a str),
    /// None at all (`git -c key` sets it to true).
    Absent,
    /// One only known when git runs (an environment variable, an unknown word).
    Unknown,
}

/// Whether `value` is one of git's spellings of false.
fn is_false(value: Value) -> bool {
    matches!(value, Value::Text(v) if matches!(v.to_ascii_lowercase().as_str(), "false" | "no" | "off" | "0" | ""))
}

/// Whether `value` is one of git's spellings of a boolean.
fn is_boolean(value: Value) -> bool {
    is_false(value)
        || matches!(value, Value::Absent)
        || matches!(value, Value::Text(v) if matches!(v.to_ascii_lowercase().as_str(), "true" | "yes" | "on" | "1"))
}

/// Whether setting `key` (as written) to `value` cannot make git run anything.
fn harmless(key: &str, value: Value) -> bool {
    // Section and name are case-insensitive; of the keys allowed only `pager.<command>` and
    // `color.<slot>.<name>` have a subsection, which git compares case-sensitively, so lowering it
    // too can only let a key through that git would read as another harmless one.
    let key = key.to_lowercase();
    if HARMLESS.contains(&key.as_str()) || HARMLESS_SECTIONS.iter().any(|s| key.starts_with(s)) {
        return true;
    }
    if FALSE_ONLY.contains(&key.as_str()) {
        return is_false(value);
    }
    // `pager.<command>` is a boolean or the pager to run for that command.
    if let Some(command) = key.strip_prefix("pager.") {
        return !command.contains('.') && is_boolean(value);
    }
    // Git runs no pager at all for an empty `core.pager` or for `cat` (`pager.c`); any other value
    // is a program, `less` included (it runs `$LESSOPEN`).
    key == "core.pager" && matches!(value, Value::Text("" | "cat"))
}

/// Why setting `key` to `value` is dangerous (`shown`: how the line sets it), if it is.
pub(super) fn setting_danger(key: &str, value: Value, shown: &str) -> Option<String> {
    if harmless(key, value) {
        return None;
    }
    Some(if key.to_lowercase().starts_with("alias.") {
        format!("`{shown}` defines a git command on the fly (it may push, rewrite or run anything)")
    } else {
        format!(
            "`{shown}` sets git configuration that may make git run a program of the command \
             line's choosing (only keys known to be harmless may be set on a command line)"
        )
    })
}

/// Why a `git -c key=value` (or `git clone -c key=value`) is dangerous, if it is.
pub(super) fn option_danger(setting: &Arg) -> Option<String> {
    if setting.unknown {
        return Some("`git -c` sets configuration only known when the line runs".into());
    }
    let (key, value) = match setting.text.split_once('=') {
        Some((key, value)) => (key, Value::Text(value)),
        None => (setting.text.as_str(), Value::Absent),
    };
    setting_danger(key, value, &format!("git -c {key}=…"))
}

/// Why a `git --config-env key=VARIABLE` is dangerous (the value is the variable's), if it is.
pub(super) fn env_option_danger(setting: &Arg) -> Option<String> {
    let key = setting.text.rsplit_once('=').map_or("", |(key, _)| key);
    if setting.unknown || key.is_empty() {
        return Some("`git --config-env` sets configuration only known when the line runs".into());
    }
    setting_danger(key, Value::Unknown, &format!("git --config-env {key}=…"))
}

/// `git config` options that take the next word as their value.
const CONFIG_VALUED: &[&str] = &[
    "-f",
    "--file",
    "--blob",
    "--type",
    "--default",
    "--comment",
    "--value",
    "--url",
];

/// `git config` forms that read, list or remove, but store nothing.
const CONFIG_READS: &[&str] = &[
    "--get",
    "--get-all",
    "--get-regexp",
    "--get-urlmatch",
    "--get-color",
    "--get-colorbool",
    "-l",
    "--list",
    "--unset",
    "--unset-all",
    "--remove-section",
    "-e",
    "--edit",
    "get",
    "list",
    "unset",
    "remove-section",
    "edit",
];

/// Why `git config` with `opts` is dangerous, if it is: it stores a key that is not harmless (the
/// next `git` would use it: `git config alias.fp 'push --force'; git fp`), or renames a section
/// (which may turn it into `alias`).
pub(super) fn write_danger(opts: &[Arg]) -> Option<String> {
    let mut operands = Vec::new();
    let mut i = 0;
    while let Some(opt) = opts.get(i) {
        let text = opt.text.as_str();
        i += 1;
        if opt.unknown || !text.starts_with('-') || text == "-" {
            operands.push(opt);
        } else if CONFIG_VALUED.contains(&text) {
            i += 1;
        } else if text.len() > 4 && "--rename-section".starts_with(text) {
            return Some("`git config --rename-section` may turn a section into aliases".into());
        } else if CONFIG_READS.contains(&text) {
            return None;
        }
    }
    let operands = match operands.split_first() {
        Some((first, rest)) if first.text == "set" && !first.unknown => rest,
        Some((first, _)) if first.text == "rename-section" && !first.unknown => {
            return Some("`git config rename-section` may turn a section into aliases".into());
        }
        Some((first, _)) if CONFIG_READS.contains(&first.text.as_str()) && !first.unknown => {
            return None;
        }
        _ => operands.as_slice(),
    };
    let [key, value, ..] = operands else {
        return None; // `git config key` prints it
    };
    if key.unknown {
        return Some("`git config` sets a key only known when the line runs".into());
    }
    let value = if value.unknown {
        Value::Unknown
    } else {
        Value::Text(&value.text)
    };
    setting_danger(&key.text, value, &format!("git config {} …", key.text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_harmless_keys_pass() {
        for (key, value) in [
            ("user.name", Value::Text("x")),
            ("User.Email", Value::Unknown),
            ("color.diff.meta", Value::Text("red")),
            ("commit.gpgSign", Value::Text("false")),
            ("pager.log", Value::Text("off")),
            ("pager.log", Value::Absent),
            ("core.pager", Value::Text("cat")),
        ] {
            assert!(harmless(key, value), "{key} {value:?}");
        }
        for (key, value) in [
            ("alias.x", Value::Text("status")),
            ("gpg.ssh.defaultKeyCommand", Value::Text("x")),
            ("commit.gpgsign", Value::Absent),
            ("commit.gpgsign", Value::Unknown),
            ("pager.log", Value::Text("sh -c x")),
            ("pager.log.x", Value::Text("true")),
            ("core.pager", Value::Text("less")),
            ("core.pager", Value::Unknown),
            ("user.name.x", Value::Text("x")),
            ("safe.directory", Value::Text("*")),
        ] {
            assert!(!harmless(key, value), "{key} {value:?}");
        }
    }
}
