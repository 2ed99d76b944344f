#!/usr/bin/env bash
# Installs the reference MCP servers the end-to-end tests run, from the npm registry:
# @modelcontextprotocol/server-everything and @modelcontextprotocol/server-filesystem, exactly as
# scripts/mcp-servers/package-lock.json pins them, cached outside the clone (scripts/npm-ci-cached.sh).
# Prints the directory of their executables as a shell assignment: TUNACODE_MCP_SERVERS=…
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/npm-ci-cached.sh"
npm_ci_cached mcp-servers "$here/mcp-servers"
echo "TUNACODE_MCP_SERVERS=$NPM_CACHED_DIR/node_modules/.bin"
