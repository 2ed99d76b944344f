//! [`SettingsError`]: why settings could not be resolved, each naming what to change. Apart from the
//! resolution itself, so the parts it resolves (permissions, the sandbox) can report without
//! depending on it.

use std::path::PathBuf;

use tunacode_store::StoreError;

/// Why settings could not be resolved. Each names what to change.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// The config file could not be read or is malformed (with its line and column).
    #[error(transparent)]
    Config(#[from] StoreError),
    /// No model was given and the config has no default.
    #[error(
        "no model chosen: pass --model provider:model (e.g. openai:gpt-4.1) or set \"default_model\" in {}",
        config_file.display()
    )]
    NoModel {
        /// The config file to set it in.
        config_file: PathBuf,
    },
    /// The model text is not `provider:model`.
    #[error("unknown model `{text}`: {reason}")]
    UnknownModel {
        /// What was given.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The provider is neither known nor declared in the config, and no base URL was given.
    #[error(
        "unknown provider `{provider}`: pass --base-url (or set TUNACODE_BASE_URL) for an \
         OpenAI-compatible server, declare it under \"providers\" in {}, or use one of: {known}",
        config_file.display()
    )]
    UnknownProvider {
        /// The provider named.
        provider: String,
        /// The providers TunaCode knows.
        known: String,
        /// The config file to declare it in.
        config_file: PathBuf,
    },
    /// The provider needs a key and none was found.
    #[error(
        "no API key for {provider}: set {var} in the environment or under \"env\" in {}",
        config_file.display()
    )]
    MissingKey {
        /// The provider.
        provider: String,
        /// The variable to set.
        var: String,
        /// The config file that may hold it.
        config_file: PathBuf,
    },
    /// The base URL is not an http(s) URL.
    #[error("malformed base URL `{url}`: {reason}")]
    BadBaseUrl {
        /// What was given.
        url: String,
        /// What is wrong.
        reason: String,
    },
    /// Some other setting has a value that cannot be used.
    #[error("{0}")]
    Invalid(String),
    /// The working directory cannot be used.
    #[error("working directory {} is not usable: {source}", dir.display())]
    Cwd {
        /// The directory.
        dir: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}
