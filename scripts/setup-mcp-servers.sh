#!/usr/bin/env bash
# Installs the reference MCP servers the end-to-end tests run, from the npm registry:
# @modelcontextprotocol/server-everything and @modelcontextprotocol/server-filesystem, exactly as
# scripts/mcp-servers/package-lock.json pins them (`npm ci`, integrity-checked). Cached outside the clone
# (default ~/.cache/tunacode-test, or $TUNACODE_TEST_CACHE) under a digest of the lockfile, so they are
# installed once per machine and again only when the lockfile changes. Needs node and npm (installed
# from Debian's packages when missing).
# Prints the directory of their executables as a shell assignment: TUNACODE_MCP_SERVERS=…
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${TUNACODE_TEST_CACHE:-$HOME/.cache/tunacode-test}
digest=$(sha256sum "$here/mcp-servers/package-lock.json" | cut -c1-16)
dir=$cache/mcp-servers-$digest
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
cp "$here/mcp-servers/package.json" "$here/mcp-servers/package-lock.json" "$dir/"
echo "setup-mcp-servers: installing the reference MCP servers from npm (npm ci)" >&2
(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
echo "TUNACODE_MCP_SERVERS=$bin"
