#!/bin/bash
# The speed figure of report and compare on a long run: 60,000 repetitions
# of one case (tests/gen_results.py --one-case, about 52 MB), the bound the
# README states (report under 2 s). A benchmark, not a test: it prints
# the figures and fails only if a command fails; run it on a quiet
# machine with `meson test -C build --benchmark`.
set -u
bouncelab=$1 tests=$2 python3=$3 reps=${4:-60000}
tmp=$(mktemp -d /tmp/bouncelab-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

"$python3" "$tests/gen_results.py" --one-case --repetitions "$reps" "$tmp/a.json" &&
	"$python3" "$tests/gen_results.py" --one-case --repetitions "$reps" --seed 2 "$tmp/b.json" ||
	exit 1
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs; $reps repetitions, $(du -m "$tmp/a.json" | cut -f1) MB a file"
TIMEFORMAT="report:  %R s wall, %U s user, %S s system"
for i in 1 2 3; do
	rm -rf "$tmp/report"
	time "$bouncelab" report "$tmp/a.json" -o "$tmp/report" >/dev/null || exit 1
done
TIMEFORMAT="compare: %R s wall, %U s user, %S s system"
for i in 1 2 3; do
	time "$bouncelab" compare "$tmp/a.json" "$tmp/b.json" >/dev/null || exit 1
done

# Wide files: one case with 20,000 counter keys, and one family with 4,000
# settings (the issue-26 shapes: 77 s and 87 s once; the README's bound is
# 10 s). Made from the synthetic fixed file's first has_pinned row.
"$python3" - "$tests/data/results-fixed.json" "$tmp" <<'PY' || exit 1
import copy, json, sys
doc = json.load(open(sys.argv[1]))
row = next(b for b in doc["benchmarks"] if b.get("bouncelab", {}).get("family") == "has_pinned")
keys = copy.deepcopy(doc)
wide = copy.deepcopy(row)
for k in range(20000):
    wide["c%05d_per_op" % k] = 1.0
keys["benchmarks"] = [wide]
json.dump(keys, open(sys.argv[2] + "/keys.json", "w"))
many = copy.deepcopy(doc)
many["benchmarks"] = []
for k in range(4000):
    b = copy.deepcopy(row)
    b["bouncelab"].setdefault("params", {}).update(pin_work=k % 65, already_set=k % 101)
    b["name"] = b["run_name"] = "has_pinned/%s/pin_work:%d/already_set:%d/threads:1" % (
        b["bouncelab"]["variant"], k % 65, k % 101)
    many["benchmarks"].append(b)
json.dump(many, open(sys.argv[2] + "/settings.json", "w"))
PY
for wide in keys settings; do
	rm -rf "$tmp/report"
	TIMEFORMAT="report $wide: %R s wall, %U s user, %S s system"
	time "$bouncelab" report "$tmp/$wide.json" -o "$tmp/report" >/dev/null || exit 1
done
TIMEFORMAT="compare keys: %R s wall, %U s user, %S s system"
time "$bouncelab" compare "$tmp/keys.json" "$tmp/keys.json" >/dev/null || exit 1

# A fleet of 400 small files: the corpus's quick run on 400 host names
# (issue 26: 3.7 GB resident and minutes once; the bound is 1 GB, 10 s).
# The peak resident size is the child's, read by Python's getrusage.
quick=$(ls "$tests"/data/runs/*/quick.json | head -n 1)
"$python3" - "$quick" "$tmp/fleet" <<'PY' || exit 1
import copy, json, os, sys
doc = json.load(open(sys.argv[1]))
os.makedirs(sys.argv[2])
for i in range(400):
    one = copy.deepcopy(doc)
    one["context"]["host_name"] = "node%03d" % i
    one["context"]["run_id"] = "%s-%03d" % (doc["context"].get("run_id", "run"), i)
    json.dump(one, open("%s/r%03d.json" % (sys.argv[2], i), "w"))
PY
rm -rf "$tmp/report"
"$python3" - "$bouncelab" "$tmp" <<'PY' || exit 1
import glob, resource, subprocess, sys, time
files = sorted(glob.glob(sys.argv[2] + "/fleet/*.json"))
start = time.monotonic()
subprocess.run([sys.argv[1], "report", *files, "-o", sys.argv[2] + "/report"],
               stdout=subprocess.DEVNULL, check=True)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print("report 400 files: %.1f s wall, %.1f s user, %.1f s system, %d MB resident" %
      (time.monotonic() - start, usage.ru_utime, usage.ru_stime, usage.ru_maxrss // 1024))
PY
