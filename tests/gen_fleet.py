#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writes the results files of a fleet of machines, with hand-checkable values.

  gen_fleet.py --three DIR
      laptop.json (2 CPUs, 1 node), xeon.json and xeon-again.json (40 CPUs
      on 2 sockets, the same host and build twice: one machine), epyc.json
      (256 CPUs on 2 NUMA nodes);
  gen_fleet.py --hosts 50 DIR
      that many hosts (host-00.json ...), each like the 40-CPU machine:
      the report's fleet-size measurement.

Every case has three repetitions, 0.99 v, v and 1.01 v (xeon-again.json:
0.98 v, v, 1.02 v), so its median is v exactly, pooled or not. The values
(FLEET below) are chosen so that a reader can check every number of the
fleet section by hand:

  has_pinned, at t threads, placement compact:
    store_always   ns/op = K * t   (K: 2 laptop, 3 xeon, 4 epyc)
    read_then_set  ns/op = 2
  placement spread: store_always 1.5 times that. The fix's gain at t
  threads is K * t / 2 (times 1.5 when spread).
  pin_work=0 (not the defaults, so in no fleet row), compact:
    store_always K * t / 2, read_then_set 1.
  pingpong, one-way ns per distance class (store_load, cas): the floor of
  a class is store_load's, the physical baseline (l3: 45, where cas
  gives 40, so a floor taken from the wrong variant shows).
"""
import argparse
import json
import os

from gen_results import Writer, context, placement

HAS_PINNED_DEFAULTS = {"pin_work": 1, "flag_line": "shared", "already_set": 100}

FLEET = {
    "laptop": {
        "host": "laptop", "cpu": "Intel Core i5-8250U", "cpus": 2, "numa": 1,
        "classes": ["same_pu", "package"], "k": 2, "threads": [1, 2],
        "one_way": {"package": (50.0, 65.0)},
    },
    "xeon": {
        "host": "xeon2s", "cpu": "Intel Xeon Gold 6138", "cpus": 40, "numa": 2,
        "classes": ["same_pu", "smt", "l3", "cross_package"], "k": 3,
        "threads": [1, 2, 4, 8, 16, 32, 40],
        "one_way": {"smt": (20.0, 26.0), "l3": (45.0, 40.0),
                    "cross_package": (130.0, 169.0)},
    },
    "epyc": {
        "host": "epyc2n", "cpu": "AMD EPYC 7742 64-Core Processor", "cpus": 256,
        "numa": 2, "classes": ["same_pu", "smt", "l3", "package", "cross_package"],
        "k": 4, "threads": [1, 2, 4, 8, 16, 32, 64, 128, 256],
        "one_way": {"smt": (18.0, 23.4), "l3": (60.0, 78.0), "package": (110.0, 143.0),
                    "cross_package": (250.0, 325.0)},
    },
}


def fleet_context(m):
    ctx = context(False, "bouncelab run --placement compact,spread --out results.json")
    ctx.update({
        "host_name": m["host"], "cpu_model": m["cpu"], "num_cpus": m["cpus"],
        "topology": {
            "source": "this system", "allowed_cpus": "0-%d" % (m["cpus"] - 1),
            "nr_allowed_cpus": m["cpus"], "numa_nodes": m["numa"],
            "numa_distances": None,
            "classes": {c: [0, i] for i, c in enumerate(m["classes"])},
        },
    })
    return ctx


def machine_file(m, spread=(0.99, 1.0, 1.01)):
    w = Writer(seed=1, reps=len(spread))
    for policy, factor in (("compact", 1.0), ("spread", 1.5)):
        for t in m["threads"]:
            cls = "same_pu" if t == 1 else m["classes"][-1]
            for variant, v in (("store_always", m["k"] * t * factor),
                               ("read_then_set", 2.0)):
                w.case("has_pinned", variant, HAS_PINNED_DEFAULTS,
                       placement(t, policy, cls), t,
                       lambda r, v=v: round(v * spread[r], 6), aggregates=False)
    # A setting off the defaults, which the fleet table must leave out.
    for t in m["threads"]:
        cls = "same_pu" if t == 1 else m["classes"][-1]
        for variant, v in (("store_always", m["k"] * t / 2), ("read_then_set", 1.0)):
            w.case("has_pinned", variant, dict(HAS_PINNED_DEFAULTS, pin_work=0),
                   placement(t, "compact", cls), t,
                   lambda r, v=v: round(v * spread[r], 6), aggregates=False)
    for cls, values in m["one_way"].items():
        for variant, v in zip(("store_load", "cas"), values):
            w.case("pingpong", variant, {}, placement(2, "pair:" + cls, cls), 2,
                   lambda r, v=v: round(2 * v * spread[r], 6),
                   {"one_way_ns": lambda r, v=v: round(v * spread[r], 6)},
                   aggregates=False)
    return {"context": fleet_context(m), "benchmarks": w.rows}


def write(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--three", action="store_true")
    group.add_argument("--hosts", type=int)
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    if args.three:
        write(os.path.join(args.dir, "laptop.json"), machine_file(FLEET["laptop"]))
        write(os.path.join(args.dir, "xeon.json"), machine_file(FLEET["xeon"]))
        write(os.path.join(args.dir, "xeon-again.json"),
              machine_file(FLEET["xeon"], (0.98, 1.0, 1.02)))
        write(os.path.join(args.dir, "epyc.json"), machine_file(FLEET["epyc"]))
        return
    for i in range(args.hosts):
        m = dict(FLEET["xeon"], host="host-%02d" % i)
        write(os.path.join(args.dir, "host-%02d.json" % i), machine_file(m))


if __name__ == "__main__":
    main()
