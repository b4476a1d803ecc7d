#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# 'bouncelab model' on a machine profile, checked against what the profile
# file says and against the definitions of the printed quantities, so a
# wrong line in the command shows whatever the private costs measured now:
#   - pingpong, two threads: ns/op is a round trip, twice the profile's
#     one-way latency of the class the two CPUs are apart (spread across
#     the two packages: cross_package);
#   - Mops/s is the throughput of all threads: threads * 1000 / ns/op;
#   - before/after is the before variant's ns/op over the after variant's.
# Numbers are printed with two decimals: each check allows that rounding.
#
# usage: test_cli_model.sh BOUNCELAB PROFILE_DIR PYTHON3
set -uo pipefail
bouncelab=$1
profiles=$2
py=$3
profile="$profiles/xeon-e5-2630v4-2s.json"
. "$(dirname "$0")/test_lib.sh"

"$bouncelab" model --profile "$profile" --family pingpong --threads 2 --placement spread \
	>"$tmp/pp" 2>&1 || fail "model --family pingpong failed: $(cat "$tmp/pp")"
"$bouncelab" model --profile "$profile" --family has_pinned --threads 1,4,40 \
	>"$tmp/hp" 2>&1 || fail "model --family has_pinned failed: $(cat "$tmp/hp")"

# A shipped profile by its name is the same machine as by its file.
"$bouncelab" model --profile xeon-e5-2630v4-2s --family pingpong --threads 2 --placement spread \
	>"$tmp/pp-name" 2>&1 || fail "model --profile by name failed: $(cat "$tmp/pp-name")"
cmp -s "$tmp/pp" "$tmp/pp-name" || fail "model --profile xeon-e5-2630v4-2s differs from its file"

"$py" - "$profile" "$tmp/pp" "$tmp/hp" <<'PY' || failures=$((failures + 1))
import json, re, sys

profile = json.load(open(sys.argv[1]))
problems = []
ROW = re.compile(r"^\s+(\d+)\s+(\S+)\s+([0-9.]+)\s+([0-9.]+)\s+(.*)$")


def rows(path):
    text = open(path).read()
    found = [ROW.match(line) for line in text.splitlines()]
    return [(int(m[1]), m[2], float(m[3]), float(m[4]), m[5]) for m in found if m], text


def within(value, lo, hi):
    return lo - 0.005 <= value <= hi + 0.005


pp, _ = rows(sys.argv[2])
cross = profile["one_way_ns"]["cross_package"]["value"]
if len(pp) != 2:
    problems.append(f"pingpong: {len(pp)} rows, expected store_load and cas")
for threads, variant, ns, mops, _ in pp:
    if not within(ns, 2 * cross, 2 * cross):
        problems.append(f"pingpong {variant} spread over 2 packages: {ns} ns/op, expected a round "
                        f"trip, 2 x {cross} ns (the profile's cross_package one-way latency)")

hp, text = rows(sys.argv[3])
if len(hp) < 6:
    problems.append(f"has_pinned: {len(hp)} rows")
ns_of = {}
for threads, variant, ns, mops, _ in pp + hp:
    ns_of[(variant, threads)] = ns
    lo, hi = threads * 1000 / (ns + 0.005), threads * 1000 / max(ns - 0.005, 1e-9)
    if not within(mops, lo, hi):
        problems.append(f"{variant} at {threads} threads: {mops} Mops/s, expected "
                        f"{threads} x 1000 / {ns} ns/op = {threads * 1000 / ns:.2f}")
m = re.search(r"before/after \((\S+) ns/op over (\S+)\): (.*)", text)
if not m:
    problems.append("has_pinned: no before/after line")
else:
    before, after = m[1], m[2]
    for t, r in re.findall(r"(\d+): ([0-9.]+)x", m[3]):
        b, a = ns_of[(before, int(t))], ns_of[(after, int(t))]
        if not within(float(r), (b - 0.005) / (a + 0.005), (b + 0.005) / (a - 0.005)):
            problems.append(f"before/after at {t} threads: {r}x, expected {before} over {after}, "
                            f"{b} / {a} = {b / a:.2f}x")
for p in problems:
    print("FAIL:", p)
print(f"{len(pp) + len(hp)} rows checked")
sys.exit(1 if problems else 0)
PY

