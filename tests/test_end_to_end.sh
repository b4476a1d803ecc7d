#!/usr/bin/env bash
# End to end: `run --quick` writes valid Google Benchmark JSON with our
# counters and facts, and `report` turns it into markdown.
set -euo pipefail
bouncelab=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$bouncelab" run --quick --filter '^has_pinned/' --out "$tmp/run/results.json" \
	>"$tmp/stdout" 2>"$tmp/stderr"
grep -q '^\[1/' "$tmp/stderr" || { echo "no progress lines on stderr"; exit 1; }
grep -q 'median ns per op' "$tmp/stdout" || { echo "no summary on stdout"; exit 1; }

python3 - "$tmp/run/results.json" <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1]))
ctx = doc["context"]
for key in ("bouncelab_version", "cpu_model", "hypervisor", "kernel_release",
            "num_cpus", "library_build_type"):
    assert key in ctx, f"context lacks {key}"
# What the CPU says it is (tests/test_cpu_id.c checks the decoding).
if os.uname().machine in ("x86_64", "i686"):
    for key in ("vendor", "family", "model", "stepping", "signature", "microarchitecture"):
        assert key in ctx["cpu"], f"context.cpu lacks {key}"
rows = doc["benchmarks"]
reps = [r for r in rows if r["run_type"] == "iteration"]
aggregates = [r for r in rows if r["run_type"] == "aggregate"]
assert reps and len(reps) + len(aggregates) == len(rows), "expected repetitions and aggregates only"
# Google Benchmark's four aggregates of each case run twice or more, after
# every repetition, each naming its case
cases = {r["run_name"] for r in reps}
assert rows[len(reps):] == aggregates, "aggregates before a repetition"
assert sorted(r["name"] for r in aggregates) == sorted(
    c + "_" + s for c in cases for s in ("mean", "median", "stddev", "cv")), "aggregate names"
variants = set()
for r in reps:
    assert not r.get("error_occurred"), r
    assert r["name"].startswith("has_pinned/"), r["name"]
    facts = r["bouncelab"]
    variants.add(facts["variant"])
    assert facts["family"] == "has_pinned"
    assert r["ops"] > 0 and r["wall_ns"] > 0
    # ns_per_op is the mean over threads of each thread's wall / its ops.
    per_thread_ops = r["ops"] / r["threads"]
    assert abs(r["ns_per_op"] - r["wall_ns"] / per_thread_ops) <= 1e-6 * r["ns_per_op"]
    assert len(facts["placement"]["cpus"]) == r["threads"]
assert variants == {"store_always", "read_then_set", "set_bit_always",
                    "test_then_set_bit", "test_and_set_bit", "no_flag", "nop"}, variants
# Six repetitions of each case, as --quick asks (the fewest rounds a
# claim's paired test can decide on), numbered 0..5, each with the
# iteration count the first one settled on.
names = {r["run_name"] for r in reps}
for n in names:
    mine = [r for r in reps if r["run_name"] == n]
    assert sorted(r["repetition_index"] for r in mine) == list(range(6)), n
    assert all(r["repetitions"] == 6 for r in mine), n
    assert len({r["iterations"] for r in mine}) == 1, n
# The settings the family's claims name run too (already_set=0), and
# only those beside the defaults.
settings = {r["bouncelab"]["params"]["already_set"] for r in reps}
assert settings == {0, 100}, settings
assert {r["bouncelab"]["params"]["pin_work"] for r in reps} == {1}
# Interleaved by rounds: every case's first repetition comes before any
# case's second.
order = [r["repetition_index"] for r in reps]
assert order == sorted(order), order
PY

# --console: a row for every round, the machine's context once, and one
# name per case in every round (no "iterations:N" from the count the
# later rounds reuse). tests/test_console.py checks the values.
"$bouncelab" run --quick --filter '^has_pinned/nop$' --threads 1 --console \
	--out "$tmp/console/results.json" >"$tmp/stdout" 2>"$tmp/stderr"
[ "$(grep -c '^has_pinned/nop/real_time/threads:1 ' "$tmp/stdout")" -eq 6 ] ||
	{ echo "--console: expected 6 rows named has_pinned/nop/real_time/threads:1"; exit 1; }
[ "$(grep -c '^Run on' "$tmp/stderr")" -eq 1 ] ||
	{ echo "--console: expected the context once"; exit 1; }

"$bouncelab" report "$tmp/run/results.json" -o "$tmp/report" >/dev/null
grep -q '^## has_pinned' "$tmp/report/report.md"
grep -q '| store_always |' "$tmp/report/report.md"
if [ "$(uname -m)" = x86_64 ]; then
	grep -Eq '^\| CPU \| .*: [A-Za-z]+ family [0-9]+ model [0-9]+ stepping [0-9]+ \(' \
		"$tmp/report/report.md" || { echo "report: no CPU identity in the environment"; exit 1; }
fi
echo "end to end: ok"
