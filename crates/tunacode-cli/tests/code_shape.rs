//! The shape of the code: no crate has an import cycle between its files, and no function outside
//! test code is over 60 lines. Reads every crate's `src/` under `crates/`.
//!
//! Run `cargo nextest run -p tunacode-cli --test code_shape --no-capture` for each crate's figures
//! and findings.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod code_shape {
    pub mod imports;
    pub mod long_fns;
    pub mod modules;
}

use std::collections::BTreeSet;
use std::path::Path;

use code_shape::imports::{Edge, cycles, edges};
use code_shape::long_fns::{LongFn, is_test_file, long_fns};
use code_shape::modules::{Sources, Tree, parse, roots};

/// The longest a function outside test code may be, in lines.
const MAX_FN_LINES: usize = 60;

/// What the check finds in one crate.
struct Shape {
    /// Each import cycle's files.
    cycles: Vec<Vec<String>>,
    /// The dependencies inside the cycles, to show what makes them.
    cycle_edges: Vec<Edge>,
    long_fns: Vec<LongFn>,
}

impl Shape {
    fn of(sources: &Sources) -> Shape {
        let mut files = BTreeSet::new();
        let mut all_edges = Vec::new();
        let mut long = Vec::new();
        for root in roots(sources) {
            let tree = Tree::grow(sources, &root);
            all_edges.extend(edges(&tree));
            for file in &tree.files {
                if files.insert(file.path.clone()) && !file.test_only && !is_test_file(&file.path) {
                    long.extend(long_fns(&file.path, &file.ast, MAX_FN_LINES));
                }
            }
        }
        // A file no root reaches is not compiled, but its functions are still code.
        for (path, text) in sources {
            if !files.contains(path) && !is_test_file(path) {
                long.extend(long_fns(path, &parse(path, text), MAX_FN_LINES));
            }
        }
        let cycles = cycles(&files, &all_edges);
        let in_cycle = |f: &String| cycles.iter().any(|c| c.contains(f));
        let cycle_edges = all_edges
            .into_iter()
            .filter(|e| in_cycle(&e.from) && in_cycle(&e.to))
            .collect();
        Shape {
            cycles,
            cycle_edges,
            long_fns: long,
        }
    }

    fn files_in_cycles(&self) -> usize {
        self.cycles.iter().map(Vec::len).sum()
    }

    fn is_clean(&self) -> bool {
        self.cycles.is_empty() && self.long_fns.is_empty()
    }

    /// The findings, one line each, with the crate's name.
    fn report(&self, krate: &str) -> String {
        let mut out = String::new();
        for cycle in &self.cycles {
            out += &format!(
                "{krate}: import cycle of {} files: {}\n",
                cycle.len(),
                cycle.join(", ")
            );
            for e in self
                .cycle_edges
                .iter()
                .filter(|e| cycle.contains(&e.from) && cycle.contains(&e.to))
            {
                out += &format!(
                    "    {} -> {} ({}:{} {})\n",
                    e.from, e.to, e.from, e.line, e.via
                );
            }
        }
        for f in &self.long_fns {
            out += &format!(
                "{krate}: src/{}:{} {} ({} lines)\n",
                f.file, f.line, f.name, f.lines
            );
        }
        out
    }
}

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .parent()
        .unwrap()
}

/// Every `.rs` file under `dir`, keyed by its path relative to `base`; `fuzz/` folders are left out.
fn read_sources(base: &Path, dir: &Path, sources: &mut Sources) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            if entry.file_name() != "fuzz" {
                read_sources(base, &path, sources);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            sources.insert(rel, std::fs::read_to_string(&path).unwrap());
        }
    }
}

/// Each crate's name (its folder's) with its sources.
fn crates() -> Vec<(String, Sources)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(workspace().join("crates"))
        .unwrap()
        .flatten()
    {
        let src = entry.path().join("src");
        if src.is_dir() {
            let mut sources = Sources::new();
            read_sources(&src, &src, &mut sources);
            out.push((entry.file_name().to_string_lossy().into_owned(), sources));
        }
    }
    out.sort();
    out
}

