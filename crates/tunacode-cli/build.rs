//! Links the release `tunacode` binary with the code a headless run executes placed together.
//!
//! A run executes ~3 MB of the binary's 22 MB of code, spread over nearly all of it. The kernel maps
//! a binary's code 64 KB around each page a program touches, so a run kept ~15 MB of it resident.
//! `link/<target>.order` lists those functions (written by `scripts/link-order/generate.sh` from
//! callgrind profiles of runs on each wire); the linker puts them first, and a run's resident code
//! falls to ~4 MB. A name the build does not have (code changed since the list was written) is
//! skipped: the list only moves code, it never changes what the binary does.

use std::env;
use std::path::PathBuf;

/// The only target whose default linker (rust-lld, since Rust 1.90) is known to read the list.
const ORDERED_TARGET: &str = "x86_64-unknown-linux-gnu";

fn main() {
    println!("cargo:rerun-if-env-changed=TUNACODE_LINK_ORDER");
    println!("cargo:rerun-if-env-changed=TUNACODE_LINK_MAP");
    let target = env::var("TARGET").unwrap_or_default();
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let order = manifest_dir.join("link").join(format!("{target}.order"));
    println!("cargo:rerun-if-changed={}", order.display());
    if env::var("PROFILE").as_deref() != Ok("release") || !links_with_lld(&target) {
        return;
    }
    if order.is_file() && env::var("TUNACODE_LINK_ORDER").as_deref() != Ok("off") {
        link_arg(&format!("--symbol-ordering-file={}", order.display()));
        link_arg("--no-warn-symbol-ordering");
    }
    // The link's map (where each function went), which `scripts/link-order/generate.sh` reads.
    if let Ok(map) = env::var("TUNACODE_LINK_MAP") {
        link_arg(&format!("-Map={map}"));
    }
}

/// Whether the binary is linked by lld: the target's default, unless the build's flags pick
/// another linker.
fn links_with_lld(target: &str) -> bool {
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    target == ORDERED_TARGET
        && !flags.contains("fuse-ld=")
        && !flags.contains("linker-features")
        && !flags.contains("linker-flavor")
}

fn link_arg(arg: &str) {
    println!("cargo:rustc-link-arg-bin=tunacode=-Wl,{arg}");
}
