#!/usr/bin/env bash
# Benchmarks (not part of the test suite). Prints a summary and writes details to bench/results/.
#   1. start-up time of `tunacode --version`
#   2. wall time, CPU time and peak RSS of a 30-turn scripted `tunacode run` against the fake provider,
#      and against its floors (its request bodies replayed; and with each turn's work as a command)
#   3. the grep tool against ripgrep on a large tree (default: the cargo registry sources)
#   4. TUI rendering, @-completion and key-to-frame latency in process
#   5. TUI in tmux: start-up, idle CPU and memory, key-to-screen latency while an answer streams,
#      and opening a session of ~50,000 transcript lines (bench/tui_big_session.py)
#   6. sessions: a journal write per message, saving and loading 10,000 messages, listing 500 sessions
#   7. turn cost against history length on each of the four wires: a 1,000-call run against ten
#      100-call runs (CPU), and what building one late request costs
#   8. MCP: start-up of `run` and the TUI with three configured servers against none
#   9. the sandbox: what Landlock and seccomp add to one command
#  10. the editor protocol: section 2's task through `tunacode acp` against `tunacode run`
#  11. checks: what TunaCode adds to a request around the project's checks (bench/checks.sh)
#  12. sub-agents: what starting one costs TunaCode, a reader and a writer in its worktree
#      (bench/subagents.sh)
#  13. sessions at scale: `run --session` on 10 and on 10,000 messages, time and peak RSS
#      (bench/big_session.sh)
# Tools it needs (hyperfine, GNU time, ripgrep) are installed from Debian's packages when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$root/bench/results
mkdir -p "$out"

need() { command -v "$1" >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq "$2" >/dev/null; }; }
need hyperfine hyperfine
[ -x /usr/bin/time ] || { apt-get update -qq >/dev/null && apt-get install -y -qq time >/dev/null; }
need rg ripgrep

# Built alone, as the quick start builds it: the release link's list of hot functions
# (crates/tunacode-cli/link/) names them as that build does.
rm -f "$out/tunacode.map"
TUNACODE_LINK_MAP=$out/tunacode.map cargo build --release --locked -q -p tunacode-cli --bins
cargo build --release --locked -q -p tunacode-testkit --bins
# The map is written only where the list is used (a release build on x86_64 Linux with rust-lld).
if [ -s "$out/tunacode.map" ]; then
  python3 scripts/link-order/link_order.py found "$out/tunacode.map" crates/tunacode-cli/link/x86_64-unknown-linux-gnu.order
else echo "link order: not used by this build"; fi
cargo build --release --locked -q -p tunacode-tools --example grep_tool
bin=$root/target/release/tunacode
fake=$root/target/release/tunacode-fake-provider

echo "== 1. start-up: tunacode --version"
hyperfine -N --warmup 10 --runs 200 "$bin --version" --export-json "$out/startup.json" | grep -E "Time|Range"

echo "== 2. 30-turn scripted run against the fake provider"
work=$(mktemp -d)
trap 'kill $fake_pid 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/ws/src"
for i in $(seq 1 20); do printf 'fn f%s() -> u32 { %s }\n' "$i" "$i" > "$work/ws/src/m$i.rs"; done
python3 - "$work/script.json" <<'PY'
import json, sys
turns = []
tools = [("read_file", {"file_path": "src/m1.rs"}), ("list_dir", {"directory": "src"}),
         ("grep", {"pattern": "fn f1"}), ("glob", {"pattern": "**/*.rs"})]
for i in range(29):
    name, args = tools[i % len(tools)]
    turns.append({"type": "reply", "text": f"Step {i + 1}: checking.",
                  "tool_calls": [{"id": f"call_{i}", "name": name, "arguments": json.dumps(args)}],
                  "usage": {"prompt_tokens": 1000 + 50 * i, "completion_tokens": 20}})
turns.append({"type": "reply", "text": "TUNACODE DONE: checked everything.",
              "usage": {"prompt_tokens": 2500, "completion_tokens": 10}})
json.dump(turns, open(sys.argv[1], "w"))
PY
"$fake" --script "$work/script.json" --cycle --no-stdin > "$work/url" &
fake_pid=$!
for _ in $(seq 1 100); do [ -s "$work/url" ] && break; sleep 0.05; done
url=$(head -n1 "$work/url")
export XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state
# The script cycles over the same four calls (a loop by design): loop detection is off here.
mkdir -p "$work/config" && echo '{"settings": {"loop_detection": false}}' > "$work/config/tunacode.json"
run_cmd="$bin run --model openai:bench --base-url $url --cwd $work/ws --output json 'check the repo'"
status=$(eval "$run_cmd" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["status"], r["iterations"])')
echo "check run: $status (expected: completed 30)"
# The floors: the same 30 request bodies (recorded from one run) replayed against the same fake on
# one connection, each answer read to its end (crates/tunacode-llm/examples/replay_floor.rs); and
# that with each turn's work done by a command, as the issue measured it (cat, ls, grep, find for
# read_file, list_dir, grep, glob).
cargo build --release --locked -q -p tunacode-llm --example replay_floor
"$fake" --script "$work/script.json" --no-stdin --print-requests "$work/run30.jsonl" > "$work/url30" &
rec_pid=$!
for _ in $(seq 1 100); do [ -s "$work/url30" ] && break; sleep 0.05; done
"$bin" run --model openai:bench --base-url "$(head -n1 "$work/url30")" --cwd "$work/ws" --output json 'check the repo' > /dev/null
kill $rec_pid; wait $rec_pid 2>/dev/null || true
printf 'cat src/m1.rs\nls src\ngrep -rn f1 .\nfind . -name *.rs\n' > "$work/commands.txt"
floor_cmd="$root/target/release/examples/replay_floor $work/run30.jsonl ${url%/v1}"
hyperfine -N --warmup 3 --runs 30 -n run "$run_cmd" -n floor "$floor_cmd" \
  -n "floor with commands" "$floor_cmd $work/commands.txt $work/ws" --export-json "$out/run30.json" \
  | grep -E "Time|Range"
