#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Catalogue parameters on the command line: a value out of range is
# refused with exit 2 and exactly one line on stderr naming the value and
# the range, before anything runs or is written; values in range run.
#
# usage: test_cli_params.sh PATH/TO/bouncelab
set -u

bouncelab=$1
. "$(dirname "$0")/test_lib.sh"

# refused PARAM EXPECTED_TEXT: --param PARAM must exit 2 with one line.
refused() {
	"$bouncelab" run --param "$1" --out "$tmp/out.json" \
		>"$tmp/stdout" 2>"$tmp/stderr"
	status=$?
	lines=$(wc -l <"$tmp/stderr")
	[ "$status" -eq 2 ] || fail "--param $1: exit $status, expected 2"
	[ "$lines" -eq 1 ] || fail "--param $1: $lines lines on stderr, expected 1"
	grep -q "^bouncelab: .*$2" "$tmp/stderr" ||
		fail "--param $1: stderr '$(cat "$tmp/stderr")' does not say '$2'"
	[ ! -e "$tmp/out.json" ] || fail "--param $1: wrote $tmp/out.json"
}

refused counter.batch=0 "batch='0': expected an integer from 1 to 1000000"
refused counter.batch=1000001 "from 1 to 1000000"
refused counter.read_every=-1 "read_every='-1': expected an integer from 0 to"
refused counter.read_every=64,x "read_every='x'"
refused last_nidpid.readers=101 "readers='101': expected an integer from 0 to 100"
refused longterm_check.nr_pages=0 "nr_pages='0': expected an integer from 1 to 512"
refused longterm_check.nr_pages=513 "from 1 to 512"
refused longterm_check.cma_percent=101 "cma_percent='101'"
refused longterm_check.buffer_pages=511 "buffer_pages='511': expected an integer from 512"
refused false_sharing.update=sideways "update='sideways': expected one of plain|locked"
refused has_pinned.already_set=101 "already_set='101': expected an integer from 0 to 100"
refused has_pinned.already_set=-5 "already_set='-5'"
refused counter.no_such=1 "family counter has no parameter 'no_such'"

# In range: a tiny run goes through, and the measured metrics are in the file.
ran() {
	"$bouncelab" run --filter "$1" --threads 1 --repetitions 1 --min-time 0.001 \
		--param "$2" --out "$tmp/run.json" >"$tmp/stdout" 2>"$tmp/stderr"
	status=$?
	[ "$status" -eq 0 ] || fail "run $1 --param $2: exit $status: $(tail -1 "$tmp/stderr")"
	[ -z "${3:-}" ] || grep -q "\"$3\"" "$tmp/run.json" ||
		fail "run $1 --param $2: no \"$3\" in the results"
	rm -f "$tmp/run.json"
}

ran '^counter/shared_plain' counter.read_every=3 lost_updates
ran '^last_nidpid/cmpxchg_loop' last_nidpid.readers=0 retries_per_success
ran '^longterm_check/second_pass' longterm_check.cma_percent=30 pages_per_call
ran '^has_pinned/read_then_set/' has_pinned.already_set=0,50 found_clear_fraction
ran '^false_sharing/same_line' false_sharing.update=locked

if [ "$failures" -ne 0 ]; then
	echo "$failures failure(s)"
	exit 1
fi
echo "all catalogue parameter checks passed"
