#!/usr/bin/env bash
# What the commands do, and their output field by field, against values
# that do not come from the code under test:
# - run --dry-run runs nothing and writes nothing;
# - the watchdog default is what the README says it is;
# - repetitions are interleaved in a random order, round after round;
# - list prints each parameter's range min..max around its default;
# - gup's lines put get before put, and its ratio is first over second;
# - compare's medians, ratios, CIs, p-values and geometric mean match
#   tests/data/compare-expected.tsv, computed by scipy and numpy
#   (tests/oracles/compare_expected.py), not by bouncelab;
# - compare of a Google Benchmark file of aggregates only compares every
#   benchmark on its median aggregate and says so.
#
# usage: test_cli_behaviour.sh BOUNCELAB SOURCE_DIR PYTHON3
set -uo pipefail
bouncelab=$(realpath "$1")
top=$(realpath "$2")
py=$3
. "$(dirname "$0")/test_lib.sh"
cd "$tmp" || exit 1

# ---- run --dry-run: the plan, and nothing else ---------------------------
if ! "$bouncelab" run --dry-run --quick --filter '^has_pinned/nop' --threads 1 \
	--out "$tmp/dry.json" >out 2>err; then
	fail "run --dry-run failed: $(cat err)"
fi
grep -q '^has_pinned/nop' out || fail "run --dry-run did not print the plan: $(cat out)"
[ -e "$tmp/dry.json" ] && fail "run --dry-run wrote a results file"
grep -qE 'interleaved in rounds|results in' err &&
	fail "run --dry-run started the suite: $(cat err)"

# ---- --filter takes the results' row names, and a leading '-' negates ---
# A name copied from results.json or compare.py selects its case (at that
# thread count); "-PATTERN" keeps every case the pattern does not match.
"$bouncelab" run --dry-run --threads 1,2 --filter 'has_pinned/store_always/real_time/threads:2' \
	>out 2>err || fail "a row name as --filter: $(cat err)"
[ "$(grep -c '^has_pinned/store_always ' out)" = 1 ] && grep -q 'threads 2,' out ||
	fail "a row name as --filter did not select that case alone: $(cat out)"
"$bouncelab" run --dry-run --threads 2 --filter '-^(?!pingpong/)' >out 2>err ||
	fail "a negated --filter: $(cat err)"
[ -n "$(grep -v '^[0-9]* cases' out)" ] && ! grep -v '^[0-9]* cases' out | grep -qv '^pingpong/' ||
	fail "'-^(?!pingpong/)' kept something other than pingpong: $(cat out)"

# ---- the watchdog default, as the README states it ----------------------
read -r floor per_min_time < <("$py" - "$top/README.md" <<'EOF'
import re, sys
text = " ".join(open(sys.argv[1]).read().split())
m = re.search(r"default: the larger of (\d+(?:\.\d+)?) and (\d+(?:\.\d+)?) x `--min-time`", text)
print(*(m.groups() if m else ("none", "none")))
EOF
)
if [ "$floor" = none ]; then
	fail "the README no longer states the watchdog default"
else
	for min_time in 0.005 2; do
		want=$("$py" -c "print('%g' % max($floor, $per_min_time * $min_time))")
		"$bouncelab" run --dry-run --quick --filter '^has_pinned/nop' --threads 1 \
			--min-time "$min_time" --out "$tmp/dry.json" >out 2>err
		grep -q "watchdog $want s;" out ||
			fail "--min-time $min_time: expected 'watchdog $want s' (README: the larger of $floor and $per_min_time x --min-time): $(tail -n 1 out)"
	done
fi

# ---- interleaving: each round runs every case once, in a fresh order ----
if "$bouncelab" run --quick --filter '^has_pinned/' --threads 1 --repetitions 4 \
	--min-time 0.001 --out "$tmp/rounds.json" >out 2>err; then
	"$py" - "$tmp/rounds.json" <<'EOF' || fail "interleaving: see above"
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["benchmarks"] if r.get("run_type") == "iteration"]
rounds = {}
for r in rows:  # rows are written in the order they ran
    rounds.setdefault(r["repetition_index"], []).append(r["bouncelab"]["variant"])
orders = [tuple(rounds[k]) for k in sorted(rounds)]
cases = sorted(orders[0])
if len(orders) != 4 or len(cases) < 5 or any(sorted(o) != cases for o in orders):
    sys.exit(f"expected 4 rounds of every case once, got {orders}")
