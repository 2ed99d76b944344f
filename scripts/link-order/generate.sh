#!/usr/bin/env bash
# Writes crates/tunacode-cli/link/x86_64-unknown-linux-gnu.order: the functions that headless runs
# execute (a 30-turn task on the Chat wire, the same task resumed from its session, a 10,000-message
# session resumed, and eight calls on each of the Responses, Anthropic and Gemini wires), which the release link places together
# (crates/tunacode-cli/build.rs). Run it again when a run's peak RSS in bench/run.sh grows back
# (the list's names follow the code: new or renamed functions, a new rustc or new crate versions).
# Needs valgrind (installed from Debian's packages when missing). Usage: scripts/link-order/generate.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
order=$root/crates/tunacode-cli/link/x86_64-unknown-linux-gnu.order
command -v valgrind >/dev/null || { apt-get update -qq >/dev/null && apt-get install -y -qq valgrind >/dev/null; }
work=$(realpath "$(mktemp -d)")
trap 'kill ${fake_pid:-} 2>/dev/null || true; rm -rf "$work"' EXIT
# The release build as the quick start makes it (`-p tunacode-cli` alone: built beside another
# package, shared crates may get other features, and every name the list holds changes), with the
# link's map (where each function went).
TUNACODE_LINK_MAP=$work/tunacode.map cargo build --release --locked -q -p tunacode-cli --bins
cargo build --release --locked -q -p tunacode-testkit --bins
cp target/release/tunacode "$work/tunacode"
fake=$root/target/release/tunacode-fake-provider
mkdir -p "$work/ws/src" "$work/config"
for i in $(seq 1 20); do printf 'fn f%s() -> u32 { %s }\n' "$i" "$i" > "$work/ws/src/m$i.rs"; done
script() { # $1: calls; the four tools in turn, then the end
python3 - "$1" <<'PY'
import json, sys
tools = [("read_file", {"file_path": "src/m1.rs"}), ("list_dir", {"directory": "src"}),
         ("grep", {"pattern": "fn f1"}), ("glob", {"pattern": "**/*.rs"})]
turns = [{"type": "reply", "text": f"Step {i + 1}: checking.",
          "tool_calls": [{"id": f"call_{i}", "name": tools[i % 4][0], "arguments": json.dumps(tools[i % 4][1])}],
          "usage": {"prompt_tokens": 1000 + 50 * i, "completion_tokens": 20}} for i in range(int(sys.argv[1]))]
turns.append({"type": "reply", "text": "TUNACODE DONE: checked everything.",
              "usage": {"prompt_tokens": 2500, "completion_tokens": 10}})
print(json.dumps(turns))
PY
}
export XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state
profiled() { # $1: profile name, then tunacode's arguments
  local name=$1; shift
  valgrind -q --tool=callgrind --dump-instr=yes --callgrind-out-file="$work/$name.cg" \
    "$work/tunacode" "$@" --cwd "$work/ws" --output json > "$work/$name.json"
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["status"]=="completed", r' "$work/$name.json"
}
profile_wire() { # $1: wire, $2: calls
  script "$2" > "$work/script.json"
  "$fake" --script "$work/script.json" --format "$1" --cycle --no-stdin > "$work/url" &
  fake_pid=$!
  for _ in $(seq 1 100); do [ -s "$work/url" ] && break; sleep 0.05; done
  printf '{"settings": {"loop_detection": false}, "providers": {"bench": {"base_url": "%s", "wire_api": "%s"}}}' \
    "$(head -n1 "$work/url")" "$1" > "$work/config/tunacode.json"
  profiled "$1" run --model bench:m "check the repo"
  if [ "$1" = openai-chat ]; then
    id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["session_id"])' "$work/$1.json")
    profiled resumed run --model bench:m --session "$id" "check it again"
  fi
  kill $fake_pid; wait $fake_pid 2>/dev/null || true
}
profile_wire openai-chat 29
# A long session (10,000 messages, as bench/big_session.sh) resumed twice: the first run prunes and saves it, the second is what
# every later run of such a session does.
script 0 > "$work/script.json"
"$fake" --script "$work/script.json" --cycle --no-stdin > "$work/url" &
fake_pid=$!
for _ in $(seq 1 100); do [ -s "$work/url" ] && break; sleep 0.05; done
printf '{"providers": {"bench": {"base_url": "%s", "wire_api": "openai-chat"}}}' "$(head -n1 "$work/url")" \
  > "$work/config/tunacode.json"
id=$("$work/tunacode" run --model bench:m --cwd "$work/ws" --output json start \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["session_id"])')
file=$(find "$work/data" -name "$id.json")
python3 bench/grow_session.py "$file" 10000
rm -f "${file%.json}.summary.json"
profiled long-first run --model bench:m --session "$id" first
profiled long-next run --model bench:m --session "$id" next
kill $fake_pid; wait $fake_pid 2>/dev/null || true
for wire in openai-responses anthropic gemini; do profile_wire "$wire" 8; done
python3 scripts/link-order/link_order.py ran "$work/tunacode.map" "$work/tunacode" "$work"/*.cg \
  | LC_ALL=C sort > "$work/order"
# A run executes some 3,000 functions: far fewer means the profiles were not read (the list is kept).
[ "$(wc -l < "$work/order")" -ge 1000 ] || { echo "only $(wc -l < "$work/order") functions found" >&2; exit 1; }
mv "$work/order" "$order"
echo "wrote $order ($(wc -l < "$order") functions)"
# The release build again, linked with the new list.
cargo build --release --locked -q -p tunacode-cli --bins
