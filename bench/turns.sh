#!/usr/bin/env bash
# Turn cost against history length: CPU time (user + system) of the `tunacode` process alone for one
# 1,000-call scripted run and for ten 100-call runs (the fake provider's own cost is not counted).
# Goal: the 1,000-call run within 1.5x of the ten 100-call runs. Usage: bench/turns.sh [BIN FAKE]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-$PWD/target/release/tunacode}
fake=${2:-$PWD/target/release/tunacode-fake-provider}
[ -x /usr/bin/time ] || { apt-get update -qq >/dev/null && apt-get install -y -qq time >/dev/null; }
work=$(mktemp -d)
trap 'kill ${fake_pid:-} 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/ws/src"
for i in $(seq 1 20); do printf 'fn f%s() -> u32 { %s }\n' "$i" "$i" > "$work/ws/src/m$i.rs"; done
script() { # $1: calls
python3 - "$1" <<'PY'
import json, sys
n = int(sys.argv[1])
tools = [("read_file", {"file_path": "src/m1.rs"}), ("list_dir", {"directory": "src"}),
         ("grep", {"pattern": "fn f1"}), ("glob", {"pattern": "**/*.rs"})]
turns = []
for i in range(n):
    name, args = tools[i % len(tools)]
    turns.append({"type": "reply", "text": f"Step {i + 1}: checking.",
                  "tool_calls": [{"id": f"call_{i}", "name": name, "arguments": json.dumps(args)}],
                  "usage": {"prompt_tokens": 1000 + 50 * i, "completion_tokens": 20}})
turns.append({"type": "reply", "text": "TUNACODE DONE: checked everything.",
              "usage": {"prompt_tokens": 2500, "completion_tokens": 10}})
print(json.dumps(turns))
PY
}
cpu() { # $1: calls; prints the tunacode process's user+system seconds
  script "$1" > "$work/script.json"
  "$fake" --script "$work/script.json" --cycle --no-stdin > "$work/url" &
  fake_pid=$!
  for _ in $(seq 1 100); do [ -s "$work/url" ] && break; sleep 0.05; done
  local url; url=$(head -n1 "$work/url")
  # The script cycles over the same four calls (a loop by design): loop detection is off here.
  mkdir -p "$work/config" && echo '{"settings": {"loop_detection": false}}' > "$work/config/tunacode.json"
  XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state \
    /usr/bin/time -f "%U %S" -o "$work/time" "$bin" run --model openai:bench --base-url "$url" \
    --cwd "$work/ws" --max-iterations $(( $1 + 5 )) --output json "check the repo" > "$work/out"
  kill $fake_pid; wait $fake_pid 2>/dev/null || true
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["status"]=="completed", r' "$work/out"
  awk '{print $1 + $2}' "$work/time"
}
one=$(cpu 1000)
ten=0
for _ in $(seq 1 10); do ten=$(python3 -c "print($ten + $(cpu 100))"); done
python3 -c "print(f'1,000-call run: {$one:.2f} s CPU; ten 100-call runs: {$ten:.2f} s CPU; ratio {$one/$ten:.2f} (goal <= 1.5)')"
