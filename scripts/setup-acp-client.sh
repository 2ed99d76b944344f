#!/usr/bin/env bash
# Installs the reference Agent Client Protocol library the end-to-end tests drive `tunacode acp` with,
# from the npm registry: @agentclientprotocol/sdk, exactly as scripts/acp-client/package-lock.json pins it
# (`npm ci`, integrity-checked). Cached outside the clone (default ~/.cache/tunacode-test, or
# $TUNACODE_TEST_CACHE) under a digest of the lockfile, so it is installed once per machine and again only
# when the lockfile changes. Needs node and npm (installed from Debian's packages when missing).
# Prints two shell assignments, for `eval "$(scripts/setup-acp-client.sh)"`:
#   TUNACODE_ACP_CLIENT=…/scripts/acp-client/drive.mjs   (the driver, run with node)
#   TUNACODE_ACP_SDK=…/node_modules                      (where drive.mjs loads the library from)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${TUNACODE_TEST_CACHE:-$HOME/.cache/tunacode-test}
digest=$(sha256sum "$here/acp-client/package-lock.json" | cut -c1-16)
dir=$cache/acp-client-$digest
modules=$dir/node_modules

print() {
  printf 'TUNACODE_ACP_CLIENT=%q\n' "$here/acp-client/drive.mjs"
  printf 'TUNACODE_ACP_SDK=%q\n' "$modules"
}

if [ -f "$modules/@agentclientprotocol/sdk/package.json" ] && [ -f "$modules/.package-lock.json" ]; then
  print
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "setup-acp-client: installing nodejs and npm from Debian's packages" >&2
  apt-get update -qq >/dev/null && apt-get install -y -qq nodejs npm >/dev/null
fi
mkdir -p "$dir"
cp "$here/acp-client/package.json" "$here/acp-client/package-lock.json" "$dir/"
echo "setup-acp-client: installing @agentclientprotocol/sdk from npm (npm ci)" >&2
(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
print
