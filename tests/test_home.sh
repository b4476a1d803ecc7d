#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The shared state's home on this machine, end to end:
#   - run --home local records, in every row, the node /sys gives thread
#     0's CPU, no thread away from it, and names the case /home:local;
#   - a run without --home records the node too, as policy "default",
#     and keeps its names as they were;
#   - the report heads the homed run's table with its home and node, and
#     the default run's without one;
#   - a results file whose home is malformed is refused (exit 2).
# Where the line lives on several nodes: scripts/numa-guest.
#
# usage: test_home.sh BOUNCELAB PYTHON3
set -uo pipefail
bouncelab=$1
py=$2
. "$(dirname "$0")/test_lib.sh"

args=(--filter '^counter/shared_atomic' --threads 1 --repetitions 1 --min-time 0.001
      --counters none)
"$bouncelab" run "${args[@]}" --home local --out "$tmp/local/results.json" \
	>"$tmp/local.log" 2>&1 || fail "run --home local failed: $(cat "$tmp/local.log")"
"$bouncelab" run "${args[@]}" --out "$tmp/default/results.json" \
	>"$tmp/default.log" 2>&1 || fail "run without --home failed: $(cat "$tmp/default.log")"

"$py" - "$tmp/local/results.json" "$tmp/default/results.json" <<'PY' || failures=$((failures + 1))
import glob, json, os, sys

def node_of(cpu):
    nodes = glob.glob(f"/sys/devices/system/cpu/cpu{cpu}/node*")
    return int(os.path.basename(nodes[0])[4:]) if nodes else 0

problems = []
for path, policy in ((sys.argv[1], "local"), (sys.argv[2], "default")):
    rows = [r for r in json.load(open(path))["benchmarks"] if "bouncelab" in r]
    if not rows:
        problems.append(f"{path}: no rows")
    for r in rows:
        home = r["bouncelab"]["home"]
        want = node_of(r["bouncelab"]["placement"]["cpus"][0])
        # A build without hwloc knows no CPU's node: threads_away null.
        if home not in ({"policy": policy, "node": want, "threads_away": 0},
                        {"policy": policy, "node": want, "threads_away": None}):
            problems.append(f"{r['name']}: home {home}, expected {policy} on node {want}")
        if ("/home:local" in r["name"]) != (policy == "local"):
            problems.append(f"{r['name']}: the name does not say its home")
for p in problems:
    print("FAIL:", p)
sys.exit(1 if problems else 0)
PY

"$bouncelab" report "$tmp/local/results.json" -o "$tmp/local/report" >/dev/null 2>&1 ||
	fail "report on the homed run failed"
grep -q 'placement compact, home local (node [0-9]*)' "$tmp/local/report/report.md" ||
	fail "the homed run's report does not head its table with its home"
"$bouncelab" report "$tmp/default/results.json" -o "$tmp/default/report" >/dev/null 2>&1 ||
	fail "report on the default run failed"
grep -q 'home ' "$tmp/default/report/report.md" &&
	fail "the default run's report names a home nobody asked for"

"$py" - "$tmp/local/results.json" "$tmp/bad.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for r in doc["benchmarks"]:
    if "bouncelab" in r:
        r["bouncelab"]["home"]["node"] = "zero"
json.dump(doc, open(sys.argv[2], "w"))
PY
"$bouncelab" report "$tmp/bad.json" -o "$tmp/bad" >"$tmp/bad.log" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q 'bouncelab.home.node' "$tmp/bad.log" &&
	[ "$(wc -l <"$tmp/bad.log")" -eq 1 ] ||
	fail "a malformed home: exit $rc, $(cat "$tmp/bad.log"), expected exit 2 and one line naming bouncelab.home.node"

[ "$failures" -eq 0 ] || { echo "$failures failed"; exit 1; }
echo "home: all checks passed"
