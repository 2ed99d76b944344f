//! Writing the user's config file after first-run setup: the chosen model, provider keys and a custom
//! provider are merged into the file as raw JSON, so every other key (and the order of keys) survives.
//! A file that cannot be read is an error and is never touched; the write is atomic and mode 0600.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::config::UserConfig;
use crate::error::StoreError;

/// What first-run setup (or a later key prompt) adds to the config file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SetupUpdate {
    /// `default_model` to set (`provider:model`); `None` leaves it as it is.
    pub default_model: Option<String>,
    /// Entries of `env` to set or replace, e.g. `("OPENAI_API_KEY", key)`.
    pub env: Vec<(String, String)>,
    /// A `providers.<name>` entry to set (replacing any entry of that name), e.g.
    /// `("local", {"base_url": "http://localhost:11434/v1", "wire_api": "openai-chat"})`.
    pub provider: Option<(String, Value)>,
}

/// Merges `update` into the config file at `path` and writes it back atomically (temporary file in the
/// same directory, fsync, rename) with mode 0600, creating the directory if needed. A missing or empty
/// file starts from `{}`; a malformed one is an error naming the file, line and column, and is left
/// exactly as it was.
pub fn save_setup(path: &Path, update: &SetupUpdate) -> Result<(), StoreError> {
    let target = write_target(path);
    let mut root = read_raw(&target)?;
    merge(&target, &mut root, update)?;
    write_atomic(&target, &Value::Object(root))
}

/// Sets `settings.<key>` to `value` in the config file at `path`, as [`save_setup`] writes (every other
/// key kept, atomic, mode 0600; a malformed file is an error and left as it was).
pub fn save_setting(path: &Path, key: &str, value: Value) -> Result<(), StoreError> {
    let target = write_target(path);
    let mut root = read_raw(&target)?;
    object_at(&target, &mut root, "settings")?.insert(key.to_string(), value);
    write_atomic(&target, &Value::Object(root))
}

/// Sets `models."<model>".<field>` to `value` in the config file at `path`, as [`save_setting`]
/// writes.
pub fn save_model_setting(
    path: &Path,
    model: &str,
    field: &str,
    value: Value,
) -> Result<(), StoreError> {
    let target = write_target(path);
    let mut root = read_raw(&target)?;
    let models = object_at(&target, &mut root, "models")?;
    object_at(&target, models, model)?.insert(field.to_string(), value);
    write_atomic(&target, &Value::Object(root))
}

/// The config as it would read after [`save_setup`] with `update`, without writing anything (so a key
/// can be checked with exactly the settings the saved config will give).
pub fn config_with_setup(path: &Path, update: &SetupUpdate) -> Result<UserConfig, StoreError> {
    let target = write_target(path);
    let mut root = read_raw(&target)?;
    merge(&target, &mut root, update)?;
    serde_json::from_value(Value::Object(root)).map_err(|e| StoreError::malformed(&target, &e))
}

/// The file to replace: the target of `path` when it is a symlink (so the link is kept), else `path`.
pub(crate) fn write_target(path: &Path) -> PathBuf {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if is_link && let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    path.to_path_buf()
}

/// The file as a JSON object (`{}` when missing or blank). It must also read as a [`UserConfig`], so a
/// file TunaCode could not load is never rewritten.
pub(crate) fn read_raw(path: &Path) -> Result<Map<String, Value>, StoreError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Map::new()),
        Err(e) => return Err(StoreError::io(path, e)),
    };
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    let value: Value = serde_json::from_str(&text).map_err(|e| StoreError::malformed(path, &e))?;
    let Value::Object(root) = value else {
        return Err(shape_error(path, "the config file must be a JSON object"));
    };
    serde_json::from_str::<UserConfig>(&text).map_err(|e| StoreError::malformed(path, &e))?;
    Ok(root)
}

pub(crate) fn shape_error(path: &Path, message: &str) -> StoreError {
    StoreError::Malformed {
        path: path.to_path_buf(),
        line: 1,
        column: 1,
        message: message.to_string(),
    }
}