python3 - "$out/run30.json" <<'PY'
import json, sys
results = {r["command"]: sorted(r["times"]) for r in json.load(open(sys.argv[1]))["results"]}
run, floor, commands = (results[k][len(results[k]) // 2] * 1000 for k in ("run", "floor", "floor with commands"))
print(f"medians: run {run:.1f} ms; HTTP floor {floor:.1f} ms (ratio {run / floor:.2f}); "
      f"with the 29 commands {commands:.1f} ms (ratio {run / commands:.2f}; goal <= 1.4)")
PY
/usr/bin/time -v bash -c "$run_cmd >/dev/null" 2> "$out/run30.time"
grep -E "User time|System time|Maximum resident|Elapsed" "$out/run30.time"
# The first request's size (every built-in tool offered; goal <= 8,600 bytes on the Chat wire).
echo '[{"type": "reply", "text": "TUNACODE DONE: ok"}]' > "$work/one.json"
"$fake" --script "$work/one.json" --no-stdin --print-requests "$work/first.jsonl" > "$work/url1" &
one_pid=$!
for _ in $(seq 1 100); do [ -s "$work/url1" ] && break; sleep 0.05; done
"$bin" run --model openai:bench --base-url "$(head -n1 "$work/url1")" --cwd "$work/ws" --output json hi > /dev/null
kill $one_pid; wait $one_pid 2>/dev/null || true
python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).readline()); b=json.dumps(r["body"], separators=(",", ":"), ensure_ascii=False); t=json.dumps(r["body"]["tools"], separators=(",", ":"), ensure_ascii=False); print(f"first request: {len(b)} bytes ({len(t)} of them tools; goal <= 8600)")' "$work/first.jsonl"

echo "== 3. grep tool vs ripgrep"
tree=${BENCH_TREE:-$HOME/.cargo/registry/src}
pattern=${BENCH_PATTERN:-'unsafe impl.*Send for'}
files=$(rg --files "$tree" | wc -l)
matches=$(rg -c "$pattern" "$tree" | awk -F: '{s+=$NF} END {print s+0}')
echo "tree: $tree ($files files), pattern: $pattern ($matches matches)"
hyperfine -N --warmup 2 --runs 10 \
  -n "tunacode grep tool" "$root/target/release/examples/grep_tool '$pattern' $tree" \
  -n "ripgrep" "rg --no-config '$pattern' $tree" \
  --export-json "$out/grep.json" | grep -E "Time|Range|±|faster"

echo "== 4. TUI: rendering, @-completion and key-to-frame in process"
cargo build --release --locked -q -p tunacode-tui --example tui_bench
"$root/target/release/examples/tui_bench"

echo "== 5. TUI in a real terminal (tmux): start-up, idle CPU, key-to-screen while streaming, a 50,000-line session"
need tmux tmux
tuiwork=$(mktemp -d)
python3 "$root/bench/tui_terminal.py" "$bin" "$fake" "$tuiwork"
rm -rf "$tuiwork"
tuiwork=$(mktemp -d)
python3 "$root/bench/tui_big_session.py" "$bin" "$fake" "$tuiwork"
rm -rf "$tuiwork"

echo "== 6. sessions: journal writes, a 10,000-message session, listing 500 sessions"
cargo build --release --locked -q -p tunacode-store --example store_bench
"$root/target/release/examples/store_bench"

echo "== 7. turn cost against history length, per wire (Chat, Responses, Anthropic, Gemini)"
"$root/bench/turns.sh" "$bin" "$fake"
cargo build --release --locked -q -p tunacode-llm --example body_bench
"$root/target/release/examples/body_bench"

echo "== 8. MCP: start-up of run and the TUI with three configured servers (one slow, one broken) vs none"
mcpwork=$(mktemp -d)
python3 "$root/bench/mcp_startup.py" "$bin" "$fake" "$root/target/release/tunacode-fake-mcp" "$mcpwork"
rm -rf "$mcpwork"

echo "== 9. the sandbox's cost per command (run_command true, unconfined and in workspace-write)"
cargo build --release --locked -q -p tunacode-tools --example sandbox_bench
"$root/target/release/examples/sandbox_bench"

echo "== 10. the editor protocol: the 30-turn task through tunacode acp vs tunacode run"
python3 "$root/bench/acp_turns.py" "$bin" "$url" "$work/ws"

echo "== 11. checks: a 20-edit request with after-edit and completion checks against none"
"$root/bench/checks.sh" "$bin" "$fake"

echo "== 12. sub-agents: what starting one costs (a reader; a writer in its own worktree)"
"$root/bench/subagents.sh" "$bin" "$fake"

echo "== 13. sessions at scale: run --session on 10 and 10,000 messages"
"$root/bench/big_session.sh" "$bin" "$fake"
