#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The suite a run plans, against a second plan made here from the rules.

`bouncelab run --dry-run` prints every case it would run on a synthetic
machine (HWLOC_SYNTHETIC); this test makes the same plan from what
`bouncelab list --json` says of the catalogue and the rules the README
and run --help give:

  threads     1, 2, 4, ... below the allowed CPUs, then the allowed CPUs
              (12: 1 2 4 8 12; 8: 1 2 4 8; 1: 1), or --threads as given;
              a family with a thread range runs only the counts inside it
  parameters  every value of --param, else of the parameter's sweep list,
              else its default; every combination
  variants    every one
  names       FAMILY/VARIANT, then /NAME:VALUE for each parameter away
              from its default (a choice by its name), /placement:P when
              several placements are swept
  cpus        compact: the first T CPUs
  filter      a PCRE2 pattern on the name (Python's re for these simple
              ones); "-PATTERN" keeps the others

and the summary line's counts: cases, repetitions, seconds, and the
watchdog, the larger of 10 s and 20 x --min-time.

usage: test_suite_plan.py BOUNCELAB HAVE_HWLOC(0|1)
"""
import itertools
import json
import os
import re
import subprocess
import sys
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

bouncelab, have_hwloc = os.path.abspath(sys.argv[1]), sys.argv[2] == "1"
bad = []


def check(ok, what):
    if not ok:
        bad.append(what)


def catalogue():
    p = subprocess.run([bouncelab, "list", "--json"], capture_output=True, text=True)
    return json.loads(p.stdout)["families"]


def default_threads(cpus):
    out, t = [], 1
    while t < cpus:
        out.append(t)
        t *= 2
    return out + [cpus]


def param_values(family, param, overrides):
    key = f"{family['family']}.{param['name']}"
    if key in overrides:
        return overrides[key]
    if param.get("suite"):
        return param["suite"].split(",")
    return [str(param["default"])]


def plan(families, cpus, threads=None, overrides=None, placements=None, keep=None):
    """(name, threads, cpus) of every case, in no particular order."""
    overrides = overrides or {}
    placements = placements or ["compact"]
    counts = threads or default_threads(cpus)
    cases = set()
    for f in families:
        params = f["parameters"]
        lists = [param_values(f, p, overrides) for p in params]
        for values in itertools.product(*lists):
            suffix = "".join(f"/{p['name']}:{v}" for p, v in zip(params, values)
                             if v != str(p["default"]))
            for v in f["variants"]:
                for t in counts:
                    if f.get("min_threads") and t < f["min_threads"]:
                        continue
                    if f.get("max_threads") and t > f["max_threads"]:
                        continue
                    for pl in placements:
                        name = f"{f['family']}/{v['variant']}{suffix}"
                        if len(placements) > 1:
                            name += f"/placement:{pl}"
                        if keep and not keep(name):
                            continue
                        cases.add((name, t, ",".join(str(c) for c in range(t))))
    return cases


def dry_run(spec, *args):
    env = dict(os.environ, HWLOC_SYNTHETIC=spec)
    p = subprocess.run([bouncelab, "run", "--dry-run", *args], capture_output=True, text=True,
                       env=env, timeout=120)
    rows = set()
    for m in re.finditer(r"^(\S+)\s+threads (\d+), cpus ([\d,]+)$", p.stdout, re.M):
        rows.add((m.group(1), int(m.group(2)), m.group(3)))
    summary = re.search(r"^(\d+) cases? x (\d+) repetitions? of ([\d.]+) s, watchdog ([\d.]+) s;",
                        p.stdout, re.M)
    return p, rows, summary


def compare(what, got, want):
    if got != want:
        extra, missing = sorted(got - want)[:5], sorted(want - got)[:5]
        bad.append(f"{what}: {len(got)} cases, expected {len(want)}; "
                   f"not expected {extra}; missing {missing}")


def main():
    if not have_hwloc:
        print("skip: this build has no hwloc to read synthetic topologies")
        return 77
    families = catalogue()
    for spec, cpus in (("pack:2 core:3 pu:2", 12), ("pack:1 core:8 pu:1", 8),
                       ("pack:1 core:3 pu:1", 3)):
        p, rows, summary = dry_run(spec)
        want = plan(families, cpus)
        check(p.returncode == 0, f"{spec}: exit {p.returncode}: {p.stderr}")
        compare(f"the default suite on {cpus} CPUs", rows, want)
        check(summary is not None and int(summary.group(1)) == len(want) and
              summary.group(2) == "9" and float(summary.group(3)) == 0.02 and
              float(summary.group(4)) == 10,
              f"{cpus} CPUs: summary {summary and summary.groups()}, expected "
              f"{len(want)} cases x 9 of 0.02 s, watchdog 10 s")

    # --threads, --param, two placements, a filter
    p, rows, summary = dry_run("pack:1 core:6 pu:1", "--threads", "3,1,6",
                               "--param", "has_pinned.pin_work=0,1,5",
                               "--param", "counter.batch=32,1",
                               "--placement", "compact,spread",
                               "--filter", "^(has_pinned|counter)/",
                               "--repetitions", "3", "--min-time", "0.75")
    want = plan([f for f in families if f["family"] in ("has_pinned", "counter")], 6,
                threads=[3, 1, 6],
                overrides={"has_pinned.pin_work": ["0", "1", "5"], "counter.batch": ["32", "1"]},
                placements=["compact", "spread"])
    check(p.returncode == 0, f"swept run: exit {p.returncode}: {p.stderr}")
    # spread on one package of six cores is compact's CPUs too
    compare("threads 3,1,6, two parameters swept, two placements", rows, want)
    check(summary is not None and int(summary.group(1)) == len(want) and
          summary.group(2) == "3" and float(summary.group(3)) == 0.75 and
          float(summary.group(4)) == 15,
          f"swept run: summary {summary and summary.groups()}, expected "
          f"{len(want)} x 3 of 0.75 s, watchdog 15 s")

    # --quick: each parameter at its default and at the values the
    # lessons' claims name, written out here from kernels/*.c's claims:
    # has_pinned's already_set=0, longterm_check's nr_pages=1 (its only
    # claim, the first of its list), false_sharing's update=locked and
    # update=plain.
    p, rows, summary = dry_run("pack:1 core:2 pu:1", "--quick",
                               "--filter", "^(has_pinned|longterm_check|false_sharing)/")
    chosen = [f for f in families if f["family"] in ("has_pinned", "longterm_check",
                                                      "false_sharing")]
    want = plan(chosen, 2, overrides={"has_pinned.already_set": ["100", "0"],
                                      "longterm_check.nr_pages": ["64", "1"],
                                      "false_sharing.update": ["locked", "plain"]})
    check(p.returncode == 0, f"quick run: exit {p.returncode}: {p.stderr}")
    compare("--quick: defaults and the claims' settings", rows, want)
    check(summary is not None and int(summary.group(1)) == len(want) and
          summary.group(2) == "6" and float(summary.group(3)) == 0.005,
          f"quick run: summary {summary and summary.groups()}, expected "
          f"{len(want)} x 6 of 0.005 s")

    # "-PATTERN": every case but those
    p, rows, _ = dry_run("pack:1 core:2 pu:1", "--filter", "-^(gup|longterm_check|has_pinned)/")
    want = plan(families, 2, keep=lambda n: not re.match(r"(gup|longterm_check|has_pinned)/", n))
    check(p.returncode == 0, f"negated filter: exit {p.returncode}: {p.stderr}")
    compare("a negated filter on 2 CPUs", rows, want)

    # one CPU: pingpong needs two, so asking for it alone is refused
    p, rows, _ = dry_run("pack:1 core:1 pu:1", "--filter", "^pingpong/")
    check(p.returncode == 2 and "pingpong runs with 2 to 2 threads, not 1" in p.stderr,
          f"pingpong on one CPU: exit {p.returncode}: {p.stderr}")
    p, rows, _ = dry_run("pack:1 core:1 pu:1", "--filter", "^counter/shared_atomic$")
    compare("one CPU, one case", rows, {("counter/shared_atomic", 1, "0")})
    # nothing left: each reason said, exit 2
    for args, want in (
            (["--filter", "^nothing$"], "filter '^nothing$': no benchmark matches"),
            (["--filter", "^counter/shared_atomic$", "--placement", "pair:package",
              "--threads", "1"], "placement 'pair:package' places exactly 2 threads, not 1")):
        p, rows, _ = dry_run("pack:1 core:2 pu:1", *args)
        check(p.returncode == 2 and want in p.stderr and not rows,
              f"{args}: exit {p.returncode}, {p.stderr.strip()!r}, expected 2 and {want!r}")
    # a pair placement runs the 2-thread case only
    p, rows, _ = dry_run("pack:1 core:2 pu:1", "--filter", "^counter/shared_atomic$",
                         "--placement", "pair:package", "--threads", "1,2")
    compare("pair:package at 1 and 2 threads", rows, {("counter/shared_atomic", 2, "0,1")})
    # a home asked for ends each name, after the parameters and placement
    p, rows, _ = dry_run("pack:2 numa:1 core:2 pu:1", "--filter", "^has_pinned/nop/",
                         "--threads", "2", "--param", "has_pinned.pin_work=0",
                         "--param", "has_pinned.already_set=100",
                         "--placement", "compact,spread", "--home", "remote")
    compare("--home remote", rows, {
        ("has_pinned/nop/pin_work:0/placement:compact/home:remote", 2, "0,1"),
        ("has_pinned/nop/pin_work:0/placement:spread/home:remote", 2, "0,2")})
    if bad:
        print("\n".join(bad))
        return 1
    print("every plan is the one made here")
    return 0


if __name__ == "__main__":
    sys.exit(main())
