#!/usr/bin/env bash
# Installs the reference MCP servers the end-to-end tests run, from the npm registry, pinned:
# @modelcontextprotocol/server-everything and @modelcontextprotocol/server-filesystem. Cached outside
# the clone (default ~/.cache/tunacode-test, or $TUNACODE_TEST_CACHE), so they are installed once per
# machine. Needs node and npm (installed from Debian's packages when missing).
# Prints the directory of their executables as a shell assignment: TUNACODE_MCP_SERVERS=…
set -euo pipefail

cache=${TUNACODE_TEST_CACHE:-$HOME/.cache/tunacode-test}
version=2026.8.31
dir=$cache/mcp-servers-$version
bin=$dir/node_modules/.bin

if [ -x "$bin/mcp-server-everything" ] && [ -x "$bin/mcp-server-filesystem" ]; then
  echo "TUNACODE_MCP_SERVERS=$bin"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "setup-mcp-servers: installing nodejs and npm from Debian's packages" >&2
  apt-get update -qq >/dev/null && apt-get install -y -qq nodejs npm >/dev/null
fi
mkdir -p "$dir"
echo "setup-mcp-servers: installing the reference MCP servers $version from npm" >&2
(cd "$dir" && echo '{"private": true}' > package.json &&
  npm install --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/server-everything@$version" \
    "@modelcontextprotocol/server-filesystem@$version" >&2)
echo "TUNACODE_MCP_SERVERS=$bin"
