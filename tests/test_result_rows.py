#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A real run's results file, its numbers checked against each other and
against what the kernel says of this machine, computed here:

  each repetition  ns_per_op = wall_ns / (ops / threads) (every thread
                   runs the same operations); real_time is ns_per_op, or
                   for pingpong, whose operation is a round trip, half of
                   it, as one_way_ns is; its parameters are the
                   catalogue's defaults (bouncelab list --json, a choice
                   by its name); as many distinct allowed CPUs as threads;
                   repetition_index 0 and 1 of 2; its wall time more than
                   0 and within the whole run's, timed here
  aggregates       NAME_mean, _median, _stddev and _cv of each case, over
                   its repetitions' real_time and ns_per_op, by Python's
                   statistics module (stddev of a sample, cv = stddev /
                   mean)
  context          kernel_release as uname; cpu_model and hypervisor as
                   /proc/cpuinfo's first "model name" and "flags"; the
                   allowed CPUs as sched_getaffinity, written as ranges;
                   NUMA nodes as /sys/devices/system/node (0 without
                   hwloc); each class's example pair two allowed CPUs

usage: test_result_rows.py BOUNCELAB HAVE_HWLOC(0|1)
"""
import glob
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

bouncelab, have_hwloc = os.path.abspath(sys.argv[1]), sys.argv[2] == "1"
bad = []


def check(ok, what):
    if not ok:
        bad.append(what)


def near(got, want, what, rel=1e-9):
    check(got is not None and abs(got - want) <= rel * max(abs(want), 1e-300),
          f"{what}: {got!r}, expected {want!r}")


def ranges(cpus):
    out, cpus = [], sorted(cpus)
    i = 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(out)


def cpuinfo():
    model, flags = None, None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.startswith("model name") and model is None:
                    model = value.strip("\n")[1:]
                elif key.startswith("flags"):
                    flags = value
                    break
    except OSError:
        pass
    return model, flags


def defaults():
    p = subprocess.run([bouncelab, "list", "--json"], capture_output=True, text=True)
    return {f["family"]: {q["name"]: q["default"] for q in f["parameters"]}
            for f in json.loads(p.stdout)["families"]}


def main():
    allowed = os.sched_getaffinity(0)
    if len(allowed) < 2:
        print("skip: needs two CPUs this process may use")
        return 77
    with tempfile.TemporaryDirectory(prefix="bouncelab-rows-") as tmp:
        out = os.path.join(tmp, "r.json")
        started = time.monotonic_ns()
        p = subprocess.run([bouncelab, "run", "--filter", "^(pingpong/cas|has_pinned/nop)$",
                            "--threads", "1,2", "--repetitions", "2", "--counters", "none",
                            "--min-time", "0.001", "--out", out],
                           capture_output=True, text=True, timeout=240)
        # every repetition's time is a part of the whole run's
        whole_ns = time.monotonic_ns() - started
        if p.returncode:
            print(f"run: exit {p.returncode}: {p.stderr}")
            return 1
        with open(out) as f:
            doc = json.load(f)
    # a ping-pong whose partner the host did not run for 10 s is stopped
    # by the watchdog: a fact about the load here, not about the file
    if any("watchdog" in r.get("error_message", "") for r in doc["benchmarks"]):
        print("skip: the watchdog stopped a case on this loaded machine")
        return 77
    want_params = defaults()
    rows = [r for r in doc["benchmarks"] if r.get("run_type") == "iteration"]
    aggregates = [r for r in doc["benchmarks"] if r.get("run_type") == "aggregate"]
    by_case = {}
    for r in rows:
        by_case.setdefault(r["run_name"], []).append(r)
        what = f"{r['name']} #{r.get('repetition_index')}"
        facts = r["bouncelab"]
        if r.get("error_occurred"):
            bad.append(f"{what}: failed: {r.get('error_message')}")
            continue
        near(r["ns_per_op"], r["wall_ns"] / (r["ops"] / r["threads"]), f"{what} ns_per_op")
        check(0 < r["wall_ns"] <= whole_ns,
              f"{what}: wall_ns {r['wall_ns']}, outside the whole run's {whole_ns} ns")
        if facts["family"] == "pingpong":
            near(r["real_time"], r["ns_per_op"] / 2, f"{what} real_time, one way")
            near(r["one_way_ns"], r["ns_per_op"] / 2, f"{what} one_way_ns")
        else:
            near(r["real_time"], r["ns_per_op"], f"{what} real_time")
            check("one_way_ns" not in r, f"{what}: a one_way_ns")
        check(facts["params"] == want_params[facts["family"]],
              f"{what}: params {facts['params']}, expected {want_params[facts['family']]}")
        cpus = facts["placement"]["cpus"]
        check(len(cpus) == r["threads"] and len(set(cpus)) == len(cpus) and set(cpus) <= allowed,
              f"{what}: CPUs {cpus} for {r['threads']} threads")
        check(r["repetitions"] == 2, f"{what}: repetitions {r['repetitions']}")
    want_cases = {"has_pinned/nop/real_time/threads:1", "has_pinned/nop/real_time/threads:2",
                  "pingpong/cas/real_time/threads:2"}
    check(set(by_case) == want_cases, f"cases {sorted(by_case)}, expected {sorted(want_cases)}")
    for name, reps in by_case.items():
        check(sorted(r["repetition_index"] for r in reps) == [0, 1],
              f"{name}: repetition indexes {[r['repetition_index'] for r in reps]}")

    # the aggregate rows against Python's statistics of the repetitions
    for name, reps in by_case.items():
        for key in ("real_time", "ns_per_op"):
            values = [r[key] for r in reps]
            mean, stdev = statistics.mean(values), statistics.stdev(values)
            for stat, want in (("mean", mean), ("median", statistics.median(values)),
                               ("stddev", stdev), ("cv", stdev / mean)):
                row = [a for a in aggregates if a["name"] == f"{name}_{stat}"]
                if len(row) != 1:
                    bad.append(f"{name}_{stat}: {len(row)} rows")
                    continue
                near(row[0].get(key), want, f"{name}_{stat} {key}", 1e-9)
                check(row[0]["aggregate_name"] == stat and row[0]["iterations"] == 2 and
                      row[0]["aggregate_unit"] == ("percentage" if stat == "cv" else "time"),
                      f"{name}_{stat}: {row[0]['aggregate_name']}, {row[0]['iterations']}, "
                      f"{row[0]['aggregate_unit']}")
    check(len(aggregates) == 4 * len(by_case), f"{len(aggregates)} aggregate rows")

    ctx = doc["context"]
    check(ctx.get("kernel_release") == os.uname().release,
          f"kernel_release {ctx.get('kernel_release')!r}, uname {os.uname().release!r}")
    model, flags = cpuinfo()
    if model is not None:
        check(ctx.get("cpu_model") == model, f"cpu_model {ctx.get('cpu_model')!r}, cpuinfo {model!r}")
    if flags is not None:
        check(ctx.get("hypervisor") == (" hypervisor" in flags),
              f"hypervisor {ctx.get('hypervisor')!r}, cpuinfo flags say {' hypervisor' in flags}")
    topo = ctx.get("topology", {})
    check(topo.get("nr_allowed_cpus") == len(allowed),
          f"nr_allowed_cpus {topo.get('nr_allowed_cpus')}, sched_getaffinity {len(allowed)}")
    check(topo.get("allowed_cpus") == ranges(allowed),
          f"allowed_cpus {topo.get('allowed_cpus')!r}, expected {ranges(allowed)!r}")
    nodes = len(glob.glob("/sys/devices/system/node/node[0-9]*"))
    if have_hwloc and nodes:
        check(topo.get("numa_nodes") == nodes, f"numa_nodes {topo.get('numa_nodes')}, /sys {nodes}")
    for cls, pair in topo.get("classes", {}).items():
        check(len(pair) == 2 and set(pair) <= allowed and (pair[0] == pair[1]) == (cls == "same_pu"),
              f"class {cls}: pair {pair}")
    if bad:
        print("\n".join(bad))
        return 1
    print("the run's rows, aggregates and context agree with what was computed here")
    return 0


if __name__ == "__main__":
    sys.exit(main())
