#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `meson install` gives a program that works away from the tree it was
# built in: installed with --destdir, then moved elsewhere, it finds its
# machine profiles (model --profile NAME) and the report predicts the
# seeds' figures, which read the seeds' machine profiles. Nothing is read
# from the source tree: with the installed data moved away, both say so
# in one line naming where they looked, rather than fall back on it.
# $BOUNCELAB_DATADIR comes before the installed data. --version names
# the revision git describes.
#
#   test_install.sh MESON BUILD_DIR SOURCE_DIR
set -u
meson=$1
build=$2
source_dir=$(realpath "$3")
. "$(dirname "$0")/test_lib.sh"

"$meson" install -C "$build" --no-rebuild --destdir "$tmp/dest" >"$tmp/install.log" 2>&1 ||
	{ fail "meson install exited $?: $(tail -5 "$tmp/install.log")"; exit 1; }
prefix=$("$meson" introspect "$build" --buildoptions |
	python3 -c 'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
# The tree as a package manager would unpack it somewhere else: moved,
# so that no path the build wrote into the program holds.
mv "$tmp/dest$prefix" "$tmp/moved"
rm -rf "$tmp/dest"
bin=$tmp/moved/bin/bouncelab
for f in bin/bouncelab share/bouncelab/profiles/epyc-milan-2s-256.json share/man/man1/bouncelab.1 \
	share/bash-completion/completions/bouncelab; do
	[ -f "$tmp/moved/$f" ] || fail "meson install did not install $f"
done
# every shipped profile, not only the one named here
for p in "$source_dir"/model/profiles/*.json; do
	cmp -s "$p" "$tmp/moved/share/bouncelab/profiles/${p##*/}" || fail "${p##*/} is not installed as it is"
done

"$bin" model --profile epyc-milan-2s-256 --family has_pinned --private-ns 10 --variant store_always \
	--threads 1,256 >"$tmp/model.out" 2>"$tmp/err" ||
	fail "the moved program's model --profile epyc-milan-2s-256 exited $?: $(cat "$tmp/err")"
grep -q "256" "$tmp/model.out" || fail "model printed no 256-thread prediction: $(cat "$tmp/model.out")"

# The seeds' predictions: each seed's row has a predicted ratio.
"$bin" report "$source_dir/tests/data/results-seeds.json" -o "$tmp/report" >/dev/null 2>"$tmp/err" ||
	fail "the moved program's report exited $?: $(cat "$tmp/err")"
# (prediction.md, the report's appendix on the model, has the seeds' machines)
seeds=$(sed -n "/^## The seeds' machines/,/^## /p" "$tmp/report/prediction.md")
[ -n "$seeds" ] || fail "prediction.md has no seed predictions section"
predicted=$(grep -cE '^\| .* \| `[a-z0-9-]+` \| [0-9.]+x \| [0-9.]+x \(' <<<"$seeds")
[ "$predicted" -ge 2 ] || fail "prediction.md predicts $predicted seed figures, expected 2: $seeds"
grep -q "not predicted" <<<"$seeds" && fail "a seed figure is not predicted: $seeds"

# --version: the version and the revision git gives for this tree (the
# commit's; the build may be of a changed tree, marked -dirty)
version=$("$bin" --version)
[[ $version =~ ^bouncelab\ ([^ ]+)\ \(revision\ ([^;]+)\;\ Google\ Benchmark ]] ||
	fail "--version prints '$version', expected 'bouncelab VERSION (revision REV; Google Benchmark ...'"
if commit=$(git -C "$source_dir" describe --always 2>/dev/null); then
	[[ ${BASH_REMATCH[2]} == "$commit" || ${BASH_REMATCH[2]} == "$commit-dirty" ]] ||
		fail "--version's revision '${BASH_REMATCH[2]}' is not git's '$commit'"
	if tag=$(git -C "$source_dir" describe --tags --match 'v[0-9]*' 2>/dev/null); then
		[ "${BASH_REMATCH[1]}" = "${tag#v}" ] || fail "--version's version '${BASH_REMATCH[1]}' is not the tag's '${tag#v}'"
	fi
fi

# $BOUNCELAB_DATADIR first: a profile only it has is found, and the
# shipped ones are not.
mkdir -p "$tmp/site/profiles"
cp "$source_dir/model/profiles/ryzen-5950x.json" "$tmp/site/profiles/site-box.json"
BOUNCELAB_DATADIR=$tmp/site "$bin" model --profile site-box --family has_pinned --threads 1 \
	>/dev/null 2>"$tmp/err" || fail "BOUNCELAB_DATADIR's profile site-box is not found: $(cat "$tmp/err")"
BOUNCELAB_DATADIR=$tmp/site "$bin" model --profile epyc-milan-2s-256 >/dev/null 2>"$tmp/err" &&
	fail "with BOUNCELAB_DATADIR set, a shipped profile is still read"
grep -q "site-box" "$tmp/err" || fail "the error does not list BOUNCELAB_DATADIR's profiles: $(cat "$tmp/err")"
BOUNCELAB_DATADIR=$tmp/nowhere "$bin" model --profile epyc-milan-2s-256 >/dev/null 2>"$tmp/err" &&
	fail "a BOUNCELAB_DATADIR that does not exist is taken"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF "BOUNCELAB_DATADIR '$tmp/nowhere'" "$tmp/err" ||
	fail "a missing BOUNCELAB_DATADIR is not named in one line: $(cat "$tmp/err")"

# No data: one line naming where it looked, never the source tree's.
if [ -d "$prefix/share/bouncelab/profiles" ]; then
	echo "# $prefix/share/bouncelab is installed on this machine: the no-data case is not checked"
else
	mv "$tmp/moved/share/bouncelab" "$tmp/hidden"
	"$bin" model --profile epyc-milan-2s-256 >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || fail "model with no data directory exited $rc, expected 2"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "not one line: $(cat "$tmp/err")"
	grep -qF "$tmp/moved/bin/../share/bouncelab" "$tmp/err" && grep -qF "$prefix/share/bouncelab" "$tmp/err" ||
		fail "the error does not name where it looked: $(cat "$tmp/err")"
	grep -qF "$source_dir" "$tmp/err" && fail "the installed program looked in the source tree: $(cat "$tmp/err")"
	"$bin" report "$source_dir/tests/data/results-seeds.json" -o "$tmp/report2" >/dev/null 2>"$tmp/err" ||
		fail "report with no data directory exited $?: $(cat "$tmp/err")"
	grep -q "not predicted: .*no data directory: expected profiles/ in $tmp/moved/bin/../share/bouncelab" \
		"$tmp/report2/prediction.md" || fail "the report does not say why the seeds are not predicted"
fi

[ $failures -eq 0 ] || exit 1
echo "ok: the installed program, moved, finds its data"