# 5 or more cases in 4 rounds: the same order every time has odds below 1e-6
if len(set(orders)) == 1:
    sys.exit(f"every round ran the cases in the same order: {orders[0]}")
EOF
else
	fail "a run of 4 rounds failed: $(cat err)"
fi

# ---- list: every range min..max, around its default ---------------------
"$bouncelab" list >out 2>err || fail "list failed: $(cat err)"
"$py" - out <<'EOF' || fail "list: see above"
import re, sys
seen = 0
for line in open(sys.argv[1]):
    m = re.match(r"\s+(\w+)\s+default (-?\d+), range (-?\d+)\.\.(-?\d+)", line)
    if not m:
        continue
    name, default, low, high = m.group(1), *map(int, m.groups()[1:])
    seen += 1
    if not low <= default <= high or low == high:
        sys.exit(f"list: {name}: default {default}, range {low}..{high}: expected min..max around the default")
if seen < 3:
    sys.exit(f"list: only {seen} parameters with a range")
EOF
# The has_pinned parameter the kernels' comment documents: 0 to 64 page pins.
grep -qE '^ +pin_work +default 1, range 0\.\.64' out ||
	fail "list: has_pinned's pin_work is not 'default 1, range 0..64': $(grep pin_work out)"

# ---- gup: get then put, and first / second ------------------------------
# One page per call over 16 MiB: 4096 timed get calls against one put call
# of every page, so get and put differ by far more than a microsecond.
if "$bouncelab" gup -a -m 16 -r 4 --summary >out 2>err; then
	"$py" - out <<'EOF' || fail "gup fields: see above"
import re, sys
text = open(sys.argv[1]).read()
lines = re.findall(r"^# PIN_FAST_BENCHMARK: Time: get:(\d+) put:(\d+) us# $", text, re.M)
# the columns: get us mean (+-sd), median, put us, then per-page figures
if not re.search(r"get us: mean \(\+-sd\)\s+median\s+put us", text):
    sys.exit(f"the summary's columns are no longer get mean, median, put:\n{text}")
row = re.search(r"^# \S+\s+\S+\s+\S+\s+([\d.]+) \(\+-[\d.]+%\)\s+([\d.]+)\s+([\d.]+)", text, re.M)
if len(lines) != 4 or not row:
    sys.exit(f"expected 4 timing lines and a summary row:\n{text}")
get = sum(int(g) for g, _ in lines) / 4
put = sum(int(p) for _, p in lines) / 4
mean_get, mean_put = float(row.group(1)), float(row.group(3))
# The lines truncate to whole microseconds: within 1 us of the means.
if abs(mean_get - mean_put) < 3:
    sys.exit(f"get {mean_get} and put {mean_put} us too close to tell apart")
if not (0 <= mean_get - get < 1.01 and 0 <= mean_put - put < 1.01):
    sys.exit(f"lines say get {get}, put {put} us; the summary's means are get {mean_get}, put {mean_put}")
EOF
else
	fail "gup -a -m 16 -r 4 --summary failed: $(cat err)"
fi
if "$bouncelab" gup -a -m 4 -r 3 --variant store_always,read_then_set --summary >out 2>err; then
	"$py" - out <<'EOF' || fail "gup ratio: see above"
import re, sys
text = open(sys.argv[1]).read()
mean = {m.group(1): float(m.group(2)) for m in
        re.finditer(r"^# (\w+)\s+shared\s+\S+\s+([\d.]+) \(\+-", text, re.M)}
r = re.search(r"^# store_always / read_then_set, shared: ([\d.]+)x by mean get time", text, re.M)
if not r or set(mean) != {"store_always", "read_then_set"}:
    sys.exit(f"expected two rows and a store_always / read_then_set ratio:\n{text}")
want = mean["store_always"] / mean["read_then_set"]
if abs(float(r.group(1)) - want) > 0.006 + 0.005 * want:
    sys.exit(f"ratio {r.group(1)}x, but the rows' means give {want:.3f}x (store_always over read_then_set)")
EOF
else
	fail "gup --variant store_always,read_then_set failed: $(cat err)"
fi

