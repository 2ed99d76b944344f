#!/usr/bin/env python3
"""Opening a big session in the TUI (tmux, 120x40): a ~4 MB session whose transcript is ~50,000
lines, about half of them code. Prints the time from start to the newest screen, to the first typed
key on screen (the key is sent right after start), the median key-to-screen of 20 keys after that,
resident memory once settled, and the time Home takes to show the oldest line with the keys after it.
Goal: keys within 100 ms of start, under 40 MB.
Usage: tui_big_session.py TUNACODE_BIN FAKE_PROVIDER_BIN WORKDIR"""
import glob, json, os, subprocess, sys, time

from tmuxbench import Tmux, start_fake

tunacode, fake_bin, work = sys.argv[1], sys.argv[2], sys.argv[3]
tmux = Tmux(f"tunabig{os.getpid()}")
wait_for, typing = tmux.wait_for, tmux.typing


CODE = [
    "fn handle_{i}(request: &Request, store: &mut Store) -> Result<Response, Error> {{",
    "    let key = request.header(\"x-key\").ok_or(Error::Missing(\"x-key\"))?;",
    "    let entry = store.entries.get(key).cloned().unwrap_or_default();",
    "    if entry.version < request.version {{ return Err(Error::Stale(entry.version)); }}",
    "    // Merge the fields the request changes; keep the rest as stored.",
    "    let merged = Entry {{ name: request.name.clone(), ..entry }};",
    "    store.entries.insert(key.to_string(), merged);",
    "    Ok(Response::ok(format!(\"updated {{}} in {i}\", key)))",
    "}}",
]


def exchange(i):
    """One prompt, an answer with prose and a 27-line Rust block, and a read_file call."""
    prose = (f"Step {i}: the handler below reads the key from the request, checks the stored "
             "version, merges the changed fields and writes the entry back. It returns an error "
             "when the header is missing or the stored entry is newer than the request says. ") * 2
    code = "\n".join(line.format(i=i) for _ in range(3) for line in CODE)
    text = f"{prose}\n\n```rust\n{code}\n```\n\nThat keeps every write ordered by version."
    call = f"call_{i}"
    return [
        {"kind": "request", "parts": [{"part_kind": "user-prompt",
                                       "content": f"Now look at handler {i} and explain what it does with the version."}]},
        {"kind": "response", "parts": [
            {"part_kind": "text", "content": text},
            {"part_kind": "tool-call", "tool_call_id": call, "tool_name": "read_file",
             "args": {"file_path": f"src/handlers/handler_{i}.rs"}}], "finish_reason": "tool_calls"},
        {"kind": "request", "parts": [{"part_kind": "tool-return", "tool_call_id": call, "tool_name": "read_file",
                                       "content": "".join(f"{n:>6}\t{CODE[n % 9].format(i=i)}\n" for n in range(1, 12))}]},
    ]


os.makedirs(f"{work}/ws", exist_ok=True)
os.makedirs(f"{work}/config", exist_ok=True)
fake, url = start_fake(fake_bin, work, [{"type": "reply", "text": "ok"}])
with open(f"{work}/config/tunacode.json", "w") as f:
    json.dump({"default_model": "local:bench", "providers": {"local": {"base_url": url}}}, f)
env = {"XDG_CONFIG_HOME": f"{work}/config", "XDG_DATA_HOME": f"{work}/data",
       "XDG_STATE_HOME": f"{work}/state", "TERM": "xterm-256color"}
out = subprocess.run([tunacode, "run", "--cwd", f"{work}/ws", "--output", "json", "start"],
                     env={**os.environ, **env}, capture_output=True, text=True, check=True)
sid = json.loads(out.stdout)["session_id"]
path = glob.glob(f"{work}/data/**/{sid}.json", recursive=True)[0]
session = json.load(open(path))
messages = session["messages"][:0]
for i in range(1100):
    messages += exchange(i)
messages.append({"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "LAST PROMPT MARK"}]})
messages.append({"kind": "response", "parts": [{"part_kind": "text", "content": "NEWEST ANSWER MARK"}]})
messages[0]["parts"][0]["content"] = "OLDEST PROMPT MARK"
session["messages"] = messages
json.dump(session, open(path, "w"))
for stale in glob.glob(f"{work}/data/**/{sid}.summary.json", recursive=True):
    os.remove(stale)
print(f"session: {len(messages)} messages, {os.path.getsize(path) / 1e6:.1f} MB")

args = ["new-session", "-d", "-s", "t", "-x", "120", "-y", "40", "-c", f"{work}/ws"]
for k, v in env.items():
    args += ["-e", f"{k}={v}"]


def memory(pid):
    """Resident and anonymous memory of a process, in MiB."""
    with open(f"/proc/{pid}/smaps_rollup") as f:
        fields = {l.split(":")[0]: int(l.split()[1]) / 1024 for l in f if l.endswith("kB\n")}
    return fields["Rss"], fields["Anonymous"]


# The floor: the same TUI on a new, empty session, in a tmux server of its own (the big session's
# server started on the same socket while this one was still shutting down could be taken down with it).
floor = Tmux(f"tunabigfloor{os.getpid()}")
floor(*args, tunacode)
try:
    floor.wait_for(lambda s: "local:bench" in s)
    time.sleep(1.0)
    pid = int(subprocess.run(["pgrep", "-n", "-f", tunacode], capture_output=True, text=True).stdout.split()[0])
    print("a new session: resident memory %.1f MiB (%.1f MiB anonymous)" % memory(pid))
finally:
    floor("kill-server")
t0 = time.time()
tmux(*args, tunacode, "--session", sid)
try:
    tmux("send-keys", "-t", "t", "-l", "z")
    shown = wait_for(lambda s: "NEWEST ANSWER MARK" in s)
    newest = (time.time() - t0) * 1000
    wait_for(lambda s: "› z" in s)
    first_key = (time.time() - t0) * 1000
    tmux("send-keys", "-t", "t", "C-u")
    wait_for(lambda s: "› z" not in s)
    after_open = typing(lambda s, t: f"› {t}" in s)
    tmux("send-keys", "-t", "t", "C-u")
    time.sleep(1.0)
    pid = int(subprocess.run(["pgrep", "-n", "-f", f"{tunacode} --session"], capture_output=True,
                             text=True).stdout.split()[0])
    rss, anon = memory(pid)
    print(f"newest screen {newest:.0f} ms after start; a key sent at start on screen at {first_key:.0f} ms; "
          f"keys after opening: median {after_open:.1f} ms; resident memory {rss:.1f} MiB "
          f"({anon:.1f} MiB anonymous)")
    start = time.time()
    tmux("send-keys", "-t", "t", "Home")
    wait_for(lambda s: "OLDEST PROMPT MARK" in s)
    top = (time.time() - start) * 1000
    at_top = typing(lambda s, t: f"› {t}" in s)
    print(f"Home to the oldest line: {top:.0f} ms; keys there: median {at_top:.1f} ms; "
          "resident memory %.1f MiB (%.1f MiB anonymous)" % memory(pid))
finally:
    tmux("kill-server")
    fake.terminate()
