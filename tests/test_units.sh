#!/usr/bin/env bash
# One latency unit everywhere: pingpong's figure is one-way ns in the run's
# summary and in the JSON's real_time (what compare.py reads), and every
# other family's real_time is bouncelab's ns/op per thread, not Google
# Benchmark's ns/op divided by the thread count.
#
# The oracle is the row's own counters: one_way_ns and ns_per_op come from
# the harness's ops and wall_ns, apart from the real_time and summary code.
set -euo pipefail
bouncelab=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ "$(nproc)" -lt 2 ]; then
	echo "SKIP: pingpong needs 2 CPUs, this process may use $(nproc)"
	exit 77
fi
"$bouncelab" run --quick --threads 2 --filter '^(pingpong/store_load|has_pinned/store_always)$' \
	--out "$tmp/results.json" >"$tmp/stdout" 2>"$tmp/stderr"

python3 - "$tmp/results.json" "$tmp/stdout" <<'PY'
import json, re, statistics, sys
rows = [r for r in json.load(open(sys.argv[1]))["benchmarks"] if r["run_type"] == "iteration"]
summary = open(sys.argv[2]).read()
bad = []
for r in rows:
    want = r["one_way_ns"] if r["bouncelab"]["family"] == "pingpong" else r["ns_per_op"]
    if abs(r["real_time"] - want) > 1e-9 * want:
        bad.append("%s: real_time %g, expected %g" % (r["name"], r["real_time"], want))
    if r["bouncelab"]["family"] == "pingpong" and abs(r["one_way_ns"] * 2 - r["ns_per_op"]) > 1e-9 * r["ns_per_op"]:
        bad.append("%s: one_way_ns is not half the round trip" % r["name"])
if not re.search(r"^pingpong, 2 threads, median one_way_ns:$", summary, re.M):
    bad.append("the summary does not say pingpong's unit is one_way_ns:\n" + summary)
for name, key in (("pingpong/store_load", "one_way_ns"), ("has_pinned/store_always", "ns_per_op")):
    m = re.search(r"^  %s\s+([\d.]+)$" % re.escape(name), summary, re.M)
    want = statistics.median(r[key] for r in rows if r["name"].startswith(name + "/"))
    if not m or abs(float(m.group(1)) - want) > 0.006:
        bad.append("summary for %s: %s, expected the median %s %.2f" %
                   (name, m.group(1) if m else "missing", key, want))
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY
echo "units: ok"
