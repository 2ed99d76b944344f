use super::*;

fn paths(dir: &Path) -> Paths {
    Paths {
        config_file: dir.join("tunacode.json"),
        sessions_dir: dir.join("sessions"),
        log_dir: dir.join("log"),
        models_cache: dir.join("models.json"),
        mcp_approvals: dir.join("mcp_approvals.json"),
    }
}

fn config(json: serde_json::Value) -> UserConfig {
    serde_json::from_value(json).unwrap()
}

fn flags(model: &str, dir: &Path) -> SettingsFlags {
    SettingsFlags {
        model: Some(model.into()),
        cwd: Some(dir.to_path_buf()),
        ..SettingsFlags::default()
    }
}

#[test]
fn flags_win_over_config_and_config_over_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(serde_json::json!({
        "default_model": "mybox:m",
        "env": {"MYBOX_BASE_URL": "http://127.0.0.1:9/v1"},
        "settings": {"max_iterations": 7, "tool_ignore": ["bash"]}
    }));
    let p = paths(dir.path());
    let from_config = RuntimeSettings::resolve_with_config(
        &p,
        &cfg,
        &SettingsFlags {
            cwd: Some(dir.path().into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(from_config.model.options.model, "mybox:m");
    assert_eq!(from_config.model.options.max_iterations, 7);
    assert_eq!(from_config.model.provider.base_url, "http://127.0.0.1:9/v1");
    assert_eq!(from_config.tool_ignore, vec!["bash".to_string()]);
    assert_eq!(
        from_config.model.provider.config_file.as_deref(),
        Some(p.config_file.as_path())
    );

    let mut f = flags("mybox:other", dir.path());
    f.max_iterations = Some(3);
    f.base_url = Some("http://127.0.0.1:10/v1".into());
    let from_flags = RuntimeSettings::resolve_with_config(&p, &cfg, &f).unwrap();
    assert_eq!(from_flags.model.options.model, "mybox:other");
    assert_eq!(from_flags.model.options.max_iterations, 3);
    assert_eq!(from_flags.model.provider.base_url, "http://127.0.0.1:10/v1");
}

#[test]
fn typed_errors_name_what_to_change() {
    let dir = tempfile::tempdir().unwrap();
    let p = paths(dir.path());
    let cfg = UserConfig::default();
    let resolve =
        |model: &str| RuntimeSettings::resolve_with_config(&p, &cfg, &flags(model, dir.path()));

    match resolve("google:gemini-2.5-pro") {
        Err(SettingsError::MissingKey {
            provider,
            var,
            config_file,
        }) => {
            assert_eq!(
                (provider.as_str(), var.as_str()),
                ("google", "GEMINI_API_KEY")
            );
            assert_eq!(config_file, p.config_file);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        resolve("nowhere:m"),
        Err(SettingsError::UnknownProvider { provider, .. }) if provider == "nowhere"
    ));
    assert!(matches!(
        resolve("gpt-4.1"),
        Err(SettingsError::UnknownModel { .. })
    ));
    let mut f = flags("openai:m", dir.path());
    f.base_url = Some("localhost:8080".into());
    let err = RuntimeSettings::resolve_with_config(&p, &cfg, &f).unwrap_err();
    assert!(matches!(err, SettingsError::BadBaseUrl { .. }), "{err}");
    f.base_url = Some("ftp://host/v1".into());
    assert!(matches!(
        RuntimeSettings::resolve_with_config(&p, &cfg, &f),
        Err(SettingsError::BadBaseUrl { .. })
    ));
    let none = RuntimeSettings::resolve_with_config(
        &p,
        &cfg,
        &SettingsFlags {
            cwd: Some(dir.path().into()),
            ..Default::default()
        },
    );
    assert!(matches!(none, Err(SettingsError::NoModel { .. })));
}

#[test]
fn another_model_drops_the_start_up_base_url_but_keeps_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let p = paths(dir.path());
    std::fs::write(
        &p.config_file,
        r#"{"env": {"OTHER_BASE_URL": "http://127.0.0.1:7/v1"}}"#,
    )
    .unwrap();
    let mut f = flags("mybox:m", dir.path());
    f.base_url = Some("http://127.0.0.1:9/v1".into());
    f.max_iterations = Some(2);
    let settings = RuntimeSettings::resolve(&p, &f).unwrap();
    let same = settings.for_model("mybox:m").unwrap();
    assert_eq!(same.provider.base_url, "http://127.0.0.1:9/v1");
    let other = settings.for_model("other:x").unwrap();
    assert_eq!(other.provider.base_url, "http://127.0.0.1:7/v1");
    assert_eq!(other.options.max_iterations, 2);
    assert!(matches!(
        settings.for_model("google:g"),
        Err(SettingsError::MissingKey { .. })
    ));
}
