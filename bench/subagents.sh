#!/usr/bin/env bash
# What starting a sub-agent costs TunaCode (not the model): a run of N `task` calls (each a sub-agent
# answering at once: 2N+1 model calls) against a run of 2N+1 plain model calls (read-only tools),
# wall and CPU time of the `tunacode` process, per sub-agent. Readers run in the workspace; writers
# (`general`) in a git worktree of their own, made and removed each time. Usage:
# bench/subagents.sh [BIN FAKE [N]]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-$PWD/target/release/tunacode}
fake=${2:-$PWD/target/release/tunacode-fake-provider}
n=${3:-40}
[ -x /usr/bin/time ] || { apt-get update -qq >/dev/null && apt-get install -y -qq time >/dev/null; }
work=$(mktemp -d)
trap 'kill ${fake_pid:-} 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/ws/src"
for i in $(seq 1 20); do printf 'fn f%s() -> u32 { %s }\n' "$i" "$i" > "$work/ws/src/m$i.rs"; done
git -C "$work/ws" init -q && git -C "$work/ws" add -A
git -C "$work/ws" -c user.name=b -c user.email=b@b -c commit.gpgsign=false commit -qm start
script() { # $1: plain | explore | general
python3 - "$1" "$n" <<'PY'
import json, sys
kind, n = sys.argv[1], int(sys.argv[2])
turns = []
for i in range(n):
    if kind == "plain":
        turns.append({"type": "reply", "tool_calls": [{"id": f"p{i}", "name": "list_dir", "arguments": json.dumps({"directory": "src"})}]})
        turns.append({"type": "reply", "tool_calls": [{"id": f"q{i}", "name": "list_dir", "arguments": json.dumps({"directory": "src"})}]})
    else:
        args = {"description": f"job {i}", "prompt": "Say done.", "subagent_type": kind}
        turns.append({"type": "reply", "tool_calls": [{"id": f"t{i}", "name": "task", "arguments": json.dumps(args)}]})
        turns.append({"type": "reply", "text": "done"})
turns.append({"type": "reply", "text": "All done."})
print(json.dumps(turns))
PY
}
measure() { # $1: kind; prints "wall cpu"
  script "$1" > "$work/script.json"
  "$fake" --script "$work/script.json" --no-stdin > "$work/url" &
  fake_pid=$!
  for _ in $(seq 1 100); do [ -s "$work/url" ] && break; sleep 0.05; done
  local url; url=$(head -n1 "$work/url")
  mkdir -p "$work/config" && echo '{"settings": {"loop_detection": false}}' > "$work/config/tunacode.json"
  XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state \
    /usr/bin/time -f "%e %U %S" -o "$work/time" "$bin" run --yes --model openai:bench --base-url "$url" \
    --cwd "$work/ws" --max-iterations $(( 2 * n + 5 )) --output json "delegate" > "$work/out"
  kill $fake_pid; wait $fake_pid 2>/dev/null || true
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["status"]=="answered", r' "$work/out"
  awk '{print $1, $2 + $3}' "$work/time"
}
best() { # $1: kind; the fastest of three runs by wall time
  for _ in 1 2 3; do measure "$1"; done | sort -n | head -n1
}
read -r plain_wall plain_cpu < <(best plain)
read -r explore_wall explore_cpu < <(best explore)
read -r general_wall general_cpu < <(best general)
python3 - "$n" "$plain_wall" "$plain_cpu" "$explore_wall" "$explore_cpu" "$general_wall" "$general_cpu" <<'PY'
import sys
n = int(sys.argv[1]); pw, pc, ew, ec, gw, gc = map(float, sys.argv[2:])
print(f"{2 * n + 1} plain model calls: {pw * 1000:.0f} ms wall, {pc * 1000:.0f} ms CPU")
print(f"{n} explore sub-agents: {ew * 1000:.0f} ms wall, {ec * 1000:.0f} ms CPU; "
      f"per sub-agent: +{(ew - pw) / n * 1000:.1f} ms wall, +{(ec - pc) / n * 1000:.1f} ms CPU")
print(f"{n} writer sub-agents (a worktree each): {gw * 1000:.0f} ms wall, {gc * 1000:.0f} ms CPU; "
      f"per sub-agent: +{(gw - pw) / n * 1000:.1f} ms wall, +{(gc - pc) / n * 1000:.1f} ms CPU")
PY
