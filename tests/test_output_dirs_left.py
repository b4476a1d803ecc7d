#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A refused output leaves no directory it made.

Every option that writes (run --out, report -o, topo --latency-out) is
given a path under directories that do not exist yet, whose last part is
refused: a name longer than NAME_MAX, a name that fits NAME_MAX but not
with the room its temporary names need, a part of the path that is a file,
and an existing file without --force. Each is refused (exit 2, one line)
before anything runs, and the directory tree is as it was: the new
directories are removed again, the ones that were there stay.

usage: test_output_dirs_left.py BOUNCELAB
"""
import os
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

bouncelab = os.path.abspath(sys.argv[1])
bad = []


def tree(top):
    found = set()
    for d, dirs, files in os.walk(top):
        for name in dirs + files:
            found.add(os.path.relpath(os.path.join(d, name), top))
    return found


def main():
    with tempfile.TemporaryDirectory(prefix="bouncelab-dirs-") as tmp:
        results = os.path.join(tmp, "kept", "results.json")
        os.makedirs(os.path.dirname(results))
        with open(results, "w") as f:
            f.write("{}\n")
        os.makedirs(os.path.join(tmp, "there"))
        with open(os.path.join(tmp, "there", "a_file"), "w") as f:
            f.write("x\n")
        name_max = os.pathconf(tmp, "PC_NAME_MAX")
        last_parts = {
            "a name over NAME_MAX": "n" * (name_max + 1),
            "a name without room for its temporary names": "t" * (name_max - 3),
        }
        commands = {
            "run --out": lambda p: ["run", "--quick", "--filter", "has_pinned/nop$",
                                    "--threads", "1", "--repetitions", "1",
                                    "--counters", "none", "--out", p],
            "report -o": lambda p: ["report", results, "-o", p],
            "topo --latency-out": lambda p: ["topo", "--latency", "--samples", "1",
                                             "--round-trips", "1", "--pairs-per-class", "1",
                                             "--latency-out", p],
        }
        before = tree(tmp)
        for command, args in commands.items():
            cases = [(what, os.path.join(tmp, "new1", "new2", part))
                     for what, part in last_parts.items()]
            cases.append(("a part that is a file",
                          os.path.join(tmp, "there", "a_file", "new3", "out.json")))
            if command != "report -o":
                cases.append(("an existing file without --force",
                              os.path.join(tmp, "there", "a_file")))
            for what, path in cases:
                if command == "report -o" and what.startswith("a name without room"):
                    continue    # a directory needs no temporary sibling name
                p = subprocess.run([bouncelab, *args(path)], capture_output=True, text=True,
                                   timeout=120)
                lines = p.stderr.strip().splitlines()
                if p.returncode != 2 or len(lines) != 1:
                    bad.append(f"{command} {what}: exit {p.returncode}, stderr {p.stderr!r}")
                now = tree(tmp)
                if now != before:
                    bad.append(f"{command} {what}: left {sorted(now - before)}, "
                               f"removed {sorted(before - now)}")
                    # start the next case from the tree as it was
                    for extra in sorted(now - before, key=len, reverse=True):
                        full = os.path.join(tmp, extra)
                        (os.rmdir if os.path.isdir(full) else os.unlink)(full)
    if bad:
        print("\n".join(bad))
        return 1
    print("every refused output left the directories as they were")
    return 0


if __name__ == "__main__":
    sys.exit(main())
