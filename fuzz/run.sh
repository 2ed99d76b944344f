#!/usr/bin/env bash
# Fuzzes every parser of untrusted input: the four wire formats' stream decoders (SSE framing,
# decoder, response assembly), the text tool-call parser, the session loader (this version's, the
# seeds' and the Python TunaCode 0.2.x format), journal recovery and the config loader.
#   fuzz/run.sh [SECONDS]   each target for SECONDS (default 600), two at a time on this 2-core machine
# Needs the nightly toolchain; installs cargo-fuzz from crates.io when missing. The seed inputs are in
# fuzz/seeds/<target> (committed); the growing corpus in fuzz/corpus/ and crashes in
# fuzz/artifacts/ are not. A crash found here becomes a regular unit test beside the parser.
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-600}
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
cargo +nightly fuzz build -O
mkdir -p logs corpus
failed=0
run_one() {
  local t=$1
  mkdir -p "corpus/$t"
  if cargo +nightly fuzz run -O "$t" "corpus/$t" "seeds/$t" -- -max_total_time="$secs" \
      -rss_limit_mb=2048 -print_final_stats=1 > "logs/$t.log" 2>&1; then
    echo "$t: no crash in ${secs}s, $(grep -o 'number_of_executed_units: *[0-9]*' "logs/$t.log" | grep -o '[0-9]*$') runs"
  else
    echo "$t: FAILED, see fuzz/logs/$t.log and fuzz/artifacts/$t/"
    return 1
  fi
}
pids=()
for t in $(cargo +nightly fuzz list); do
  run_one "$t" & pids+=($!)
  if [ ${#pids[@]} -ge 2 ]; then
    wait -n || failed=1
    pids=($(jobs -pr))
  fi
done
for p in $(jobs -pr); do wait "$p" || failed=1; done
exit $failed