# --json: the same machine and numbers as one JSON document. Checked against
# the profile file (its one-way latencies; a pingpong round trip is twice the
# cross_package one when spread) and the gain's definition, since the private
# costs are measured anew on each call.
"$bouncelab" model --profile "$profile" --family pingpong --threads 2 --placement spread --json \
	>"$tmp/pp.json" 2>"$tmp/pp.err" || fail "model --json failed: $(cat "$tmp/pp.err")"
"$bouncelab" model --profile "$profile" --family has_pinned --threads 1,4,40 --json \
	>"$tmp/hp.json" 2>"$tmp/hp.err" || fail "model --json failed: $(cat "$tmp/hp.err")"
"$py" - "$profile" "$tmp/pp.json" "$tmp/hp.json" <<'PY' || failures=$((failures + 1))
import json, sys

profile = json.load(open(sys.argv[1]))
pp, hp = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
problems = []
want = {c: v["value"] for c, v in profile["one_way_ns"].items()}
if pp["machine"]["one_way_ns"] != want:
    problems.append(f"one_way_ns {pp['machine']['one_way_ns']}, the profile says {want}")
if pp["machine"]["name"] != profile["name"] or pp["machine"]["placement"] != "spread":
    problems.append(f"machine {pp['machine']['name']} placement {pp['machine']['placement']}")
for v in pp["families"][0]["variants"]:
    (p,) = v["predictions"]
    if abs(p["ns_per_op"] - 2 * want["cross_package"]) > 1e-6:
        problems.append(f"pingpong {v['variant']}: {p['ns_per_op']} ns/op, expected "
                        f"2 x {want['cross_package']}")
    if abs(p["ops_per_s"] - 2e9 / p["ns_per_op"]) > 1e-3 * p["ops_per_s"]:
        problems.append(f"pingpong {v['variant']}: {p['ops_per_s']} ops/s, expected 2e9 / ns/op")
fam = hp["families"][0]
ns = {(v["variant"], p["threads"]): p["ns_per_op"] for v in fam["variants"]
      for p in v["predictions"]}
if [g["threads"] for g in fam["before_after"]] != [1, 4, 40]:
    problems.append(f"before_after at {fam['before_after']}")
for g in fam["before_after"]:
    r = ns[(fam["before"], g["threads"])] / ns[(fam["after"], g["threads"])]
    if abs(g["gain"] - r) > 1e-4 * r:
        problems.append(f"gain at {g['threads']}: {g['gain']}, expected {r}")
for p in problems:
    print("FAIL:", p)
sys.exit(1 if problems else 0)
PY

# The home: a remote one costs more only where the profile gives the cost
# (remote_home_ns), and the header says where the number comes from.
# pingpong's round trip is two transfers, each remote_home_ns more.
"$py" - "$profile" "$tmp/home.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["remote_home_ns"] = {"value": 40, "source": "a test's number"}
json.dump(p, open(sys.argv[2], "w"))
PY
for prof in "$profile" "$tmp/home.json"; do
	for home in local remote; do
		"$bouncelab" model --profile "$prof" --family pingpong --threads 2 --placement spread \
			--home "$home" --json >"$tmp/home-$home.json" 2>&1 ||
			fail "model --home $home on $prof failed: $(cat "$tmp/home-$home.json")"
	done
	"$bouncelab" model --profile "$prof" --family pingpong --threads 2 --placement spread \
		--home remote >"$tmp/home-text" 2>&1 || fail "model --home remote (text) failed"
	"$py" - "$prof" "$tmp/home-local.json" "$tmp/home-remote.json" "$tmp/home-text" <<'PY' ||
import json, sys
prof = json.load(open(sys.argv[1]))
local, remote = (json.load(open(f)) for f in sys.argv[2:4])
text = open(sys.argv[4]).read()
extra = prof.get("remote_home_ns", {}).get("value", 0)
cross = prof["one_way_ns"]["cross_package"]["value"]
problems = []
for doc, add in ((local, 0), (remote, extra)):
    for v in doc["families"][0]["variants"]:
        (p,) = v["predictions"]
        if abs(p["ns_per_op"] - 2 * (cross + add)) > 1e-6:
            problems.append(f"{doc['machine']['home']}: {v['variant']} {p['ns_per_op']} ns/op, "
                            f"expected 2 x ({cross} + {add})")
