#!/usr/bin/env bash
# Installs the language server the end-to-end tests run, from the npm registry: pyright (its
# `pyright-langserver --stdio`), exactly as scripts/language-servers/package-lock.json pins it,
# cached outside the clone (scripts/npm-ci-cached.sh).
# Prints the directory of its executables as a shell assignment: TUNACODE_LSP_SERVERS=…
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/npm-ci-cached.sh"
npm_ci_cached language-servers "$here/language-servers"
echo "TUNACODE_LSP_SERVERS=$NPM_CACHED_DIR/node_modules/.bin"
