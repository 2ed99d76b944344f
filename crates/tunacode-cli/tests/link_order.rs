//! The release link's list of hot functions (`link/*.order`, read by `build.rs`) is as
//! `scripts/link-order/generate.sh` writes it: one symbol a line, sorted, each once, and naming the
//! agent's own code (a list written from another binary would name none of it).

use std::path::Path;

fn listed() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("link/x86_64-unknown-linux-gnu.order");
    let text = std::fs::read_to_string(&path).expect("the link order list is there");
    text.lines().map(str::to_owned).collect()
}

#[test]
fn the_list_holds_one_symbol_a_line_sorted_and_each_once() {
    let names = listed();
    assert!(names.len() > 1_000, "{} names", names.len());
    for name in &names {
        assert!(
            !name.is_empty() && !name.contains(char::is_whitespace),
            "{name:?}"
        );
        assert!(
            name.starts_with("_ZN")
                || name.starts_with("_R")
                || name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.$@".contains(c)),
            "not a symbol: {name:?}"
        );
    }
    // Sorted bytewise (`LC_ALL=C sort`) with no repeats: each name once.
    assert!(names.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn the_list_names_the_code_a_headless_run_executes() {
    let names = listed();
    for part in [
        "tunacode_core",
        "tunacode_llm",
        "tunacode_tools",
        "tunacode_store",
    ] {
        let mangled = format!("{}{part}", part.len());
        assert!(
            names.iter().any(|n| n.contains(&mangled)),
            "no function of {part} in the list"
        );
    }
}