# ---- compare, against scipy and numpy -----------------------------------
if "$bouncelab" compare "$top/tests/data/compare-a.json" "$top/tests/data/compare-b.json" \
	>out 2>err; then
	"$py" - out "$top/tests/data/compare-expected.tsv" <<'EOF' || fail "compare: see above"
import re, sys
text = open(sys.argv[1]).read()
want, rows = {}, {}
for line in open(sys.argv[2]):
    if line.startswith("#"):
        continue
    f = line.rstrip("\n").split("\t")
    want[f[0]] = [float(x) for x in f[1:]]
# the name as results.json spells it: FAMILY/VARIANT/.../threads:N
for m in re.finditer(r"^\| (\w+)/(\w+)/\S*?threads:(\d+)(?: \[[^]|]*\])? \| ([\d.]+) \| ([\d.]+) \| "
                     r"([\d.]+)x \(95% CI ([\d.]+)–([\d.]+)\) \| ([^|]+) \|(?: ([^|]+) \|)?$",
                     text, re.M):
    rows[f"{m.group(1)}/{m.group(2)}/{m.group(3)}"] = m.groups()[3:]
bad = []

def near(what, got, expected, tol):
    if abs(got - expected) > tol:
        bad.append(f"{what}: printed {got}, expected {expected:.6g}")

for case in ("has_pinned/store_always/1", "has_pinned/read_then_set/1", "counter/shared_atomic/2"):
    if case not in rows:
        bad.append(f"{case}: no row")
        continue
    ma, mb, ratio, lo, hi, p = want[case]
    got = rows[case]
    # three significant digits; ratios two decimals
    near(f"{case} A", float(got[0]), ma, 0.006 * ma)
    near(f"{case} B", float(got[1]), mb, 0.006 * mb)
    near(f"{case} B/A", float(got[2]), ratio, 0.0051)
    # 2000 resamples here against 200,000 there: a little spread
    near(f"{case} CI low", float(got[3]), lo, 0.02)
    near(f"{case} CI high", float(got[4]), hi, 0.02)
    text_p = got[5].strip()
    if text_p == "< 0.001":
        if p >= 0.001:
            bad.append(f"{case} p: printed < 0.001, expected {p:.4g}")
    else:
        near(f"{case} p", float(text_p), p, 0.00051 if p < 0.0095 else 0.0051)
    # The verdict, where there is one: a side only when the CI excludes 1
    # and p < 0.05 (not judged where the independent values sit on an edge).
    if got[6] and min(abs(lo - 1), abs(hi - 1)) > 0.01 and abs(p - 0.05) > 0.005:
        verdict = ("B faster" if hi < 1 and p < 0.05 else
                   "B slower" if lo > 1 and p < 0.05 else "within noise")
        if got[6].strip() != verdict:
            bad.append(f"{case}: verdict '{got[6].strip()}', expected '{verdict}'")
g = re.search(r"^Geometric mean of B/A over (\d+) benchmarks: ([\d.]+)x$", text, re.M)
if not g:
    bad.append("no geometric mean line")
else:
    near("geometric mean", float(g.group(2)), want["geomean"][0], 0.0051)
    near("benchmarks compared", int(g.group(1)), want["compared"][0], 0)
n = re.search(r"^Not compared: (\d+) benchmarks? only in A, (\d+) only in B\.$", text, re.M)
if not n or int(n.group(1)) != want["only_in_a"][0] or int(n.group(2)) != want["only_in_b"][0]:
    bad.append("the not-compared line is wrong or missing")
if bad:
    print(text)
    sys.exit("\n".join(bad))
EOF
else
	fail "compare of the fixtures failed: $(cat err)"
fi

# ---- compare's counts agree with their nouns -------------------------------
# B cut down to one and to two of the benchmarks A has (A has four): the
# geometric mean is over "1 benchmark" and "2 benchmarks", the rest are
# "3 benchmarks" and "2 benchmarks" only in A; rows say "1 thread" and
# "2 threads".
for keep in 1 2; do
	"$py" - "$top/tests/data/compare-b.json" "b$keep.json" "$keep" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
