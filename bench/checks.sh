#!/usr/bin/env bash
# What TunaCode adds around the project's checks: a scripted 20-edit request run three ways against
# the fake provider: no checks; one after-edit check and one completion check that do nothing
# (`true`), so what is measured is the agent's own work per check (the launch in the sandbox, the
# baseline, the comparison, the report), not the checks'; and the same with a Python compile check
# over 20 files (a real, fast check). Prints the wall time of each (hyperfine, median) and the cost
# per check run. Usage: bench/checks.sh [BIN FAKE]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-$PWD/target/release/tunacode}
fake=${2:-$PWD/target/release/tunacode-fake-provider}
command -v hyperfine >/dev/null || { apt-get update -qq >/dev/null && apt-get install -y -qq hyperfine >/dev/null; }
work=$(mktemp -d)
trap 'kill ${fake_pid:-} 2>/dev/null || true; rm -rf "$work"' EXIT
python3 - "$work/script.json" <<'PY'
import json, sys
turns = []
for i in range(20):
    args = {"file_path": f"m{i}.py", "content": f"def f{i}():\n    return {i}\n"}
    turns.append({"type": "reply", "text": f"Writing m{i}.py.",
                  "tool_calls": [{"id": f"w{i}", "name": "write_file", "arguments": json.dumps(args)}]})
turns.append({"type": "reply", "text": "Done."})
json.dump(turns, open(sys.argv[1], "w"))
PY
"$fake" --script "$work/script.json" --cycle --no-stdin > "$work/url" &
fake_pid=$!
for _ in $(seq 1 100); do [ -s "$work/url" ] && break; sleep 0.05; done
url=$(head -n1 "$work/url")
config() { # $1: name, $2: settings.checks
  mkdir -p "$work/$1/config"
  printf '{"settings": {"lsp": false, "checks": %s}}' "$2" > "$work/$1/config/tunacode.json"
}
config none '[]'
config noop '[{"name": "noop", "kind": "lint", "command": "true", "when": "after_edit"},
              {"name": "noop tests", "kind": "test", "command": "true"}]'
config python '[{"name": "compile", "kind": "typecheck", "command": "python3 -m compileall -q -f .", "files": ["*.py"], "when": "after_edit"},
                {"name": "noop tests", "kind": "test", "command": "true"}]'
cmd() { # $1: name
  echo "rm -rf $work/$1/ws && mkdir -p $work/$1/ws && XDG_DATA_HOME=$work/$1/data XDG_CONFIG_HOME=$work/$1/config XDG_STATE_HOME=$work/$1/state $bin run --yes --model openai:bench --base-url $url --cwd $work/$1/ws --output json 'write the files' > $work/$1/out"
}
for name in none noop python; do
  bash -c "$(cmd $name)"
  python3 - "$work/$name/out" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
v = r["verification"]
print(f"{sys.argv[2]}: status {r['status']}, {r['iterations']} iterations, verification {v['status']}, {len(v['checks'])} checks")
PY
done
hyperfine --warmup 1 --runs 10 --export-json "$work/h.json" "$(cmd none)" "$(cmd noop)" "$(cmd python)" >/dev/null
python3 - "$work/h.json" <<'PY'
import json, sys
r = [x["median"] for x in json.load(open(sys.argv[1]))["results"]]
# noop: 1 baseline + 20 after-edit runs + 1 completion run = 22 check runs.
print(f"20 edits, no checks: {r[0]*1000:.0f} ms; with two no-op checks: {r[1]*1000:.0f} ms "
      f"(+{(r[1]-r[0])*1000/22:.1f} ms a check run, 22 runs); with a Python compile check: {r[2]*1000:.0f} ms")
PY
