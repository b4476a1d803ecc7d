#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bouncelab lesson: every family is listed with its lesson line; each
# family's page has its claims and an exercise, and the exercise's run
# command is one bouncelab accepts (checked with --dry-run, so nothing runs).
# A lesson's placeholders for numbers of a run read in words: no run here.
#
#   test_cli_lesson.sh BOUNCELAB
set -u
bouncelab=$(realpath "$1")
. "$(dirname "$0")/test_lib.sh"
cd "$tmp" || exit 1

families=$("$bouncelab" list | sed -n 's/^\([a-z_]*\): .*/\1/p')
[ -n "$families" ] || fail "bouncelab list names no family"
"$bouncelab" lesson >lessons.txt || fail "lesson exited $?"
for f in $families; do
	grep -qx "$f" lessons.txt || fail "lesson does not list $f"
	"$bouncelab" lesson "$f" >page.txt || { fail "lesson $f exited $?"; continue; }
	head -1 page.txt | grep -q "^$f: " || fail "lesson $f: no title line"
	grep -q '^Claims the report checks on every run:' page.txt || fail "lesson $f: no claims"
	! grep -q '{ratio:\|{ns:' page.txt || fail "lesson $f: a placeholder printed as is"
	cat page.txt >>pages.txt
	grep -q '^Exercise\. Predict first, then measure\.' page.txt || continue
	run=$(sed -n '/^  Run:$/{n;s/^    //p}' page.txt)
	case $run in
	"bouncelab run "*) ;;
	*) fail "lesson $f: the exercise's command is not a run: $run"; continue ;;
	esac
	# The run part only, as this build's binary, without running anything.
	cmd=${run%% && *}
	cmd="\"$bouncelab\"${cmd#bouncelab} --dry-run"
	eval "$cmd" >/dev/null 2>err.txt || fail "lesson $f: '$run' is refused: $(cat err.txt)"
done
tr -s ' \n' ' ' <pages.txt | grep -q '(measured in your run)' ||
	fail "no lesson says where a number of the run goes: '(measured in your run)'"
[ "$failures" -eq 0 ] || exit 1
echo "ok: $(echo $families | wc -w) families"
