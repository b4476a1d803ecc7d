#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Google Benchmark's own compare.py (Debian's libbenchmark-tools) on two
bouncelab runs: it must find every case's aggregate rows, and its median
row must carry the median the report computes from the repetitions, and
its mean, standard deviation and cv the ones numpy gives for them (an
independent oracle, not our formula again).

usage: test_compare_py.py BOUNCELAB
Skipped (77) where compare.py or its scipy is missing.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

COMPARE = "/usr/share/benchmark/compare.py"


def python_with_scipy():
    for python in ("/usr/bin/python3", sys.executable):
        if python and os.path.exists(python) and subprocess.run(
                [python, "-c", "import scipy, numpy"], capture_output=True).returncode == 0:
            return python
    return None


def main():
    bouncelab = os.path.abspath(sys.argv[1])
    python = python_with_scipy()
    if not os.path.exists(COMPARE) or not python:
        print("compare.py or scipy missing: install libbenchmark-tools and python3-scipy")
        return 77
    try:
        import numpy
    except ImportError:  # this interpreter has none: the one compare.py runs on has
        os.execv(python, [python] + sys.argv)
    failures = 0

    def check(ok, what):
        nonlocal failures
        print(("ok: " if ok else "FAIL: ") + what)
        failures += not ok

    tmp = tempfile.mkdtemp(prefix="bouncelab-compare-py.")
    try:
        files = []
        for name in ("a", "b"):
            path = os.path.join(tmp, name + ".json")
            subprocess.run([bouncelab, "run", "--quick", "--filter", "^counter/shared_atomic",
                            "--out", path], check=True, stdout=subprocess.DEVNULL)
            files.append(path)
        dump = os.path.join(tmp, "diff.json")
        out = subprocess.run([python, COMPARE, "--no-color", "--dump_to_json", dump, "-a",
                              "benchmarks", *files], capture_output=True, text=True)
        check(out.returncode == 0, "compare.py -a exits 0: " + out.stderr.strip()[-200:])
        if out.returncode:
            return 1
        diff = json.load(open(dump))
        doc = json.load(open(files[0]))
        reps = {}
        for row in doc["benchmarks"]:
            if row.get("run_type") == "iteration":
                reps.setdefault(row["run_name"], []).append(row)
        check(bool(reps), "the run wrote repetitions")
        by_name = {d["name"]: d for d in diff}
        for run_name, rows in reps.items():
            times = numpy.array([r["real_time"] for r in rows])
            expect = {
                "median": numpy.median(times),
                "mean": numpy.mean(times),
                "stddev": numpy.std(times, ddof=1),
                "cv": numpy.std(times, ddof=1) / numpy.mean(times),
            }
            for stat, value in expect.items():
                d = by_name.get(run_name + "_" + stat)
                if not d:
                    check(False, f"compare.py shows {run_name}_{stat}")
                    continue
                got = d["measurements"][0]["real_time"]
                check(abs(got - value) <= 1e-9 * max(1, abs(value)),
                      f"{run_name}_{stat}: compare.py's old real_time {got:.6g}, numpy {value:.6g}")
            check(run_name in by_name and by_name[run_name]["utest"] != {},
                  f"{run_name}: compare.py's U test over the repetitions")

        # A failed repetition: a journal of the first run's rows and one
        # that failed its verify, recovered by --resume. It goes beside
        # the benchmarks, so compare.py shows no -100% row for it and
        # counts only the good repetitions in its U test.
        reps_a = [r for r in doc["benchmarks"] if r.get("run_type") == "iteration"]
        failed = dict(reps_a[0], error_occurred=True, real_time=0.0, cpu_time=0.0,
                      error_message="verify failed: a test's failed repetition")
        stopped = os.path.join(tmp, "stopped.json")
        with open(stopped + ".journal", "w") as j:
            j.write(json.dumps({"bouncelab_journal": 1, "total": len(reps_a) + 1,
                                "context": doc["context"]}) + "\n")
            for row in reps_a + [failed]:
                j.write(json.dumps(row) + "\n")
        subprocess.run([bouncelab, "run", "--resume", stopped], check=True,
                       stderr=subprocess.DEVNULL)
        recovered = json.load(open(stopped))
        check(not any(r.get("error_occurred") for r in recovered["benchmarks"]),
              "a failed repetition is not among the benchmarks")
        check([r.get("error_message") for r in recovered.get("failed_repetitions", [])] ==
              [failed["error_message"]], "it is in failed_repetitions, with its message")
        out = subprocess.run([python, COMPARE, "--no-color", "--dump_to_json", dump,
                              "benchmarks", stopped, files[1]], capture_output=True, text=True)
        check(out.returncode == 0, "compare.py reads the recovered file: " + out.stderr[-200:])
        rows = json.load(open(dump)) if out.returncode == 0 else []
        times = [m["real_time"] for d in rows if d["name"] == failed["name"]
                 for m in d["measurements"]]
        check(times and all(t > 0 for t in times) and len(times) == len(reps[failed["run_name"]]),
              f"compare.py pairs {len(times)} good repetitions of {failed['name']}, none at 0 ns")

        # The report's median of the same case is the aggregate's.
        outdir = os.path.join(tmp, "report")
        subprocess.run([bouncelab, "report", files[0], "-o", outdir], check=True,
                       stdout=subprocess.DEVNULL)
        text = open(os.path.join(outdir, "details.md")).read()
        for run_name, rows in reps.items():
            median = numpy.median([r["real_time"] for r in rows])
            # Three significant digits, and whole numbers from 100 up: a
            # loaded machine's median of 1019 ns reads "1019", not
            # "1.02e+03".
            shown = "%.0f" % median if median >= 99.95 else "%.3g" % median
            check(shown in text, f"{run_name}: the report shows the median {shown}")
    finally:
        shutil.rmtree(tmp)
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