if remote["machine"]["remote_home_ns"] != (extra or None):
    problems.append(f"remote_home_ns {remote['machine']['remote_home_ns']}, expected {extra or None}")
want = "a test's number" if extra else "gives no remote_home_ns: predicted as local"
if want not in text:
    problems.append(f"the header does not say '{want}'")
for p in problems:
    print("FAIL:", sys.argv[1], p)
sys.exit(1 if problems else 0)
PY
		failures=$((failures + 1))
done
# A profile's NUMA matrix is read by the one reader --numa-distances uses:
# five nodes take their 25 values (a reader of its own stopped at 16), and
# 24 are refused naming the count expected.
"$py" - "$profile" "$tmp" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["topology"] = "pack:5 numa:1 core:2 pu:1"
rows = [["10" if i == j else "21" for j in range(5)] for i in range(5)]
p["numa_distances"] = ",".join(v for r in rows for v in r)
json.dump(p, open(sys.argv[2] + "/five.json", "w"))
p["numa_distances"] = ",".join(["10"] * 24)
json.dump(p, open(sys.argv[2] + "/five_short.json", "w"))
p = json.load(open(sys.argv[1]))
p["store_buffer"]["value"] = 4.5
json.dump(p, open(sys.argv[2] + "/half_entry.json", "w"))
PY
"$bouncelab" model --profile "$tmp/half_entry.json" --family pingpong >/dev/null 2>"$tmp/half.err"
[ $? = 2 ] && grep -q "store_buffer: 4.5: expected a whole number" "$tmp/half.err" ||
	fail "a store buffer of 4.5 entries: $(cat "$tmp/half.err")"
"$bouncelab" model --profile "$tmp/five.json" --family pingpong --threads 2 --placement spread >/dev/null 2>"$tmp/five.err" ||
	fail "a 5-node profile's 25 NUMA distances refused: $(cat "$tmp/five.err")"
"$bouncelab" model --profile "$tmp/five_short.json" --family pingpong --threads 2 >/dev/null 2>"$tmp/five.err"
[ $? = 2 ] && grep -q "24 values: expected 25" "$tmp/five.err" ||
	fail "24 NUMA distances for 5 nodes: $(cat "$tmp/five.err")"
# --profile this measures a ping-pong per class present: each measured
# class has a positive latency, and pingpong at 2 threads is twice the
# class its two CPUs are apart (the only one measured on a 2-CPU machine).
if [ "$(nproc)" -ge 2 ]; then
	"$bouncelab" model --profile this --family pingpong --threads 2 --json \
		>"$tmp/this" 2>"$tmp/this.err" || fail "model --profile this failed: $(cat "$tmp/this.err")"
	"$py" - "$tmp/this" "$(nproc)" <<'PY' || failures=$((failures + 1))
import json, re, sys

out = json.load(open(sys.argv[1]))
m = out["machine"]
problems = []
if not m["one_way_ns"] or any(not (v > 0) for v in m["one_way_ns"].values()):
    problems.append(f"one_way_ns {m['one_way_ns']}")
# one pair per class present, never a CPU with itself (same_pu)
if "same_pu" in m["one_way_ns"] or (sys.argv[2] == "2" and len(m["one_way_ns"]) != 1):
    problems.append(f"classes measured {sorted(m['one_way_ns'])} on {sys.argv[2]} CPUs")
# each class measured says how: 7 samples of 200 round trips, 7 cold misses
if set(m["one_way_source"]) != set(m["one_way_ns"]) or set(m["cold_miss_ns"]) != set(m["one_way_ns"]):
    problems.append(f"sources {m['one_way_source']}, cold misses {m['cold_miss_ns']} for {m['one_way_ns']}")
for cls, src in m["one_way_source"].items():
    if not re.fullmatch(r"pingpong store_load measured now on CPUs \d+ and \d+, median of 7 samples "
                        r"of 200 round trips; the cold miss the fastest of 7", src):
        problems.append(f"{cls}: source '{src}'")
if any(not (v > 0) for v in m["cold_miss_ns"].values()):
    problems.append(f"cold_miss_ns {m['cold_miss_ns']}")
