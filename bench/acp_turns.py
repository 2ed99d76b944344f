#!/usr/bin/env python3
"""The editor protocol's cost: the 30-turn scripted task of section 2 driven through `tunacode acp`
(initialize, session/new, one session/prompt, end_turn, stdin closed) against the same task through
`tunacode run`, each a fresh process timed from spawn to exit, plus the first-update latency (prompt sent
to the first agent_message_chunk) and the time to open a session.

usage: acp_turns.py TUNACODE FAKE_URL WORKSPACE [RUNS]"""
import json
import statistics
import subprocess
import sys
import time


def acp_once(binary, url, cwd):
    start = time.perf_counter()
    proc = subprocess.Popen(
        [binary, "acp", "--model", "openai:bench", "--base-url", url],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(message):
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()

    def wait_for(pred):
        for line in proc.stdout:
            message = json.loads(line)
            if pred(message):
                return message
        raise SystemExit("tunacode acp closed its output early")

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"protocolVersion": 1, "clientCapabilities": {}}})
    wait_for(lambda m: m.get("id") == 1)
    opening = time.perf_counter()
    send({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": cwd, "mcpServers": []}})
    session = wait_for(lambda m: m.get("id") == 2)["result"]["sessionId"]
    opened = time.perf_counter() - opening
    asked = time.perf_counter()
    send({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
          "params": {"sessionId": session, "prompt": [{"type": "text", "text": "check the repo"}]}})
    wait_for(lambda m: m.get("params", {}).get("update", {}).get("sessionUpdate") == "agent_message_chunk")
    first = time.perf_counter() - asked
    done = wait_for(lambda m: m.get("id") == 3)
    assert done["result"]["stopReason"] == "end_turn", done
    proc.stdin.close()
    proc.wait()
    return time.perf_counter() - start, opened, first


def run_once(binary, url, cwd):
    start = time.perf_counter()
    subprocess.run([binary, "run", "--model", "openai:bench", "--base-url", url, "--cwd", cwd,
                    "--output", "json", "check the repo"], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    binary, url, cwd = sys.argv[1:4]
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    acp_once(binary, url, cwd)
    run_once(binary, url, cwd)
    acp = [acp_once(binary, url, cwd) for _ in range(runs)]
    run = [run_once(binary, url, cwd) for _ in range(runs)]
    ms = lambda xs: f"{statistics.median(xs) * 1000:.1f} ms"
    print(f"30-turn task, median of {runs}: acp {ms([a[0] for a in acp])}, run {ms(run)}")
    print(f"acp: session/new {ms([a[1] for a in acp])}, prompt to first chunk {ms([a[2] for a in acp])}")


main()
