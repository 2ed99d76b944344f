#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it (.ci/run calls this). Needs only cargo; installs
# cargo-nextest from crates.io when the machine lacks it.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo nextest --version >/dev/null 2>&1; then
  echo "cargo-nextest not found; installing it from crates.io" >&2
  cargo install cargo-nextest --locked
fi

if ! command -v tmux >/dev/null 2>&1; then
  echo "tmux not found (the TUI end-to-end tests drive the UI under it); installing it" >&2
  apt-get update -qq >/dev/null && apt-get install -y -qq tmux >/dev/null
fi

if ! command -v curl >/dev/null 2>&1; then
  echo "curl not found (the sandbox tests fetch through the egress proxy with it); installing it" >&2
  apt-get update -qq >/dev/null && apt-get install -y -qq curl >/dev/null
fi

echo "== format and lints"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked --features tunacode-cli/real-server-tests -- -D warnings

echo "== a real OpenAI-compatible server for the end-to-end test (cached after the first run)"
eval "$(scripts/setup-llama-server.sh)"
export LLAMA_SERVER LLAMA_MODEL

echo "== the reference MCP servers from npm for the MCP end-to-end tests (cached after the first run)"
eval "$(scripts/setup-mcp-servers.sh)"
export TUNACODE_MCP_SERVERS

echo "== the reference ACP client library from npm for the editor-protocol end-to-end test (cached)"
eval "$(scripts/setup-acp-client.sh)"
export TUNACODE_ACP_CLIENT TUNACODE_ACP_SDK

echo "== a real language server from npm for the diagnostics end-to-end test (cached)"
eval "$(scripts/setup-language-servers.sh)"
export TUNACODE_LSP_SERVERS

echo "== tests"
cargo nextest run --workspace --locked --profile ci --features tunacode-cli/real-server-tests
