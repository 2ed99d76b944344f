//! The stream-json schema is public: scripts parse it. It is generated from the types, committed as
//! `docs/stream-json.schema.json`, and pinned per version here. A change to any line type fails this
//! test until the schema version is bumped, the file regenerated (`tunacode schema >
//! docs/stream-json.schema.json`), the new version's hash added below and a line added to
//! `CHANGELOG.md` — so no release changes what scripts read without saying so.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use sha2::{Digest, Sha256};
use tunacode_protocol::stream::{SCHEMA_VERSION, json_schema};

/// Every released schema version and the SHA-256 of its schema file. Never edit a released entry:
/// bump the version and add one.
const RELEASED: &[(u32, &str)] = &[
    (
        1,
        "3d0a913f3d4bf5739fc013e96f6bf7a160cb7d2c3db6a3ae3dccc0c3d93ba3e0",
    ),
    (
        2,
        "984e274a597b81b6f8f4751ef483474a70ea9f5f4377619bb308b1d4fd537759",
    ),
    (
        3,
        "582d1ea1caed2287ad804931d1e72d0b1d152e621ae4be3b31abe6788ea6e21b",
    ),
    (
        4,
        "c33fbae24b592c10fef52dc7bf9fd040dad19d628ddd07c7fedbeab6ffc15926",
    ),
    (
        5,
        "cd80c96f1ed9b0e7e25c9349a54108f50f12bdcaccb4cbf56ab5961bfef756ef",
    ),
    (
        6,
        "3d30f80e3f64bb77f05138c3298ea59aed7a4640bb9fb612eb7aa430559a8c6e",
    ),
];

fn repo_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(name)
}

fn generated() -> String {
    serde_json::to_string_pretty(&json_schema()).unwrap() + "\n"
}

#[test]
fn the_committed_schema_is_the_generated_one() {
    let committed = std::fs::read_to_string(repo_file("docs/stream-json.schema.json")).unwrap();
    assert!(
        committed == generated(),
        "the stream-json types changed: bump SCHEMA_VERSION, run `tunacode schema > \
         docs/stream-json.schema.json`, pin the new hash in RELEASED and say what changed in \
         CHANGELOG.md"
    );
}

#[test]
fn the_schema_of_this_version_is_the_released_one_and_the_changelog_names_it() {
    let hash = format!("{:x}", Sha256::digest(generated().as_bytes()));
    let released = RELEASED
        .iter()
        .find(|(version, _)| *version == SCHEMA_VERSION)
        .map(|(_, hash)| *hash);
    assert_eq!(
        released,
        Some(hash.as_str()),
        "schema version {SCHEMA_VERSION} is pinned to another schema: a changed schema needs a \
         new version (and its hash here)"
    );
    let changelog = std::fs::read_to_string(repo_file("CHANGELOG.md")).unwrap();
    for (version, _) in RELEASED {
        let line = format!("- stream-json schema v{version}:");
        assert!(
            changelog.lines().any(|l| l.starts_with(&line)),
            "CHANGELOG.md has no `{line}` line"
        );
    }
}

#[test]
fn every_line_carries_the_version_the_schema_names() {
    let schema = json_schema();
    assert_eq!(schema["schema_version"], SCHEMA_VERSION);
    for part in ["output", "result"] {
        let required = schema[part]["required"].as_array().unwrap();
        assert!(required.iter().any(|r| r == "schema_version"), "{part}");
    }
    let input = schema["input"].to_string();
    for line in [
        "user_message",
        "approval",
        "interrupt",
        "compact",
        "permissions",
    ] {
        assert!(input.contains(&format!("\"const\":\"{line}\"")), "{line}");
    }
}