#[test]
fn no_crate_has_a_file_import_cycle_or_a_function_over_60_lines() {
    let crates = crates();
    assert!(
        crates.len() >= 10,
        "every crate read: {:?}",
        crates.iter().map(|c| &c.0).collect::<Vec<_>>()
    );
    let mut failures = String::new();
    for (name, sources) in &crates {
        let shape = Shape::of(sources);
        eprintln!(
            "{name}: {} files in import cycles, {} functions over {MAX_FN_LINES} lines",
            shape.files_in_cycles(),
            shape.long_fns.len(),
        );
        if !shape.is_clean() {
            failures.push_str(&shape.report(name));
        }
    }
    assert!(
        failures.is_empty(),
        "import cycles or functions over {MAX_FN_LINES} lines:\n{failures}"
    );
}

/// Sources from `(path, text)` pairs.
fn planted(files: &[(&str, &str)]) -> Sources {
    files
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect()
}

#[test]
fn a_planted_cycle_is_found() {
    let shape = Shape::of(&planted(&[
        ("lib.rs", "mod a; mod b; mod c; mod d;"),
        ("a.rs", "use crate::b::B; pub struct A;"),
        ("b.rs", "pub struct B; fn f() -> super::c::C { todo!() }"),
        ("c.rs", "pub struct C; fn g() { let _ = crate::a::A; }"),
        ("d.rs", "use crate::a::A;"),
    ]));
    assert_eq!(shape.cycles, vec![vec!["a.rs", "b.rs", "c.rs"]]);
    assert_eq!(shape.files_in_cycles(), 3);
}

#[test]
fn an_item_re_exported_by_a_mod_rs_is_a_dependency_on_it() {
    let shape = Shape::of(&planted(&[
        ("lib.rs", "mod x;"),
        ("x/mod.rs", "mod y; pub use y::Y; pub struct Z;"),
        ("x/y.rs", "use super::Z; pub struct Y;"),
    ]));
    assert_eq!(shape.cycles, vec![vec!["x/mod.rs", "x/y.rs"]]);
}

#[test]
fn mod_declarations_visibilities_and_test_modules_are_not_dependencies() {
    let shape = Shape::of(&planted(&[
        ("lib.rs", "mod a; pub struct Root; pub(crate) fn f() {}"),
        (
            "a.rs",
            "use crate::Root; pub(crate) struct A; #[cfg(test)] #[path = \"a_tests.rs\"] mod tests;",
        ),
        (
            "a_tests.rs",
            "use super::*; fn t() { let _ = crate::Root; }",
        ),
    ]));
    assert!(shape.cycles.is_empty(), "{:?}", shape.cycles);
}

#[test]
fn a_macro_or_an_imported_module_makes_a_dependency() {
    let shape = Shape::of(&planted(&[
        ("lib.rs", "mod a; mod b; mod c;"),
        ("a.rs", "fn f() { assert!(matches!(x, crate::b::B)); }"),
        ("b.rs", "use crate::c; fn g() { c::h(); } pub struct B;"),
        ("c.rs", "pub fn h() { super::a::f(); }"),
    ]));
    assert_eq!(shape.cycles, vec![vec!["a.rs", "b.rs", "c.rs"]]);
}

/// A function of `lines` lines in all.
fn fn_of(name: &str, lines: usize) -> String {
    let body: String = (0..lines - 2)
        .map(|i| format!("    let _x{i} = {i};\n"))
        .collect();
    format!("fn {name}() {{\n{body}}}\n")
}

#[test]
fn a_planted_61_line_function_is_found_and_a_60_line_one_is_not() {
    let lib = format!(
        "{}{}struct T;\nimpl T {{\n{}}}\n#[cfg(test)]\nmod tests {{\n{}}}\n#[test]\n{}trait Tr {{\n{}}}\n",
        fn_of("long", 61),
        fn_of("fits", 60),
        fn_of("method", 62),
        fn_of("in_tests", 70),
        fn_of("a_test", 70),
        fn_of("provided", 63),
    );
    let shape = Shape::of(&planted(&[
        ("lib.rs", &lib),
        ("x_tests.rs", &fn_of("unreached_test", 80)),
    ]));
    let found: Vec<(&str, usize, usize)> = shape
        .long_fns
        .iter()
        .map(|f| (f.name.as_str(), f.line, f.lines))
        .collect();
    assert_eq!(
        found,
        vec![
            ("long", 1, 61),
            ("T::method", 124, 62),
            ("Tr::provided", 332, 63)
        ]
    );
    assert_eq!(
        shape.report("k").lines().next(),
        Some("k: src/lib.rs:1 long (61 lines)")
    );
}
