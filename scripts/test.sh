#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it (.ci/run calls this). Needs only cargo; installs
# cargo-nextest from crates.io when the machine lacks it.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo nextest --version >/dev/null 2>&1; then
  echo "cargo-nextest not found; installing it from crates.io" >&2
  cargo install cargo-nextest --locked
fi

echo "== format and lints"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== tests"
cargo nextest run --workspace --locked --profile ci
