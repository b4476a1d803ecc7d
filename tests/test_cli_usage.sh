#!/usr/bin/env bash
# Bad usage: exit 2, exactly one line on stderr naming the value, no file.
set -uo pipefail
bouncelab=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
failures=0

expect_usage() {
	local needle=$1; shift
	local status lines
	"$bouncelab" "$@" >/dev/null 2>stderr
	status=$?
	lines=$(wc -l <stderr)
	if [ "$status" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -qF -- "$needle" stderr ||
	   [ -n "$(ls -A | grep -v '^stderr$')" ]; then
		echo "FAIL: bouncelab $* -> status $status, $lines lines: $(cat stderr)"
		failures=$((failures + 1))
	fi
	rm -rf -- $(ls -A | grep -v '^stderr$')
}

expect_usage "expected a command"
expect_usage "'frobnicate'" frobnicate
expect_usage "--threads '0'" run --threads 0
expect_usage "--threads 'two'" run --threads two
expect_usage "--threads '1,,2'" run --threads 1,,2
expect_usage "--repetitions '0'" run --repetitions 0
expect_usage "--repetitions '-3'" run --repetitions -3
expect_usage "--min-time 'fast'" run --min-time fast
expect_usage "--min-time 'nan'" run --min-time nan
expect_usage "unknown family 'nosuch'" run --param nosuch.x=1
expect_usage "no parameter 'nosuch'" run --param has_pinned.nosuch=1
expect_usage "pin_work='99'" run --param has_pinned.pin_work=99
expect_usage "flag_line='far'" run --param has_pinned.flag_line=far
expect_usage "--param 'pin_work=1'" run --param pin_work=1
expect_usage "filter 'no_such_kernel'" run --filter no_such_kernel
expect_usage "filter '('" run --filter '('
expect_usage "'--bogus'" run --bogus
expect_usage "'extra'" run extra
expect_usage "unknown family 'nosuch'" list nosuch
expect_usage "at least one results file" report -o out
expect_usage "output directory" report x.json

echo "$failures failures"
[ "$failures" -eq 0 ]
