#!/usr/bin/env python3
"""The release link's list of hot functions (crates/tunacode-cli/link/), from lld's map file of a link.

  link_order.py ran MAP BINARY PROFILE...  the name of every function of BINARY with an instruction
                                           that ran in callgrind profiles taken with --dump-instr=yes
  link_order.py found MAP ORDER            how many functions the list ORDER names are in the link
"""
import bisect, os, re, sys

def text_sections(map_path):
    """(start, end, symbol) of every function section in .text, sorted by start."""
    sections = []
    line_re = re.compile(r'^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+\S.*:\(\.text\.(?:(?:unlikely|hot|startup|exit|split)\.)?(\S+)\)$')
    with open(map_path) as f:
        for line in f:
            m = line_re.match(line)
            if m and int(m.group(2), 16) > 0:
                start = int(m.group(1), 16)
                sections.append((start, start + int(m.group(2), 16), m.group(3)))
    sections.sort()
    return sections

def executed_addresses(profile_path, binary_path):
    """Addresses of the instructions that ran in `binary_path`, from a callgrind profile."""
    objects, current_object, last, found = {}, None, 0, set()
    with open(profile_path) as f:
        for line in f:
            if line.startswith(('ob=', 'cob=')):
                # An object's name is given where its number first appears, in either line.
                m = re.match(r'c?ob=\((\d+)\)\s*(.*)', line)
                if m.group(2).strip():
                    objects[m.group(1)] = os.path.realpath(m.group(2).strip())
                if line.startswith('ob='):
                    current_object = objects.get(m.group(1))
                continue
            first = line[:1]
            if first not in '0123456789+-*' or line.startswith('calls='):
                continue
            token = line.split(None, 1)[0]
            if token.startswith('0x'):
                last = int(token, 16)
            elif first in '+-':
                last += int(token)
            elif token != '*':
                continue
            if current_object == binary_path:
                found.add(last)
    return found

def ran(map_path, binary_path, profiles):
    binary_path = os.path.realpath(binary_path)
    sections = text_sections(map_path)
    starts = [s[0] for s in sections]
    names = set()
    for profile in profiles:
        for address in executed_addresses(profile, binary_path):
            i = bisect.bisect_right(starts, address) - 1
            if i >= 0 and sections[i][0] <= address < sections[i][1]:
                names.add(sections[i][2])
    for name in names:
        print(name)
    total = sum(e - s for s, e, n in sections if n in names)
    print(f"{len(names)} functions, {total} bytes of {sum(e - s for s, e, _ in sections)}", file=sys.stderr)

def found(map_path, order_path):
    linked = {name for _, _, name in text_sections(map_path)}
    listed = [line.strip() for line in open(order_path) if line.strip()]
    hits = sum(name in linked for name in listed)
    print(f"link order: {hits} of the {len(listed)} functions listed are in this build "
          f"({100 * hits / max(len(listed), 1):.0f}%; below ~90%, run scripts/link-order/generate.sh)")

if sys.argv[1] == 'ran':
    ran(sys.argv[2], sys.argv[3], sys.argv[4:])
elif sys.argv[1] == 'found':
    found(sys.argv[2], sys.argv[3])
else:
    sys.exit(__doc__)
