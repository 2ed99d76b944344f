//! Links the release `tunacode` binary with the code a headless run executes placed together.
//!
//! A run executes ~3.5 MB of the binary's 22 MB of code, spread over nearly all of it. The kernel
//! maps a binary's code 64 KB around each page a program touches, so a run kept ~15 MB of it
//! resident. `link/<target>.order` lists those functions (written by
//! `scripts/link-order/generate.sh` from callgrind profiles of headless runs); the linker puts them
//! first, and a run's resident code falls to ~4 MB. A name the build does not have (code changed
//! since the list was written) is skipped: the list only moves code, it never changes what the
//! binary does.
//!
//! Only lld reads the list (GNU ld refuses the option), so the link is pointed at the toolchain's
//! own rust-lld (`gcc-ld/ld.lld` in the sysroot, what rustc itself uses on this target since Rust
//! 1.90). Without it, or when the build's flags pick a linker, the binary is linked as before.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The only target the list is written for.
const ORDERED_TARGET: &str = "x86_64-unknown-linux-gnu";

fn main() {
    println!("cargo:rerun-if-env-changed=TUNACODE_LINK_ORDER");
    println!("cargo:rerun-if-env-changed=TUNACODE_LINK_MAP");
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    // The folder (it always exists): a missing file named here would rerun this on every build.
    println!(
        "cargo:rerun-if-changed={}",
        manifest_dir.join("link").display()
    );
    let target = env::var("TARGET").unwrap_or_default();
    let order = manifest_dir.join("link").join(format!("{target}.order"));
    if env::var("PROFILE").as_deref() != Ok("release")
        || target != ORDERED_TARGET
        || flags_pick_a_linker()
        || env::var("TUNACODE_LINK_ORDER").as_deref() == Ok("off")
        || !order.is_file()
    {
        return;
    }
    let Some(gcc_ld) = toolchain_lld_dir() else {
        return;
    };
    link_arg(&format!("-B{}", gcc_ld.display()));
    link_arg("-fuse-ld=lld");
    linker_arg(&format!("--symbol-ordering-file={}", order.display()));
    linker_arg("--no-warn-symbol-ordering");
    // The link's map (where each function went), which `scripts/link-order/generate.sh` reads.
    if let Some(map) = env::var_os("TUNACODE_LINK_MAP").filter(|m| !m.is_empty()) {
        linker_arg(&format!("-Map={}", Path::new(&map).display()));
    }
}

/// Whether the build's own flags choose the linker (then it is left alone).
fn flags_pick_a_linker() -> bool {
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    [
        "fuse-ld=",
        "linker-features",
        "linker-flavor",
        "link-self-contained",
        "linker=",
    ]
    .iter()
    .any(|flag| flags.contains(flag))
}

/// The sysroot's folder holding rust-lld as `ld.lld`, when the toolchain has it.
fn toolchain_lld_dir() -> Option<PathBuf> {
    let rustc = env::var_os("RUSTC")?;
    let output = Command::new(rustc)
        .arg("--print")
        .arg("sysroot")
        .output()
        .ok()?;
    let sysroot = String::from_utf8(output.stdout).ok()?;
    let host = env::var("HOST").ok()?;
    let dir = Path::new(sysroot.trim()).join(format!("lib/rustlib/{host}/bin/gcc-ld"));
    dir.join("ld.lld").is_file().then_some(dir)
}

/// An argument for the compiler driver that links.
fn link_arg(arg: &str) {
    println!("cargo:rustc-link-arg-bin=tunacode={arg}");
}

/// An argument for the linker itself, passed whole (`-Xlinker`: a path may hold a comma).
fn linker_arg(arg: &str) {
    link_arg("-Xlinker");
    link_arg(arg);
}
