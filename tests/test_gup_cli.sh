#!/usr/bin/env bash
# bouncelab gup: gup_test's timing lines, one per thread and repeat, as
# ksft_print_msg() prints them ("# " before each call, so "us# "); the
# comparison summary; one-line usage errors with status 2. The TAP as a
# whole, and every gup_test option, are test_gup_tap.py's.
set -uo pipefail
bouncelab=$(realpath "$1")
. "$(dirname "$0")/test_lib.sh"
cd "$tmp"
cpus=$(nproc)

# expect_lines COUNT REGEX ARGS...: the run succeeds and COUNT lines match.
expect_lines() {
	local count=$1 regex=$2 got
	shift 2
	if ! "$bouncelab" gup "$@" >out 2>err; then
		fail "bouncelab gup $* -> status $?: $(cat err)"
		return
	fi
	got=$(grep -cE -- "$regex" out)
	[ "$got" -eq "$count" ] || fail "bouncelab gup $*: $got lines match '$regex', expected $count: $(cat out)"
}

expect_usage() {
	local needle=$1 status lines
	shift
	"$bouncelab" gup "$@" >out 2>err
	status=$?
	lines=$(wc -l <err)
	if [ "$status" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -qF -- "$needle" err || [ -s out ]; then
		fail "bouncelab gup $* -> status $status, $lines lines: $(cat err)"
	fi
}

line='^# PIN_FAST_BENCHMARK: Time: get:[0-9]+ put:[0-9]+ us# $'
# TAP version 13, 1..N, the timing lines, N results, # Totals
if [ "$cpus" -ge 2 ]; then
	expect_lines 4 "$line" -a -m 64 -j 2 -r 2
	[ "$(wc -l <out)" -eq 9 ] || fail "-a -m 64 -j 2 -r 2 printed more than the 9 lines"
fi
expect_lines 3 "$line" -a -m 4 -r 3
[ "$(wc -l <out)" -eq 7 ] || fail "-a -m 4 -r 3 printed more than the 7 lines"
expect_lines 2 '^# GUP_FAST_BENCHMARK: Time: get:[0-9]+ put:[0-9]+ us# $' -m 4 -r 2
expect_lines 1 '^# GUP_FAST_BENCHMARK: Time: ' -u -m 4 -n -1 -W
expect_lines 2 '^# PIN_LONGTERM_BENCHMARK: Time: ' -L -m 4 -r 2 --cma 20
expect_lines 1 '^# GUP_BASIC_TEST: done$' -U -m 4 -r 5
expect_lines 1 '^# PIN_BASIC_TEST: done$' -b -m 4
expect_lines 2 "$line" -a -t -m 5 -n 64 -r 2

# Comparisons: every combination each repeat, then the ratios.
expect_lines 8 "$line" -a -m 4 -r 2 --variant store_always,read_then_set --mode shared,private
expect_lines 2 '^# store_always / read_then_set, (shared|private): [0-9.]+x by mean get time.*seed 000' \
	-a -m 4 -r 2 --variant store_always,read_then_set --mode shared,private
expect_lines 1 '^# second_pass / in_walk, shared: [0-9.]+x.*seed 002' \
	-u -l -m 4 -n 64 -r 2 --cma 5 --longterm-check second_pass,in_walk
# The summary sets get and put per page apart, never their sum (the seeds quote get times).
expect_lines 1 '^# variant .* get ns/page +put ns/page$' -u -l -m 4 -n 64 -r 2 --summary
grep -q 'get + put' out && fail "--summary prints get + put beside get-only seed figures"
# Get per page is the median of the get loop's stretches, and says so.
grep -qE '^# get ns/page: per repeat, the median over stretches of [0-9]+ pages' out ||
	fail "--summary does not say how get ns/page is taken: $(cat out)"
expect_lines 1 '^# second_pass / in_walk, shared: [0-9.]+x by mean get time, [0-9.]+x by median get per page \[95% CI [0-9.]+-[0-9.]+\]' \
	-u -l -m 4 -n 64 -r 3 --longterm-check second_pass,in_walk
expect_lines 1 '^#   [0-9]+ fast calls, [0-9]+ slow-path calls, .*, [0-9]+ writer changes$' \
	-a -m 4 -r 2 --writer --summary

expect_usage "-m '0'" -m 0
expect_usage "-n '0'" -n 0
expect_usage "-r 'x'" -r x
expect_usage "--variant 'foo'" --variant foo
expect_usage "--mode 'both'" --mode both
expect_usage "'-z'" -z
expect_usage "'extra'" -a extra

echo "$failures failures"
[ "$failures" -eq 0 ]
