#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# debian/ builds a binary package from a copy of the tree
# (dpkg-buildpackage -us -uc -b), which holds the program, the man page,
# the bash completion and every machine profile; unpacked anywhere with
# dpkg -x, with the copy it was built from gone, its program finds its
# profiles beside itself (BINDIR/../share/bouncelab). Skipped (77)
# without dpkg-buildpackage, debhelper or the build dependencies.
#
#   test_debian_package.sh SOURCE_DIR
set -u
source_dir=$(realpath "$1")
. "$(dirname "$0")/test_lib.sh"

for tool in dpkg-buildpackage dpkg-deb dh; do
	command -v $tool >/dev/null || { echo "SKIP: no $tool here (Debian: dpkg-dev, debhelper)"; exit 77; }
done
if ! (cd "$source_dir" && dpkg-checkbuilddeps) >"$tmp/deps" 2>&1; then
	echo "SKIP: build dependencies missing: $(cat "$tmp/deps")"
	exit 77
fi

# The tree as git has it (a source package has no build outputs);
# without git, the files as they are, less build directories.
mkdir "$tmp/src"
if git -C "$source_dir" rev-parse --show-toplevel >/dev/null 2>&1; then
	(cd "$source_dir" && git ls-files -z --cached --others --exclude-standard |
		tar --null -T - -cf -) | tar -C "$tmp/src" -xf -
else
	tar -C "$source_dir" --exclude='./build*' --exclude='./obj-*' -cf - . | tar -C "$tmp/src" -xf -
fi
(cd "$tmp/src" && DEB_BUILD_OPTIONS="parallel=$(nproc) nocheck" \
	dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1 ||
	{ fail "dpkg-buildpackage exited $?: $(tail -20 "$tmp/build.log")"; exit 1; }
deb=$(ls "$tmp"/bouncelab_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { fail "no bouncelab_*.deb made: $(ls "$tmp")"; exit 1; }
rm -rf "$tmp/src"

dpkg-deb -c "$deb" | awk '{ print $NF }' | sed 's|^\./|/|' >"$tmp/contents"
for f in /usr/bin/bouncelab /usr/share/man/man1/bouncelab.1.gz \
	/usr/share/bash-completion/completions/bouncelab \
	/usr/share/bouncelab/profiles/epyc-milan-2s-256.json; do
	grep -qxF "$f" "$tmp/contents" || fail "the package lacks $f"
done
for p in "$source_dir"/model/profiles/*.json; do
	grep -qxF "/usr/share/bouncelab/profiles/${p##*/}" "$tmp/contents" || fail "the package lacks ${p##*/}"
done

dpkg -x "$deb" "$tmp/unpacked"
"$tmp/unpacked/usr/bin/bouncelab" model --profile epyc-milan-2s-256 --family has_pinned \
	--private-ns 10 --variant store_always --threads 1,256 >"$tmp/model.out" 2>"$tmp/err" ||
	fail "the unpacked program's model --profile epyc-milan-2s-256 exited $?: $(cat "$tmp/err")"
grep -q 256 "$tmp/model.out" || fail "no 256-thread prediction: $(cat "$tmp/model.out")"
"$tmp/unpacked/usr/bin/bouncelab" --version >"$tmp/version" 2>&1 ||
	fail "the unpacked program's --version exited $?"
zcat "$tmp/unpacked/usr/share/man/man1/bouncelab.1.gz" | grep -q '^\.SS "bouncelab model"' ||
	fail "the packaged man page has no model section"

[ $failures -eq 0 ] || exit 1
echo "ok: $(basename "$deb"): $(cat "$tmp/version")"
