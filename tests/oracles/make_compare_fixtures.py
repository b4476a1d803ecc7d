#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writes tests/data/compare-a.json and compare-b.json: two small results
files, hand-chosen numbers, for the compare oracle (compare_expected.py
computes what `bouncelab compare` must print, independently).

  python3 tests/oracles/make_compare_fixtures.py tests/data
"""
import json
import sys


def row(family, variant, threads, rep, reps, ns):
    name = f"{family}/{variant}/real_time/threads:{threads}"
    iterations = 1000000
    return {
        "name": name, "family_index": 0, "per_family_instance_index": 0,
        "run_name": name, "run_type": "iteration", "repetitions": reps,
        "repetition_index": rep, "threads": threads, "iterations": iterations,
        "real_time": ns, "cpu_time": ns, "time_unit": "ns",
        "ns_per_op": ns, "ops": float(iterations * threads),
        "wall_ns": ns * iterations,
        "bouncelab": {"family": family, "variant": variant, "params": {},
                      "placement": {"policy": "compact", "cpus": list(range(threads)),
                                    "widest_class": "package" if threads > 1 else "same_pu",
                                    "numa_distance": None}},
    }


# (family, variant, threads): (A's ns per op, B's ns per op)
CASES = {
    # B clearly faster, no overlap: the exact test's smallest p for 5 vs 5
    ("has_pinned", "store_always", 1): (
        [10.0, 10.4, 9.8, 10.2, 10.1], [5.1, 5.3, 4.9, 5.0, 5.2]),
    # overlapping, with values tied across A and B: the exact path with ties
    ("has_pinned", "read_then_set", 1): (
        [3.0, 3.3, 2.9, 3.1, 3.6, 3.2], [3.1, 3.4, 3.0, 3.5, 2.8, 3.7]),
    # 25 each (above the exact test's 20), with ties: the normal approximation
    ("counter", "shared_atomic", 2): (
        [20 + (i * 7 % 11) * 0.5 for i in range(25)],
        [21 + (i * 5 % 13) * 0.5 for i in range(25)]),
}
ONLY_IN_A = ("counter", "percpu_padded", 2)


def context(host):
    return {"date": "2026-11-30T12:00:00+00:00", "host_name": host,
            "executable": "bouncelab", "num_cpus": 2, "mhz_per_cpu": 2000,
            "cpu_scaling_enabled": False, "caches": [], "load_avg": [0, 0, 0],
            "library_build_type": "release", "bouncelab_version": "0.1.0"}


def main():
    out = sys.argv[1]
    for side, host in ((0, "machine-a"), (1, "machine-b")):
        rows = []
        for (family, variant, threads), values in CASES.items():
            for i, ns in enumerate(values[side]):
                rows.append(row(family, variant, threads, i, len(values[side]), ns))
        if side == 0:
            rows += [row(*ONLY_IN_A, i, 3, 7.0 + i) for i in range(3)]
        with open(f"{out}/compare-{'ab'[side]}.json", "w") as f:
            json.dump({"context": context(host), "benchmarks": rows}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
