#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The results reader's ranges at their ends, and another tool's time units.

Each probe sets one field of a small results file (six rows of a corpus
run) to a value at the end of its documented range, which must be read,
or just past it, which must be refused with one line naming the field. A
range moved by one, doubled or halved takes a value on the wrong side.

A file of Google Benchmark's own rows in us against one in ms: 2.5 us is
2500 ns and 0.005 ms 5000 ns, so B/A is 2.00x (compare's table).

usage: test_read_bounds.py BOUNCELAB TESTS_DIR
"""
import copy
import json
import os
import re
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

# (where, value, read?); where: "context.KEY", "topology.KEY", "cache.KEY",
# "row.KEY" (the first row), "foreign.KEY" (a row of another tool),
# "slurm.KEY" (context.slurm, made for the probe)
PROBES = [
    # the context's strings, first and last read: a number is refused
    ("context.date", 5, False), ("context.arch", 5, False),
    # and each part read after the numbers: a wrong type is refused
    ("context.load_avg", [-1], False),
    ("slurm.job_id", 5, False), ("context.cpu", 5, False),
    ("context.num_cpus", 1, True), ("context.num_cpus", 0, False),
    ("context.mhz_per_cpu", 0, True), ("context.mhz_per_cpu", -0.5, False),
    ("context.mhz_per_cpu", 1e6, True), ("context.mhz_per_cpu", 1000000.5, False),
    ("context.cold_miss_ns", 0, True), ("context.cold_miss_ns", -0.5, False),
    ("context.cold_miss_ns", 1e6, True), ("context.cold_miss_ns", 1000000.5, False),
    ("topology.nr_allowed_cpus", 1, True), ("topology.nr_allowed_cpus", 0, False),
    ("topology.numa_nodes", 0, True), ("topology.numa_nodes", -1, False),
    ("cache.level", 1, True), ("cache.level", 0, False),
    ("cache.size", 0, True), ("cache.size", -1, False),
    ("cache.num_sharing", 0, True), ("cache.num_sharing", -1, False),
    ("row.threads", 0, False),
    ("row.ops", 1, True), ("row.ops", 0.5, False),
    ("row.wall_ns", 1, True), ("row.wall_ns", 0.5, False),
    ("row.repetitions", 0, False), ("row.repetition_index", -1, False),
    ("row.iterations", 0, True), ("row.iterations", -0.5, False),
    ("row.iterations", 1e19, True), ("row.iterations", 1.5e19, False),
    ("row.real_time", 0, True), ("row.real_time", -0.5, False),
    ("row.real_time", 1e18, True), ("row.real_time", 1.5e18, False),
    ("row.cpu_time", 0, True), ("row.cpu_time", -0.5, False),
    ("row.cpu_time", 1e18, True), ("row.cpu_time", 1.5e18, False),
    ("foreign.threads", 1, True), ("foreign.threads", 0, False),
    ("foreign.real_time", 0, True), ("foreign.real_time", -0.5, False),
    ("foreign.real_time", 1e18, True), ("foreign.real_time", 1.5e18, False),
]

FOREIGN = {"name": "BM_other/threads:1", "run_name": "BM_other/threads:1",
           "run_type": "iteration", "repetitions": 1, "repetition_index": 0,
           "threads": 1, "iterations": 1000, "real_time": 2.5, "cpu_time": 2.5,
           "time_unit": "us"}

failures = []


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


def probe(bouncelab, base, where, value, read, path):
    doc = copy.deepcopy(base)
    scope, key = where.split(".")
    target = {"context": doc["context"], "topology": doc["context"]["topology"],
              "cache": doc["context"]["caches"][0], "row": doc["benchmarks"][0],
              "foreign": doc["benchmarks"][-1],
              "slurm": doc["context"].setdefault("slurm", {})}[scope]
    target[key] = value
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    p = subprocess.run([bouncelab, "compare", path, path], capture_output=True, text=True)
    if read and p.returncode:
        fail(f"{where} = {value!r} refused: {p.stderr.strip()}")
    elif not read and not p.returncode:
        fail(f"{where} = {value!r} read, expected it refused")
    elif not read and key not in p.stderr:
        fail(f"{where} = {value!r}: the error does not name {key}: {p.stderr.strip()}")


def foreign_file(path, unit, real_time):
    rows = []
    for i in range(3):
        row = dict(FOREIGN, repetitions=3, repetition_index=i, time_unit=unit,
                   real_time=real_time, cpu_time=real_time)
        rows.append(row)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"context": {"date": "2026-12-02T00:00:00+00:00", "host_name": "h",
                               "num_cpus": 2}, "benchmarks": rows}, f)


def main():
    bouncelab, tests = sys.argv[1], sys.argv[2]
    with open(os.path.join(tests, "data", "runs", "epyc-zen3-2026-12-01", "quick.json"),
              encoding="utf-8") as f:
        base = json.load(f)
    base["benchmarks"] = base["benchmarks"][:6] + [dict(FOREIGN)]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "probe.json")
        for where, value, read in PROBES:
            probe(bouncelab, base, where, value, read, path)
        a, b = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
        foreign_file(a, "us", 2.5)
        foreign_file(b, "ms", 0.005)
        p = subprocess.run([bouncelab, "compare", a, b], capture_output=True, text=True)
        row = re.search(r"^\| BM_other/threads:1 \| ([^|]+) \| ([^|]+) \| ([\d.]+)x",
                        p.stdout, re.M)
        if p.returncode or not row:
            fail(f"compare of us against ms: {p.stdout}{p.stderr}")
        elif (row.group(1).strip(), row.group(2).strip(), row.group(3)) != ("2500", "5000", "2.00"):
            fail(f"2.5 us against 0.005 ms: A {row.group(1)}, B {row.group(2)}, "
                 f"B/A {row.group(3)}x; expected 2500, 5000 and 2.00x")
    print(f"{len(PROBES) + 1} probes, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
