#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Google Benchmark reads BENCHMARK_FILTER, BENCHMARK_OUT and the like from
# the environment; bouncelab run ignores them and says so on one line. A
# BENCHMARK_FILTER that matches nothing still runs the case --filter names,
# a BENCHMARK_OUT writes no file, each variable alone and both together.
#
#   test_gbench_env.sh BOUNCELAB
set -u
bouncelab=$(realpath "$1")
. "$(dirname "$0")/test_lib.sh"
cd "$tmp" || exit 1

# run_with VAR=VALUE...: a quick one-case run; its rows, or the failure.
run_with() {
	rm -f r.json stray.json err
	env "$@" "$bouncelab" run --quick --threads 1 --filter '^has_pinned/nop$' --out r.json \
		>/dev/null 2>err || { fail "$*: exit $?: $(grep -v '^\[' err | tail -n 1)"; return; }
	python3 -c 'import json; print(sum(r["run_type"] == "iteration" for r in json.load(open("r.json"))["benchmarks"]))'
}

for vars in "BENCHMARK_FILTER=^nothing$" "BENCHMARK_OUT=$tmp/stray.json" \
	"BENCHMARK_FILTER=^nothing$ BENCHMARK_OUT=$tmp/stray.json BENCHMARK_OUT_FORMAT=csv"; do
	# shellcheck disable=SC2086 # one word per variable
	rows=$(run_with $vars)
	[ "$rows" = 6 ] || fail "$vars: $rows rows, expected the 6 repetitions"
	[ -e stray.json ] && fail "$vars: Google Benchmark wrote $tmp/stray.json"
	for v in $vars; do
		name=${v%%=*}
		[ "$(grep -c "^bouncelab: ignoring .*$name.* in the environment" err)" -eq 1 ] ||
			fail "$vars: no one-line note naming $name: $(grep -i environment err)"
	done
	[ "$(grep -c 'in the environment' err)" -eq 1 ] || fail "$vars: more than one note"
done
rows=$(run_with BOUNCELAB_UNSET=1)
grep -q 'in the environment' err && fail "a note without BENCHMARK_ variables: $(cat err)"
[ "$failures" -eq 0 ] || exit 1
echo "ok: BENCHMARK_FILTER and BENCHMARK_OUT are ignored, with a note"
