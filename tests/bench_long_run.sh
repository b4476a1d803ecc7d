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
