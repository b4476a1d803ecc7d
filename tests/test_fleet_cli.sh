#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/lab fleet's options, without a cluster: bad options are refused
# with exit 2, one line naming the value, and nothing made; --dry-run
# prints the array on exclusive nodes, the afterok report job and the
# run options passed through, and submits nothing.
#
#   test_fleet_cli.sh BOUNCELAB SOURCE_DIR
set -u
bouncelab=$1
top=$2
. "$(dirname "$0")/test_lib.sh"
fleet() {
	BOUNCELAB=$bouncelab "$top/scripts/lab" fleet "$@"
}

# expect_bad NAME ARGS...: exit 2, one line on stderr naming NAME.
expect_bad() {
	local name=$1
	shift
	fleet "$@" --results "$tmp/never" >"$tmp/out" 2>"$tmp/err"
	local rc=$? lines
	lines=$(wc -l <"$tmp/err")
	[ $rc -eq 2 ] || fail "$*: exit $rc, expected 2"
	[ "$lines" -eq 1 ] || fail "$*: $lines lines on stderr, expected 1: $(cat "$tmp/err")"
	grep -qF -- "$name" "$tmp/err" || fail "$*: stderr does not name '$name': $(cat "$tmp/err")"
	[ ! -e "$tmp/never" ] || fail "$*: made the results directory"
}

expect_bad "'--bogus'" --bogus
expect_bad "--nodes 'x'" --nodes x
expect_bad "--nodes '0'" --nodes 0
expect_bad "--nodes" --nodes
expect_bad "--nodes '2' and --nodelist 'a'" --nodes 2 --nodelist a
expect_bad "--partition 'a b'" --partition 'a b' --nodes 1
expect_bad "--time 'soon'" --time soon --nodes 1
expect_bad "--nodelist 'a;b'" --nodelist 'a;b'
# a count past Slurm's array indices (bash's arithmetic wrapped it into
# --array=0-7766279631452241918), and host lists whose brackets do not pair
expect_bad "--nodes '99999999999999999999'" --nodes 99999999999999999999 --dry-run
expect_bad "--nodes '4000001'" --nodes 4000001 --dry-run
expect_bad "--nodelist 'n[1-3'" --nodelist 'n[1-3' --dry-run
expect_bad "--nodelist 'n[1-3]]'" --nodelist 'n[1-3]]' --dry-run
expect_bad "--nodelist 'n[a-b]'" --nodelist 'n[a-b]' --dry-run
expect_bad "--nodelist ',a'" --nodelist ',a' --dry-run
# run's own checks, once, before anything is submitted
expect_bad "--repetitions '0'" --repetitions 0 --nodes 1 --dry-run
expect_bad "--threads" --threads 0 --nodes 1 --dry-run
expect_bad "placement 'bogus'" --placement bogus --nodes 1 --dry-run
# ...but checked on a node as large as bouncelab plans on, not this login
# node: CPUs and classes a compute node has are not refused here
for placement in cpus:0-63 pair:cross_package pair:numa pair:l2; do
	fleet --nodes 2 --placement "$placement" --threads 2 --filter '^has_pinned/nop$' \
		--results "$tmp/never" --dry-run >/dev/null 2>"$tmp/err" ||
		fail "--placement $placement refused on the login node: $(cat "$tmp/err")"
done
fleet --nodes 2 --placement cpus:0-63 --threads 64 --filter '^has_pinned/nop$' \
	--results "$tmp/never" --dry-run >/dev/null 2>"$tmp/err" ||
	fail "--threads 64 refused on the login node: $(cat "$tmp/err")"
# no cluster answering sinfo: one line, not a silent exit 1
PATH="$tmp/nosinfo:$PATH"
mkdir -p "$tmp/nosinfo" && printf '#!/bin/sh\nexit 1\n' >"$tmp/nosinfo/sinfo" && chmod +x "$tmp/nosinfo/sinfo"
expect_bad "sinfo shows no nodes" --dry-run
PATH=${PATH#"$tmp/nosinfo:"}

mkdir "$tmp/full" && touch "$tmp/full/results-old.json"
fleet --nodes 1 --results "$tmp/full" --dry-run >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "expected a new or empty directory" "$tmp/err" ||
	fail "a results directory with files is not refused: $(cat "$tmp/err")"

# --dry-run: the array, exclusive, the report job after it, run's options.
fleet --nodes 3 --partition batch --quick --filter 'has_pinned|counter' \
	--results "$tmp/dry" --dry-run >"$tmp/dry.out" 2>"$tmp/err" ||
	fail "--dry-run exited $?: $(cat "$tmp/err")"
[ ! -e "$tmp/dry" ] || fail "--dry-run made the results directory"
suite=$(grep "suite.sbatch" "$tmp/dry.out")
merge=$(grep "merge.sbatch" "$tmp/dry.out")
for want in --array=0-2 --exclusive --nodes=1 --partition=batch --quick \
	'has_pinned\|counter' 'compact\,spread' "$tmp/dry"; do
	grep -qF -- "$want" <<<"$suite" || fail "the suite job lacks $want: $suite"
done
for want in --dependency=afterok: --kill-on-invalid-dep=yes --partition=batch "$tmp/dry"; do
	grep -qF -- "$want" <<<"$merge" || fail "the report job lacks $want: $merge"
done

# A node list: one job per node, each sent to its node.
fleet --nodelist n1,n2 --placement cores --results "$tmp/dry" --dry-run >"$tmp/list.out" 2>&1 ||
	fail "--nodelist --dry-run failed: $(cat "$tmp/list.out")"
[ "$(grep -c "suite.sbatch" "$tmp/list.out")" -eq 2 ] || fail "not one job per listed node"
grep -q -- "--nodelist=n1 " "$tmp/list.out" && grep -q -- "--nodelist=n2 " "$tmp/list.out" ||
	fail "the jobs are not sent to n1 and n2"
grep -q -- "--placement cores" "$tmp/list.out" && ! grep -q "compact" "$tmp/list.out" ||
	fail "--placement does not replace the default placements"

[ $failures -eq 0 ] || exit 1
echo "ok: fleet options"
