//! The crate graph in `docs/architecture.md` is the one the Cargo files declare: a crate that gains or
//! loses an internal dependency fails here until the document says so.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::Path;

type Graph = BTreeMap<String, Vec<String>>;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .parent()
        .unwrap()
}

/// The `tunacode-*` entries of each crate's `[dependencies]` table.
fn declared() -> Graph {
    let mut graph = Graph::new();
    for entry in std::fs::read_dir(root().join("crates")).unwrap().flatten() {
        let Ok(manifest) = std::fs::read_to_string(entry.path().join("Cargo.toml")) else {
            continue;
        };
        let name = entry.file_name().to_string_lossy().into_owned();
        let mut in_deps = false;
        let mut deps = Vec::new();
        for line in manifest.lines().map(str::trim) {
            if line.starts_with('[') {
                in_deps = line == "[dependencies]";
            } else if in_deps && line.starts_with("tunacode-") {
                let dep = line.split(['.', ' ', '=']).next().unwrap();
                deps.push(dep.to_string());
            }
        }
        deps.sort();
        graph.insert(name, deps);
    }
    graph
}

/// The list under "Internal dependencies" in the architecture document.
fn documented() -> Graph {
    let doc = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    let mut graph = Graph::new();
    for line in doc.lines() {
        let Some(rest) = line.strip_prefix("- `tunacode-") else {
            continue;
        };
        let Some((name, deps)) = rest.split_once("`: ") else {
            continue;
        };
        let mut deps: Vec<String> = deps
            .split(", ")
            .map(|d| d.trim_matches('`').to_string())
            .filter(|d| d.starts_with("tunacode-"))
            .collect();
        deps.sort();
        graph.insert(format!("tunacode-{name}"), deps);
    }
    graph
}

#[test]
fn the_documented_crate_graph_is_the_declared_one() {
    let declared = declared();
    assert!(declared.len() >= 10, "every crate read: {declared:?}");
    assert_eq!(
        documented(),
        declared,
        "docs/architecture.md's internal dependencies differ from the Cargo files"
    );
}
