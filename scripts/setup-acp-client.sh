#!/usr/bin/env bash
# Installs the reference Agent Client Protocol library the end-to-end tests drive `tunacode acp` with,
# from the npm registry: @agentclientprotocol/sdk, exactly as scripts/acp-client/package-lock.json pins
# it, cached outside the clone (scripts/npm-ci-cached.sh).
# Prints two shell assignments, for `eval "$(scripts/setup-acp-client.sh)"`:
#   TUNACODE_ACP_CLIENT=…/scripts/acp-client/drive.mjs   (the driver, run with node)
#   TUNACODE_ACP_SDK=…/node_modules                      (where drive.mjs loads the library from)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/npm-ci-cached.sh"
npm_ci_cached acp-client "$here/acp-client"
printf 'TUNACODE_ACP_CLIENT=%q\n' "$here/acp-client/drive.mjs"
printf 'TUNACODE_ACP_SDK=%q\n' "$NPM_CACHED_DIR/node_modules"
