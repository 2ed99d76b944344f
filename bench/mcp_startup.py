#!/usr/bin/env python3
"""MCP start-up cost: `tunacode run` (one answer) and the TUI's first screen (tmux), each with no MCP
server and with three configured (the in-repo fake server: one ready at once, one that takes 2 s to
start, one that crashes). Servers start in the background, so both should cost the same.
Usage: mcp_startup.py TUNACODE_BIN FAKE_PROVIDER_BIN FAKE_MCP_BIN WORKDIR"""
import json, os, statistics, subprocess, sys, time

from tmuxbench import start_fake

tunacode, fake_bin, mcp_bin, work = (os.path.abspath(a) for a in sys.argv[1:5])
os.makedirs(f"{work}/ws", exist_ok=True)
fake, url = start_fake(fake_bin, work, [{"type": "reply", "text": "TUNACODE DONE: ok"}])
servers = {
    "quick": {"command": mcp_bin},
    "slow": {"command": mcp_bin, "args": ["--delay-ms", "2000"]},
    "broken": {"command": mcp_bin, "args": ["--crash"]},
}

def configure(with_servers):
    os.makedirs(f"{work}/config", exist_ok=True)
    config = {"default_model": "local:bench", "providers": {"local": {"base_url": url}}}
    if with_servers:
        config["mcpServers"] = servers
    with open(f"{work}/config/tunacode.json", "w") as f:
        json.dump(config, f)

env = dict(os.environ, XDG_CONFIG_HOME=f"{work}/config", XDG_DATA_HOME=f"{work}/data",
           XDG_STATE_HOME=f"{work}/state", TERM="xterm-256color")

def run_once():
    t0 = time.perf_counter()
    r = subprocess.run([tunacode, "run", "--output", "json", "--cwd", f"{work}/ws", "hi"],
                       env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    assert json.loads(r.stdout)["status"] == "completed", r.stdout + r.stderr
    return elapsed

sockets = iter(range(10**6))
sock = None
def tmux(*args):
    return subprocess.run(["tmux", "-L", sock, *args], capture_output=True, text=True).stdout

def tui_once():
    # A fresh tmux server each time: a killed one may still be going away.
    global sock
    sock = f"tunamcp{os.getpid()}-{next(sockets)}"
    args = ["new-session", "-d", "-s", "t", "-x", "120", "-y", "40", "-c", f"{work}/ws"]
    for k in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "TERM"):
        args += ["-e", f"{k}={env[k]}"]
    t0 = time.perf_counter()
    tmux(*args, tunacode)
    try:
        end = time.time() + 20
        while "local:bench" not in tmux("capture-pane", "-p", "-t", "t"):
            if time.time() > end:
                raise SystemExit("the TUI did not start:\n" + tmux("capture-pane", "-p", "-t", "t"))
            time.sleep(0.002)
        return time.perf_counter() - t0
    finally:
        tmux("kill-server")

try:
    for label, with_servers in (("no MCP servers", False), ("three MCP servers", True)):
        configure(with_servers)
        runs = [run_once() for _ in range(15)]
        tui = [tui_once() for _ in range(8)]
        print(f"{label}: run median {statistics.median(runs) * 1000:.0f} ms "
              f"(min {min(runs) * 1000:.0f}), TUI first screen median {statistics.median(tui) * 1000:.0f} ms "
              f"(min {min(tui) * 1000:.0f})")
finally:
    fake.kill()