/// The object under `key`, created when absent; an error when it holds something else.
pub(crate) fn object_at<'a>(
    path: &Path,
    root: &'a mut Map<String, Value>,
    key: &str,
) -> Result<&'a mut Map<String, Value>, StoreError> {
    let slot = root
        .entry(key.to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    if slot.is_null() {
        *slot = Value::Object(Map::new());
    }
    match slot {
        Value::Object(map) => Ok(map),
        _ => Err(shape_error(path, &format!("`{key}` must be a JSON object"))),
    }
}

fn merge(
    path: &Path,
    root: &mut Map<String, Value>,
    update: &SetupUpdate,
) -> Result<(), StoreError> {
    if let Some(model) = &update.default_model {
        root.insert("default_model".into(), Value::String(model.clone()));
    }
    if !update.env.is_empty() {
        let env = object_at(path, root, "env")?;
        for (name, value) in &update.env {
            env.insert(name.clone(), Value::String(value.clone()));
        }
    }
    if let Some((name, entry)) = &update.provider {
        let providers = object_at(path, root, "providers")?;
        providers.insert(name.clone(), entry.clone());
    }
    Ok(())
}

pub(crate) fn write_atomic(path: &Path, value: &Value) -> Result<(), StoreError> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir).map_err(|e| StoreError::io(&dir, e))?;
    let mut text = serde_json::to_vec_pretty(value).map_err(|e| {
        StoreError::io(
            path,
            std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        )
    })?;
    text.push(b'\n');
    crate::private::write_file_atomically(path, &text).map_err(|(at, e)| StoreError::io(at, e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::os::unix::fs::PermissionsExt;

    fn update() -> SetupUpdate {
        SetupUpdate {
            default_model: Some("local:qwen3".into()),
            env: vec![("LOCAL_API_KEY".into(), "sk-new".into())],
            provider: Some((
                "local".into(),
                json!({"base_url": "http://localhost:11434/v1", "wire_api": "openai-chat",
                       "key_env": "LOCAL_API_KEY"}),
            )),
        }
    }

    fn keys(v: &Value) -> Vec<String> {
        v.as_object().unwrap().keys().cloned().collect()
    }

    #[test]
    fn keeps_unknown_keys_and_their_order_and_replaces_existing_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tunacode.json");
        std::fs::write(
            &path,
            r#"{"zeta": 1, "env": {"B_KEY": "b", "LOCAL_API_KEY": "old", "A_KEY": "a"},
                "mcpServers": {"x": {"command": "y"}}, "default_model": "openai:gpt-4.1",
                "providers": {"local": {"base_url": "http://old/v1", "extra": true}, "gpu": {"base_url": "http://gpu/v1"}},
                "settings": {"max_iterations": 7, "custom_setting": [1, 2]}, "alpha": null}"#,
        )
        .unwrap();
        save_setup(&path, &update()).unwrap();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            keys(&v),
            [
                "zeta",
                "env",
                "mcpServers",
                "default_model",
                "providers",
                "settings",
                "alpha"
            ]
        );
        assert_eq!(keys(&v["env"]), ["B_KEY", "LOCAL_API_KEY", "A_KEY"]);
        assert_eq!(v["env"]["LOCAL_API_KEY"], "sk-new");
        assert_eq!(v["default_model"], "local:qwen3");
        assert_eq!(keys(&v["providers"]), ["local", "gpu"]);
        assert_eq!(v["providers"]["local"], update().provider.unwrap().1);
        assert_eq!(v["mcpServers"], json!({"x": {"command": "y"}}));
        assert_eq!(v["settings"]["custom_setting"], json!([1, 2]));
        assert_eq!(v["alpha"], Value::Null);

        let cfg = UserConfig::load(&path).unwrap();
        assert_eq!(cfg.default_model.as_deref(), Some("local:qwen3"));
        assert_eq!(cfg.settings.max_iterations, 7);
        assert_eq!(cfg.env["LOCAL_API_KEY"], "sk-new");
        let local = &cfg.providers["local"];
        assert_eq!(local.base_url.as_deref(), Some("http://localhost:11434/v1"));
        assert_eq!(local.wire_api.as_deref(), Some("openai-chat"));
        assert_eq!(local.key_env.as_deref(), Some("LOCAL_API_KEY"));
        assert!(cfg.mcp_servers.contains_key("x"));
    }

    #[test]
    fn config_with_setup_reads_like_the_saved_file_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tunacode.json");
        std::fs::write(&path, r#"{"env": {"OTHER": "x"}, "default_model": "a:b"}"#).unwrap();
        let update = SetupUpdate {
            default_model: Some("openai:gpt-5".into()),
            env: vec![("OPENAI_API_KEY".into(), "sk-1".into())],
            provider: None,
        };
        let config = config_with_setup(&path, &update).unwrap();
        assert_eq!(config.default_model.as_deref(), Some("openai:gpt-5"));
        assert_eq!(
            config.env.get("OPENAI_API_KEY").map(String::as_str),
            Some("sk-1")
        );
        assert_eq!(config.env.get("OTHER").map(String::as_str), Some("x"));
        let before = std::fs::read_to_string(&path).unwrap();
        assert!(!before.contains("sk-1"));
        save_setup(&path, &update).unwrap();
        assert_eq!(UserConfig::load(&path).unwrap(), config);
    }

    #[test]
    fn creates_missing_file_and_directory_with_mode_0600() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new").join("dir").join("tunacode.json");
        save_setup(&path, &update()).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(keys(&v), ["default_model", "env", "providers"]);
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, ["tunacode.json"]);
        assert!(UserConfig::load(&path).is_ok());

        // An existing world-readable file becomes 0600; a blank file starts from `{}`.
        let blank = dir.path().join("blank.json");
        std::fs::write(&blank, "  \n").unwrap();
        std::fs::set_permissions(&blank, std::fs::Permissions::from_mode(0o644)).unwrap();
        save_setup(
            &blank,
            &SetupUpdate {
                default_model: Some("openai:gpt-4.1".into()),
                ..Default::default()
            },
        )
        .unwrap();
        let mode = std::fs::metadata(&blank).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(
            serde_json::from_str::<Value>(&std::fs::read_to_string(&blank).unwrap()).unwrap(),
            json!({"default_model": "openai:gpt-4.1"})
        );
    }

    #[test]
    fn malformed_file_is_an_error_with_position_and_is_never_touched() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            "{\n  \"env\": {\"A\": \"b\",}\n}",
            "{\n  \"default_model\": \"x\",\n  \"settings\": {\"max_iterations\": \"ten\"}\n}",
        ];
        for (i, text) in cases.iter().enumerate() {
            let path = dir.path().join(format!("bad{i}.json"));
            std::fs::write(&path, text).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
            let err = save_setup(&path, &update()).unwrap_err();
            match &err {
                StoreError::Malformed {
                    path: p,
                    line,
                    column,
                    ..
                } => {
                    assert_eq!(p, &path);
                    assert!(*line >= 2 && *column > 1, "{err}");
                }
                other => panic!("{other:?}"),
            }
            assert!(
                err.to_string().starts_with(&path.display().to_string()),
                "{err}"
            );
            assert_eq!(std::fs::read_to_string(&path).unwrap(), *text);
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o644);
        }
        for text in ["[1, 2]", r#"{"env": "nope"}"#, r#"{"providers": [1]}"#] {
            let path = dir.path().join("shape.json");
            std::fs::write(&path, text).unwrap();
            assert!(matches!(
                save_setup(&path, &update()),
                Err(StoreError::Malformed { .. })
            ));
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        }
    }

    #[test]
    fn a_symlinked_config_stays_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        std::fs::write(&real, r#"{"keep": 1}"#).unwrap();
        let link = dir.path().join("tunacode.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        save_setup(&link, &update()).unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&real).unwrap()).unwrap();
        assert_eq!(v["keep"], 1);
        assert_eq!(v["default_model"], "local:qwen3");
    }
}