(v,) = [v for v in out["families"][0]["variants"] if v["variant"] == "store_load"] or [None]
if v and sys.argv[2] == "2" and len(m["one_way_ns"]) == 1:
    (l,) = m["one_way_ns"].values()
    (p,) = v["predictions"]
    # both printed with 6 significant digits (a slow build's one-way of
    # microseconds keeps 2 decimals): each rounded by half a unit of the
    # sixth digit, 2 x l's and p's, at most 2e-5 of l (5e-6 x 2l twice)
    if abs(p["ns_per_op"] - 2 * l) > 0.0015 + 2e-5 * l:
        problems.append(f"pingpong {p['ns_per_op']} ns/op, expected 2 x {l}")
for p in problems:
    print("FAIL: --profile this:", p)
sys.exit(1 if problems else 0)
PY
fi

# --profile this on one CPU (taskset): no two CPUs, so no class measured;
# the command still models the private work, with no transfer to print
# (and frees no pair it does not have).
if command -v taskset >/dev/null; then
	taskset -c 0 "$bouncelab" model --profile this --family counter --threads 1 --json \
		>"$tmp/one" 2>"$tmp/one.err" || fail "model --profile this on one CPU failed: $(cat "$tmp/one.err")"
	"$py" - "$tmp/one" <<'PY' || failures=$((failures + 1))
import json, sys

m = json.load(open(sys.argv[1]))["machine"]
if m["one_way_ns"] or m["cold_miss_ns"] or m["one_way_source"]:
    print(f"FAIL: --profile this on one CPU measured {m['one_way_ns']}, {m['cold_miss_ns']}")
    sys.exit(1)
PY
fi

# A profile's tenure_share and waiter_ns: each out of its range is refused
# in one line naming the field and what was expected (exit 2, nothing on
# stdout); within it, the header says where each comes from.
for bad in "tenure_share 0" "tenure_share 1.5" "waiter_ns -1" "waiter_ns 2000"; do
	set -- $bad
	"$py" - "$profile" "$tmp/bad.json" "$1" "$2" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p[sys.argv[3]] = {"value": float(sys.argv[4]), "source": "a test's number"}
json.dump(p, open(sys.argv[2], "w"))
PY
	rc=0
	"$bouncelab" model --profile "$tmp/bad.json" --family counter --threads 2 \
		>"$tmp/bad.out" 2>"$tmp/bad.err" || rc=$?
	if [ "$rc" -ne 2 ] || [ -s "$tmp/bad.out" ] || [ "$(wc -l <"$tmp/bad.err")" -ne 1 ] ||
	   ! grep -q "$1: expected {\"value\": a number from" "$tmp/bad.err"; then
		fail "$1 = $2: exit $rc, stderr '$(cat "$tmp/bad.err")', expected one line naming $1 and exit 2"
	fi
done
"$py" - "$profile" "$tmp/waiters.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["tenure_share"] = {"value": 0.5, "source": "the tenure's test number"}
p["waiter_ns"] = {"value": 0.25, "source": "the waiters' test number"}
json.dump(p, open(sys.argv[2], "w"))
PY
"$bouncelab" model --profile "$tmp/waiters.json" --family counter --variant shared_atomic \
	--private-ns 3 --threads 2 >"$tmp/waiters.out" 2>&1 || fail "model on a profile with waiter_ns failed"
grep -q "Tenure share of locked ops: 0.5 of a transfer (the tenure's test number)" "$tmp/waiters.out" ||
	fail "the header does not give the tenure share's source: $(head -5 "$tmp/waiters.out")"
grep -q "Each requester queued beyond the next: 0.25 ns more a handoff (the waiters' test number)" \
	"$tmp/waiters.out" || fail "the header does not give the waiters' cost's source"

# --results on what is no results file (a directory, a FIFO, an empty
# file, nothing there): one line naming it, exit 2, nothing on stdout; it
# crashed closing a machine it had never opened.
mkdir "$tmp/dir.json"
mkfifo "$tmp/fifo.json"
: >"$tmp/empty.json"
for bad in "$tmp/dir.json" "$tmp/fifo.json" "$tmp/empty.json" "$tmp/none.json"; do
	rc=0
	timeout 20 "$bouncelab" model --results "$bad" --family counter --threads 2 \
		>"$tmp/bad.out" 2>"$tmp/bad.err" </dev/null || rc=$?
	if [ "$rc" -ne 2 ] || [ -s "$tmp/bad.out" ] || [ "$(wc -l <"$tmp/bad.err")" -ne 1 ] ||
	   ! grep -qF -- "--results" "$tmp/bad.err" || ! grep -qF "$bad" "$tmp/bad.err"; then
		fail "--results $bad: exit $rc, stderr '$(cat "$tmp/bad.err")', expected one line naming it and exit 2"
	fi
