# Sourced by the setup scripts of the npm packages the end-to-end tests run. npm_ci_cached NAME DIR
# installs DIR's package.json exactly as its package-lock.json pins it (`npm ci`, integrity-checked)
# into ${TUNACODE_TEST_CACHE:-~/.cache/tunacode-test}/NAME-<first 16 hex of the lockfile's sha256>,
# once per machine and again only when the lockfile changes (node and npm come from Debian's packages
# when missing), and sets NPM_CACHED_DIR to that folder. Logs go to stderr.
npm_ci_cached() {
  local name=$1 package=$2
  local cache=${TUNACODE_TEST_CACHE:-$HOME/.cache/tunacode-test}
  local digest
  digest=$(sha256sum "$package/package-lock.json" | cut -c1-16)
  NPM_CACHED_DIR=$cache/$name-$digest
  if [ -f "$NPM_CACHED_DIR/node_modules/.package-lock.json" ]; then
    return 0
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "$name: installing nodejs and npm from Debian's packages" >&2
    apt-get update -qq >/dev/null && apt-get install -y -qq nodejs npm >/dev/null
  fi
  mkdir -p "$NPM_CACHED_DIR"
  cp "$package/package.json" "$package/package-lock.json" "$NPM_CACHED_DIR/"
  echo "$name: installing from npm (npm ci)" >&2
  (cd "$NPM_CACHED_DIR" && npm ci --no-audit --no-fund --loglevel=error >&2)
}
