#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Each row's fastest and slowest thread, against the row's own mean.

A run of counter/shared_atomic at 1 and 2 threads: every row of 2
threads carries fastest_thread_ns_per_op and slowest_thread_ns_per_op,
the fastest no slower than the slowest, and their mean is the row's
ns_per_op (the harness's ns_per_op is the threads' mean wall time over
the same n operations, so with two threads it is exactly the middle of
the two); a 1-thread row carries neither. The report's table of spread
and counters (details.md) shows both.

usage: test_thread_spread.py BOUNCELAB
"""
import json
import os
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

bouncelab = os.path.abspath(sys.argv[1])
bad = []


def check(ok, what):
    if not ok:
        bad.append(what)


def main():
    if os.cpu_count() < 2:
        print("skip: one CPU, no 2-thread run")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        p = subprocess.run([bouncelab, "run", "--quick", "--threads", "1,2", "--filter",
                            "^counter/shared_atomic$", "--counters", "none", "--out", out],
                           capture_output=True, text=True, timeout=300)
        if p.returncode:
            print(f"run: exit {p.returncode}: {p.stderr[-500:]}")
            return 1
        rows = [r for r in json.load(open(out))["benchmarks"] if r["run_type"] == "iteration"]
        two = [r for r in rows if r["threads"] == 2]
        check(len(two) == 6 and len(rows) == 12, f"{len(rows)} rows, {len(two)} of 2 threads")
        for r in rows:
            fast, slow = r.get("fastest_thread_ns_per_op"), r.get("slowest_thread_ns_per_op")
            if r["threads"] == 1:
                check(fast is None and slow is None, f"{r['name']}: a 1-thread row has {fast}, {slow}")
                continue
            if fast is None or slow is None:
                bad.append(f"{r['name']}: no fastest or slowest thread")
                continue
            check(0 < fast <= slow, f"{r['name']}: fastest {fast}, slowest {slow}")
            mean = (fast + slow) / 2
            check(abs(mean - r["ns_per_op"]) <= 1e-9 * r["ns_per_op"],
                  f"{r['name']}: threads' mean {mean}, ns_per_op {r['ns_per_op']}")
        rep = os.path.join(tmp, "rep")
        p = subprocess.run([bouncelab, "report", out, "-o", rep], capture_output=True, text=True,
                           timeout=300)
        check(p.returncode == 0, f"report: exit {p.returncode}: {p.stderr[-300:]}")
        if p.returncode == 0:
            text = open(os.path.join(rep, "details.md")).read()
            for name in ("fastest", "slowest"):
                check(f"{name}\\_thread\\_ns\\_per\\_op" in text or f"{name}_thread_ns_per_op" in text,
                      f"the report shows no {name}_thread_ns_per_op")
    if bad:
        print("\n".join(bad))
        return 1
    print("every 2-thread row's fastest and slowest thread bracket its mean")
    return 0


if __name__ == "__main__":
    sys.exit(main())
