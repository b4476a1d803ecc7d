#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# scripts/new-family, in a copy of the tree (this one is never written):
#  - a name that is no C identifier in lower case, or one the tree has,
#    is refused with one line and status 2, and no file changes;
#  - a new name writes a family that builds, passes the tests that run
#    over the whole catalogue, runs with --quick and reports, as written.
# usage: test_new_family.sh SOURCE_ROOT
set -euo pipefail
src=$1
family=demo_counter
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# The tree as it is checked out, files not yet committed included.
if ! git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "skip: $src is no git work tree to copy the sources of"
	exit 77
fi
(cd "$src" && git ls-files -z -c -o --exclude-standard | tar --null -T - -cf -) |
	tar -C "$work" -xf -
tree_sum() { (cd "$work" && find . -path ./build -prune -o -type f -print0 | sort -z |
	xargs -0 md5sum | md5sum); }

before=$(tree_sum)
for bad in '' 1st Counter a-b 'x;y' counter gup catalog kernel \
	a_name_of_forty_one_characters_is_too_lon; do
	status=0
	"$work/scripts/new-family" "$bad" >"$work/out" 2>"$work/err" || status=$?
	[ "$status" = 2 ] || fail "new-family '$bad': status $status, expected 2"
	[ ! -s "$work/out" ] || fail "new-family '$bad' printed: $(cat "$work/out")"
	[ "$(wc -l <"$work/err")" = 1 ] || fail "new-family '$bad' said: $(cat "$work/err")"
	grep -q "^new-family: .*expected" "$work/err" || fail "new-family '$bad' said: $(cat "$work/err")"
	rm -f "$work/out" "$work/err"
	[ "$(tree_sum)" = "$before" ] || fail "new-family '$bad' changed the tree"
	echo "ok: '$bad' refused"
done

touch -d '1 second ago' "$work/.before"
"$work/scripts/new-family" "$family"
[ "$(tree_sum)" != "$before" ] || fail "new-family $family wrote nothing"
# Its two files and nothing else: the build finds the family itself.
changed=$(cd "$work" && find . -path ./build -prune -o -type f -newer .before -print | sort)
[ "$changed" = "$(printf './kernels/%s.c\n./kernels/lessons/%s.md' "$family" "$family")" ] ||
	fail "new-family $family changed more than its two files: $changed"

cd "$work"
meson setup build -Dtests=true >build.log 2>&1 || { tail -30 build.log; fail "meson setup"; }
ninja -C build bouncelab tests/test_kernels tests/test_catalogue tests/test_lessons \
	tests/test_claims tests/test_no_hangs tests/test_contract tests/insn_decls \
	tests/test_hooked_writes >>build.log 2>&1 ||
	{ tail -30 build.log; fail "the build with $family"; }
build/bouncelab list >list.txt
grep -q "^$family: " list.txt || fail "bouncelab list has no $family"
meson test -C build --no-rebuild --print-errorlogs kernels catalogue lessons claims \
	'no hangs' registry lesson_files cli_lesson contract disasm 'hooked writes' ||
	fail "the catalogue's tests with $family"
build/bouncelab run --filter "^$family/" --quick --out run.json >run.log 2>&1 ||
	{ cat run.log; fail "bouncelab run --filter ^$family/ --quick"; }
build/bouncelab report run.json -o report >>run.log 2>&1 || { cat run.log; fail "report"; }
grep -q "$family" report/report.md || fail "the report does not name $family"
grep -q "a shared atomic counter serialises every update on one line" report/*.md ||
	fail "the report does not check $family's claim"
echo "ok: $family builds, passes the catalogue's tests, runs and reports"
