#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""run --console: the table says what the JSON says.

  test_console.py BOUNCELAB

A 2-thread run (where Google Benchmark's own console divides by the
thread count): each row's ns/op is its JSON row's real_time, in order;
one header for all rounds. On a terminal: colour, none with NO_COLOR=1
(no ESC byte on stdout at all); with stdout and stderr on one terminal,
every row is a line of its own once the terminal has applied the status
line's carriage returns and clears.
"""
import json
import os
import pty
import re
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

bouncelab = os.path.abspath(sys.argv[1])
work = tempfile.mkdtemp(prefix="bouncelab-console.")
ARGS = ["run", "--quick", "--threads", "2", "--filter", "^has_pinned/nop$", "--console"]
ROW = re.compile(r"^(has_pinned/nop/real_time/threads:2) +([0-9.]+) ns +([0-9]+)( |$)")
failures = []


def out_path(tag):
    return os.path.join(work, tag, "results.json")


def json_times(tag):
    rows = json.load(open(out_path(tag)))["benchmarks"]
    return [r["real_time"] for r in rows if r.get("run_type") == "iteration"]


def on_terminal(tag, env, stderr_too):
    """stdout (and stderr too, if asked) on a pseudo-terminal: its bytes."""
    master, slave = pty.openpty()
    err = slave if stderr_too else subprocess.DEVNULL
    proc = subprocess.Popen([bouncelab] + ARGS + ["--out", out_path(tag)], stdout=slave,
                            stderr=err, env=env)
    os.close(slave)
    data = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    os.close(master)
    if proc.wait() != 0:
        failures.append(f"{tag}: exit {proc.returncode}")
    return data


env = dict(os.environ)
env.pop("NO_COLOR", None)
plain = subprocess.run([bouncelab] + ARGS + ["--out", out_path("plain")], env=env,
                       capture_output=True, text=True)
if plain.returncode != 0:
    sys.exit(f"FAIL: run --console exited {plain.returncode}: {plain.stderr}")
shown = [float(m.group(2)) for m in map(ROW.match, plain.stdout.splitlines()) if m]
written = json_times("plain")
if len(shown) != len(written) or not shown:
    failures.append(f"{len(shown)} console rows for {len(written)} JSON rows")
for i, (s, w) in enumerate(zip(shown, written)):
    if abs(s - round(w, 2)) > 0.006:
        failures.append(f"row {i}: console {s} ns, JSON real_time {w}")
headers = sum(1 for line in plain.stdout.splitlines() if line.startswith("Benchmark "))
if headers != 1:
    failures.append(f"{headers} headers for {len(written)} rows in 6 rounds; expected 1")
if "\x1b" in plain.stdout:
    failures.append("colour on stdout that is not a terminal")

coloured = on_terminal("colour", env, False)
if b"\x1b[" not in coloured:
    failures.append("no colour on a terminal without NO_COLOR")
no_color = on_terminal("no_color", dict(env, NO_COLOR="1"), False)
if b"\x1b" in no_color:
    failures.append(f"ESC byte on stdout with NO_COLOR=1: {no_color[:200]!r}")
if not any(ROW.match(line) for line in no_color.decode().splitlines()):
    failures.append("no row on a terminal with NO_COLOR=1")

# One terminal for both (its \r\n is a newline): a line as seen is what
# follows its last \r (each \r starts the line over; \033[K clears what
# was there).
both = on_terminal("both", dict(env, NO_COLOR="1"), True).decode().replace("\r\n", "\n")
seen = [re.sub(r"\x1b\[K", "", line.split("\r")[-1]) for line in both.split("\n")]
rows = [line for line in seen if "has_pinned/nop/real_time/threads:2 " in line
        and " ns " in line]
bad = [line for line in rows if not ROW.match(line)]
if len(rows) != 6 or bad:
    failures.append(f"{len(rows)} rows on a shared terminal, run into the status line: {bad[:2]}")

for f in failures:
    print("FAIL:", f)
if failures:
    sys.exit(1)
print(f"ok: --console shows the JSON's real_time at 2 threads ({shown[0]} ns), one header, NO_COLOR")
