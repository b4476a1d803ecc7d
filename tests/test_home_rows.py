#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Each row's home, against the kernel's own map of CPUs to nodes.

A short run (the harness's empty loop at 1 and 2 threads, unbound and
with --home local) records where the shared state landed and how many of
the row's threads run on another node. The count is checked against
/sys/devices/system/node/nodeN/cpulist, read here: the CPUs of the row's
placement whose node is not the home's. A build without hwloc knows no
CPU's node and records null; a kernel that cannot say where memory is gives
no node, and then nothing is counted.

usage: test_home_rows.py BOUNCELAB HAVE_HWLOC(0|1)
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

bouncelab, have_hwloc = os.path.abspath(sys.argv[1]), sys.argv[2] == "1"


def cpu_list(text):
    cpus = set()
    for part in text.strip().split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def node_of_cpu():
    nodes = {}
    for path in glob.glob("/sys/devices/system/node/node[0-9]*/cpulist"):
        node = int(re.search(r"node(\d+)/cpulist$", path).group(1))
        with open(path) as f:
            for cpu in cpu_list(f.read()):
                nodes[cpu] = node
    return nodes


def main():
    nodes = node_of_cpu()
    if not nodes:
        print("skip: no /sys/devices/system/node to map CPUs to nodes")
        return 77
    if len(os.sched_getaffinity(0)) < 2:
        print("skip: needs two CPUs this process may use")
        return 77
    bad = []
    with tempfile.TemporaryDirectory(prefix="bouncelab-home-") as tmp:
        for home in ([], ["--home", "local"]):
            out = os.path.join(tmp, f"r{len(home)}.json")
            p = subprocess.run([bouncelab, "run", "--quick", "--filter", "^has_pinned/nop(/home:local)?$",
                                "--threads", "1,2", "--repetitions", "1", "--counters", "none",
                                "--min-time", "0.001", *home, "--out", out],
                               capture_output=True, text=True, timeout=240)
            if p.returncode:
                bad.append(f"run {home}: exit {p.returncode}: {p.stderr}")
                continue
            with open(out) as f:
                rows = json.load(f)["benchmarks"]
            for row in rows:
                facts = row["bouncelab"]
                h, cpus = facts["home"], facts["placement"]["cpus"]
                what = f"{row['name']} {home}"
                allowed = os.sched_getaffinity(0)
                if len(cpus) != row["threads"] or len(set(cpus)) != len(cpus) or \
                        not set(cpus) <= allowed:
                    bad.append(f"{what}: placement on CPUs {cpus}, expected {row['threads']} "
                               f"distinct CPUs of those allowed, {sorted(allowed)}")
                if h["node"] < 0:
                    if h["threads_away"] is not None:
                        bad.append(f"{what}: no node found, but {h['threads_away']} threads away")
                    continue
                if not have_hwloc:
                    if h["threads_away"] is not None:
                        bad.append(f"{what}: without hwloc, {h['threads_away']} threads away")
                    continue
                want = sum(1 for c in cpus if nodes.get(c) != h["node"])
                if h["threads_away"] != want:
                    bad.append(f"{what}: home node {h['node']}, CPUs {cpus}: "
                               f"{h['threads_away']} threads away, expected {want}")
                if home and not row["run_name"].startswith("has_pinned/nop/home:local/"):
                    bad.append(f"{what}: a home asked for is not in the case's name")
                if not home and "/home:" in row["run_name"]:
                    bad.append(f"{what}: the default home is in the case's name")
                if home and h["policy"] != "local":
                    bad.append(f"{what}: home policy {h['policy']!r}")
                if home and h["node"] != nodes.get(cpus[0]):
                    bad.append(f"{what}: --home local is node {h['node']}, "
                               f"thread 0's CPU {cpus[0]} is on {nodes.get(cpus[0])}")
            if len(rows) != 2:
                bad.append(f"run {home}: {len(rows)} rows, expected 2")
    if bad:
        print("\n".join(bad))
        return 1
    print("every row's home agrees with the kernel's node map")
    return 0


if __name__ == "__main__":
    sys.exit(main())
