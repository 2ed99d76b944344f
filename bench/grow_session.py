#!/usr/bin/env python3
"""Grows a saved session to N messages: its first prompt, then read_file calls and their answers,
then a closing answer. Usage: grow_session.py SESSION_FILE N (bench/big_session.sh and
scripts/link-order/generate.sh)."""
import json, sys

path, n = sys.argv[1], int(sys.argv[2])
session = json.load(open(path))
messages = session["messages"][:1]
i = 0
while len(messages) < n:
    call = f"call_{i}"
    messages.append({"kind": "response", "parts": [
        {"part_kind": "text", "content": f"Step {i}: reading the next module."},
        {"part_kind": "tool-call", "tool_call_id": call, "tool_name": "read_file",
         "args": {"file_path": f"src/module_{i % 50}.rs"}}], "finish_reason": "tool_calls"})
    messages.append({"kind": "request", "parts": [
        {"part_kind": "tool-return", "tool_call_id": call, "tool_name": "read_file",
         "content": "".join(f"{l:>6}\tfn f{l}() -> u32 {{ {l} }}\n" for l in range(1, 4))}]})
    i += 1
messages = messages[:n - 1] + [{"kind": "response", "parts": [{"part_kind": "text", "content": "Done."}]}]
session["messages"] = messages
json.dump(session, open(path, "w"))
