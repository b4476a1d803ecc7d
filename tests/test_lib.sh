# SPDX-License-Identifier: GPL-2.0-only
# The shell tests' common start, sourced by each: $tmp, a directory of
# its own removed on exit, and fail MESSAGE, which prints the failure and
# counts it in $failures (a test ends with [ "$failures" -eq 0 ]).
tmp=$(mktemp -d /tmp/bouncelab-test.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}