names = ["has_pinned/store_always/real_time/threads:1", "counter/shared_atomic/real_time/threads:2"]
keep = names[:int(sys.argv[3])]
doc["benchmarks"] = [b for b in doc["benchmarks"] if b.get("run_name") in keep]
json.dump(doc, open(sys.argv[2], "w"))
EOF
	if ! "$bouncelab" compare "$top/tests/data/compare-a.json" "b$keep.json" >out 2>err; then
		fail "compare with $keep benchmarks of B failed: $(cat err)"
		continue
	fi
	case $keep in
	1) want_mean="over 1 benchmark: "
	   want_rest="Not compared: 3 benchmarks only in A, 0 only in B."
	   want_row="| has_pinned/store_always/real_time/threads:1 |" ;;
	2) want_mean="over 2 benchmarks: "
	   want_rest="Not compared: 2 benchmarks only in A, 0 only in B."
	   want_row="| counter/shared_atomic/real_time/threads:2 |" ;;
	esac
	for want in "Geometric mean of B/A $want_mean" "$want_rest" "$want_row"; do
		grep -qF -- "$want" out || fail "compare with $keep of B: no '$want' in: $(cat out)"
	done
done
if "$bouncelab" compare "$top/tests/data/compare-a.json" "$top/tests/data/compare-b.json" >out 2>err; then
	grep -qxF "Not compared: 1 benchmark only in A, 0 only in B." out ||
		fail "compare of the fixtures: one benchmark only in A is not said so: $(cat out)"
fi

# ---- compare, a file of Google Benchmark aggregates only -----------------
# gbench-repetitions.json and gbench-aggregates-only.json are two runs of
# one Google Benchmark program (8 benchmarks, 5 repetitions), the second
# with --benchmark_report_aggregates_only. Every benchmark is compared, on
# the median Google Benchmark wrote, and compare says so before the table.
for pair in "gbench-repetitions.json gbench-aggregates-only.json" \
	"gbench-aggregates-only.json gbench-aggregates-only.json"; do
	set -- $pair
	if ! "$bouncelab" compare "$top/tests/data/$1" "$top/tests/data/$2" >out 2>err; then
		fail "compare $pair failed: $(cat err)"
		continue
	fi
	"$py" - out "$top/tests/data/$1" "$top/tests/data/$2" <<'EOF' || fail "compare $pair: see above"
import json, re, statistics, sys
text = open(sys.argv[1]).read()


def medians(path):
    """Per benchmark: the median of its repetitions, else its median aggregate."""
    reps, aggs = {}, {}
    for r in json.load(open(path))["benchmarks"]:
        if r.get("run_type") == "aggregate":
            if r["aggregate_name"] == "median":
                aggs[r["run_name"]] = r["real_time"]
        else:
            reps.setdefault(r["run_name"], []).append(r["real_time"])
    if reps:
        return {k: statistics.median(v) for k, v in reps.items()}, False
    return aggs, True


a, a_aggs = medians(sys.argv[2])
b, b_aggs = medians(sys.argv[3])
bad = []
for side, values, only in (("A", a, a_aggs), ("B", b, b_aggs)):
    said = re.search(r"^   %s has no per-repetition rows for (\d+) benchmarks" % side, text, re.M)
    if only and (not said or int(said.group(1)) != len(values)):
        bad.append(f"{side}: compare does not say it used the aggregates")
    if not only and said:
        bad.append(f"{side}: compare says aggregates where there are repetitions")
for name in a:
    m = re.search(r"^\| %s \| ([\d.]+) \| ([\d.]+) \| ([\d.]+)x "
                  r"\(no CI: aggregates only\) \| n/a \| untested \(aggregates only\) \|$"
                  % re.escape(name), text, re.M)
    if not m:
        bad.append(f"{name}: no row, or not marked as compared on aggregates")
        continue
    for got, want, what in ((m.group(1), a[name], "A"), (m.group(2), b[name], "B")):
        if abs(float(got) - want) > 0.006 * want:
            bad.append(f"{name} {what}: printed {got}, expected {want:.4g}")
    if abs(float(m.group(3)) - b[name] / a[name]) > 0.0051:
        bad.append(f"{name} B/A: printed {m.group(3)}, expected {b[name] / a[name]:.3f}")
if len(a) != 8:
    bad.append(f"{len(a)} benchmarks in A, expected the fixture's 8")
if not re.search(r"^Geometric mean of B/A over %d benchmarks:" % len(a), text, re.M):
    bad.append("the geometric mean is not over every benchmark")
if "Not compared" in text:
    bad.append("benchmarks dropped")
if bad:
    print(text)
    sys.exit("\n".join(bad))
EOF
done

echo "$failures failures"
[ "$failures" -eq 0 ]
