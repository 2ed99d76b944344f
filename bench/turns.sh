#!/usr/bin/env bash
# Turn cost against history length, on each of the four wire formats: CPU time (user + system) of the
# `tunacode` process alone for one 1,000-call scripted run and for ten 100-call runs (the fake
# provider's own cost is not counted). One scripted fake speaks all four wires; each run names a
# provider whose `wire_api` picks the wire. Goal: the 1,000-call run within 1.3x of the ten 100-call
# runs on every wire; medians of three interleaved rounds (ROUNDS=n to change).
# Usage: bench/turns.sh [BIN FAKE [WIRE...]]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-$PWD/target/release/tunacode}
fake=${2:-$PWD/target/release/tunacode-fake-provider}
shift 2 2>/dev/null || true
wires=("${@:-openai-chat openai-responses anthropic gemini}")
read -r -a wires <<< "${wires[*]}"
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
# The fake answers without checking the requests (the tests check them): checking every growing body
# of a 1,000-call run costs the fake 2.4-4 s of CPU on the two cores the measure shares, and it kept
# every body. CHECKED=1 runs the checking fake.
checks=(--unchecked); [ -z "${CHECKED:-}" ] || checks=()
cpu() { # $1: wire, $2: calls; prints the tunacode process's user+system seconds
  script "$2" > "$work/script.json"
  "$fake" --script "$work/script.json" --format "$1" --cycle --no-stdin "${checks[@]}" > "$work/url" &
  fake_pid=$!
  for _ in $(seq 1 100); do [ -s "$work/url" ] && break; sleep 0.05; done
  local url; url=$(head -n1 "$work/url")
  # The script cycles over the same four calls (a loop by design): loop detection is off here.
  mkdir -p "$work/config"
  printf '{"settings": {"loop_detection": false}, "providers": {"bench": {"base_url": "%s", "wire_api": "%s"}}}' \
    "$url" "$1" > "$work/config/tunacode.json"
  rm -rf "$work/data" "$work/state"
  XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state \
    /usr/bin/time -f "%U %S %M" -o "$work/time" "$bin" run --model bench:m \
    --cwd "$work/ws" --max-iterations $(( $2 + 5 )) --output json "check the repo" > "$work/out"
  kill $fake_pid; wait $fake_pid 2>/dev/null || true
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["status"]=="completed" and r["iterations"]==int(sys.argv[2])+1, r' "$work/out" "$2"
  awk '{print $1 + $2, $3}' "$work/time"
}
# Three rounds per wire, interleaved; the medians are reported (a 2-core machine is noisy).
rounds=${ROUNDS:-3}
for wire in "${wires[@]}"; do
  ones=() tens=() rss=0
  for _ in $(seq 1 "$rounds"); do
    read -r one rss < <(cpu "$wire" 1000)
    ten=0
    for _ in $(seq 1 10); do read -r t _ < <(cpu "$wire" 100); ten=$(python3 -c "print($ten + $t)"); done
    ones+=("$one") tens+=("$ten")
  done
  python3 - "$wire" "$rss" "${ones[*]}" "${tens[*]}" <<'PY'
import statistics, sys
wire, rss = sys.argv[1], int(sys.argv[2])
ones = [float(x) for x in sys.argv[3].split()]
tens = [float(x) for x in sys.argv[4].split()]
one, ten = statistics.median(ones), statistics.median(tens)
print(f"{wire}: 1,000-call run {one:.2f} s CPU (peak RSS {rss / 1024:.1f} MB); ten 100-call runs "
      f"{ten:.2f} s CPU; ratio {one / ten:.2f} (goal <= 1.3; rounds: "
      + ", ".join(f"{a / b:.2f}" for a, b in zip(ones, tens)) + ")")
PY
done
