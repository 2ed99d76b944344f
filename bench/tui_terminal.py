#!/usr/bin/env python3
"""TUI measurements in a real terminal (tmux): idle CPU of `tunacode`, key-to-screen latency while
an answer streams, and typing after a 1 MB paste against an empty box and against `cat` (the floor
of tmux itself). Usage: tui_terminal.py TUNACODE_BIN FAKE_PROVIDER_BIN WORKDIR"""
import json, os, statistics, subprocess, sys, time

from tmuxbench import Tmux, start_fake

tunacode, fake_bin, work = sys.argv[1], sys.argv[2], sys.argv[3]
tmux = Tmux(f"tunabench{os.getpid()}")
screen, wait_for, typing = tmux.screen, tmux.wait_for, tmux.typing

def paste_and_type():
    wait_for(lambda s: "ready" in s, timeout=60)
    tmux("send-keys", "-t", "t", "C-u")
    idle = typing(lambda s, t: f"› {t}" in s)
    tmux("send-keys", "-t", "t", "C-u")
    line = "let value = compute(alpha, beta, gamma); // a pasted line of code, about 80\n"
    with open(f"{work}/paste.txt", "w") as f:
        f.write(line * (1024 * 1024 // len(line)))
    tmux("load-buffer", f"{work}/paste.txt")
    start = time.time()
    tmux("paste-buffer", "-p", "-t", "t")
    wait_for(lambda s: "[Pasted text #1" in s, timeout=60)
    settled = (time.time() - start) * 1000
    after = typing(lambda s, t: f"]{t}" in s)
    tmux("new-window", "-t", "t", "cat")
    time.sleep(0.3)
    floor = typing(lambda s, t: t in s)
    print(f"typing key-to-screen: idle median {idle:.1f} ms; after a 1 MB paste (on screen in {settled:.0f} ms) "
          f"median {after:.1f} ms; `cat` in the same tmux: {floor:.1f} ms")

# A long answer streamed in small pieces with a pause between them (~10 s of streaming).
long_text = " ".join(f"word{i}" for i in range(6000))
script = [{"type": "reply", "text": long_text, "chunk_chars": 12, "delay_ms": 4}]
os.makedirs(f"{work}/ws", exist_ok=True)
fake, url = start_fake(fake_bin, work, script)
os.makedirs(f"{work}/config", exist_ok=True)
with open(f"{work}/config/tunacode.json", "w") as f:
    json.dump({"default_model": "local:bench", "providers": {"local": {"base_url": url}}}, f)
env = {"XDG_CONFIG_HOME": f"{work}/config", "XDG_DATA_HOME": f"{work}/data", "XDG_STATE_HOME": f"{work}/state", "TERM": "xterm-256color"}
args = ["new-session", "-d", "-s", "t", "-x", "120", "-y", "40", "-c", f"{work}/ws"]
for k, v in env.items():
    args += ["-e", f"{k}={v}"]
t0 = time.time()
tmux(*args, tunacode)
try:
    wait_for(lambda s: "local:bench" in s)
    print(f"TUI start-up to first screen (tmux): {(time.time() - t0) * 1000:.0f} ms")
    pid = int(subprocess.run(["pgrep", "-n", "-f", tunacode], capture_output=True, text=True).stdout.split()[0])
    tick = os.sysconf("SC_CLK_TCK")
    def cpu():
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick
    time.sleep(1.0)
    c0, w0 = cpu(), time.time()
    time.sleep(10.0)
    c1, w1 = cpu(), time.time()
    print(f"idle CPU over {w1 - w0:.0f} s: {(c1 - c0) / (w1 - w0) * 100:.2f}% of one core ({(c1 - c0) * 1000:.0f} ms CPU)")
    with open(f"/proc/{pid}/status") as f:
        rss = next(l for l in f if l.startswith("VmRSS")).split()[1]
    print(f"idle resident memory: {int(rss) / 1024:.1f} MiB")

    tmux("send-keys", "-t", "t", "-l", "tell me a long story")
    tmux("send-keys", "-t", "t", "Enter")
    wait_for(lambda s: "word200 " in s)
    c0, w0 = cpu(), time.time()
    typed, lat = "", []
    for ch in "thequickbrownfoxjumpsoverthelazydog":
        typed += ch
        start = time.time()
        tmux("send-keys", "-t", "t", "-l", ch)
        wait_for(lambda s: f"› {typed}" in s)
        lat.append((time.time() - start) * 1000)
    # CPU over a longer window while the answer keeps streaming (/proc counts in 10 ms ticks).
    time.sleep(3.0)
    streaming = "word5999" not in screen()
    c1, w1 = cpu(), time.time()
    print(f"key-to-screen while streaming ({len(lat)} keys, stream still running after: {streaming}): "
          f"median {statistics.median(lat):.1f} ms, p90 {sorted(lat)[int(len(lat) * 0.9)]:.1f} ms, max {max(lat):.1f} ms "
          f"(includes tmux send-keys and capture-pane)")
    print(f"CPU while streaming (~200 deltas/s) and typing, over {w1 - w0:.1f} s: {(c1 - c0) / (w1 - w0) * 100:.1f}% of one core")
    paste_and_type()
finally:
    tmux("kill-server")
    fake.terminate()