done

# --results FILE: each variant's private cost is its 1-thread median in the
# file at the catalogue's defaults (the repetitions' wall_ns / ops, worked
# out here from the rows), unscaled: the 1-thread prediction is that cost.
runs="$(dirname "$0")/data/runs"
"$bouncelab" list --json >"$tmp/list.json" || fail "list --json failed"
for run in "$runs"/epyc-zen3-2026-12-01/default.json "$runs"/epyc-zen5-2026-12-02/default.json; do
	"$bouncelab" model --results "$run" --threads 1,2 --json >"$tmp/results.json" 2>"$tmp/results.err" ||
		fail "model --results $run failed: $(cat "$tmp/results.err")"
	"$bouncelab" model --results "$run" --family counter --threads 2 >"$tmp/results.txt" 2>&1 ||
		fail "model --results $run (text) failed: $(cat "$tmp/results.txt")"
	grep -qF "Private cost per op: each variant's 1-thread median in $run." "$tmp/results.txt" &&
		grep -q "^Cold miss (a load of a line the other CPU modified), [a-z_0-9]*: [0-9.]* ns, as the run measured it.$" \
			"$tmp/results.txt" || fail "model --results $run: header '$(head -4 "$tmp/results.txt")'"
	[ "$(grep -c '^Cold miss' "$tmp/results.txt")" = "$(grep -o ' ns' <<<"$(grep '^One-way transfer per class:' "$tmp/results.txt")" | wc -l)" ] ||
		fail "model --results $run: a cold-miss line per class expected: $(head -6 "$tmp/results.txt")"
	"$py" - "$run" "$tmp/results.json" "$tmp/list.json" <<'PY' || failures=$((failures + 1))
import json, statistics, sys

rows = json.load(open(sys.argv[1]))["benchmarks"]
out = json.load(open(sys.argv[2]))
defaults = {f["family"]: {p["name"]: p["default"] for p in f["parameters"]}
            for f in json.load(open(sys.argv[3]))["families"]}
problems = []
want = {}
for r in rows:
    b = r.get("bouncelab", {})
    if r.get("run_type") != "iteration" or r.get("threads") != 1 or not r.get("ops"):
        continue
    d = defaults.get(b.get("family"), {})
    if any(str(d.get(k)) != str(v) for k, v in b.get("params", {}).items()):
        continue
    want.setdefault((b["family"], b["variant"]), []).append(r["wall_ns"] / r["ops"])
seen = set()
for fam in out["families"]:
    for v in fam["variants"]:
        key = (fam["family"], v["variant"])
        seen.add(key)
        if key not in want:
            problems.append(f"{key}: predicted, but the file has no 1-thread row at the defaults")
            continue
        med = statistics.median(want[key])
        if abs(v["private_ns"] - med) > 1e-5 * med:
            problems.append(f"{key}: private_ns {v['private_ns']}, the rows' median {med}")
        one = [p for p in v["predictions"] if p["threads"] == 1]
        if fam["family"] != "pingpong" and (not one or abs(one[0]["ns_per_op"] - med) > 1e-5 * med):
            problems.append(f"{key}: 1 thread {one}, expected the median {med} unscaled")
for key in sorted(set(want) - seen):
    if key[0] not in ("pingpong", "longterm_check"):
        problems.append(f"{key}: in the file at the defaults, not predicted")
if len(seen) < 10:
    problems.append(f"only {len(seen)} variants predicted")
# a cold miss for each class measured, and for no other
m = out["machine"]
if set(m["cold_miss_ns"]) != set(m["one_way_ns"]) or not all(v > 0 for v in m["cold_miss_ns"].values()):
    problems.append(f"cold misses {m['cold_miss_ns']} for the classes {m['one_way_ns']}")
for p in problems:
    print("FAIL: --results", sys.argv[1], p)
sys.exit(1 if problems else 0)
PY
done

[ "$failures" -eq 0 ] || { echo "$failures failed"; exit 1; }
echo "model CLI: all checks passed"
