#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# scripts/lab run after a build: the build's end reaches the run's context,
# so the report blames the load average on the build, not on other work.
# scripts/lab's build_tree is called with a stand-in ninja (nothing is
# built), then a one-case run records what BOUNCELAB_BUILD_ENDED says.
#
#   test_lab_build.sh BOUNCELAB SOURCE_DIR
set -u
bouncelab=$(realpath "$1")
lab=$(realpath "$2/scripts/lab")
. "$(dirname "$0")/test_lib.sh"
cd "$tmp" || exit 1

# A ninja that has work to do unless $tmp/up-to-date exists.
# Its build.ninja names every family file, as a configured one does (a new
# family file would have build_tree reconfigure).
mkdir -p bin build
python3 "$2/kernels/list_families.py" "$2/kernels" | sed 's|.*|# ../kernels/&.c|' >build/build.ninja
cat >bin/ninja <<'NINJA'
#!/bin/sh
case " $* " in
*" -n "*) [ -e "$(dirname "$0")/../up-to-date" ] && echo "ninja: no work to do." ||
	echo "[1/1] Compiling C object x.o" ;;
esac
NINJA
chmod +x bin/ninja

ended=$(PATH="$tmp/bin:$PATH" bash -c '. "$1"; build="$2"; build_tree; echo "${BOUNCELAB_BUILD_ENDED:-}"' \
	_ "$lab" "$tmp/build" 2>/dev/null)
now=$(date +%s)
[ -n "$ended" ] && [ $((now - ended)) -le 2 ] ||
	fail "a build with work to do does not export its end: '$ended'"
touch up-to-date
ended=$(PATH="$tmp/bin:$PATH" BOUNCELAB_BUILD_ENDED= bash -c \
	'. "$1"; build="$2"; build_tree; echo "${BOUNCELAB_BUILD_ENDED:-}"' _ "$lab" "$tmp/build" 2>/dev/null)
[ -z "$ended" ] || fail "a build with nothing to do exports an end: '$ended'"


built() {
	rm -f r.json
	BOUNCELAB_BUILD_ENDED=$1 "$bouncelab" run --quick --threads 1 --filter '^has_pinned/nop$' \
		--out r.json >/dev/null 2>&1 || { fail "run with BOUNCELAB_BUILD_ENDED=$1 failed"; return; }
	python3 -c 'import json, sys; print(json.load(open("r.json"))["context"].get("build_ended_s_before", "none"))'
}
got=$(built "$((now - 5))")
case $got in 5|6|7) ;; *) fail "a build 5 s before the run: context says '$got'" ;; esac
got=$(built "$((now - 3600))")
[ "$got" = none ] || fail "a build an hour before the run is recorded: '$got'"
got=$(built "soon")
[ "$got" = none ] || fail "a malformed BOUNCELAB_BUILD_ENDED is recorded: '$got'"

# A family file the configured build does not name (one just added):
# build_tree has meson configure again, which alone reads the families.
cat >bin/meson <<'MESON'
#!/bin/sh
echo "$*" >>"$(dirname "$0")/../meson-calls"
MESON
chmod +x bin/meson
cp build/build.ninja build.ninja.all
grep -v 'kernels/pingpong\.c' build.ninja.all >build/build.ninja
PATH="$tmp/bin:$PATH" bash -c '. "$1"; build="$2"; build_tree' _ "$lab" "$tmp/build" >/dev/null 2>&1
grep -q -- '^setup --reconfigure ' meson-calls 2>/dev/null ||
	fail "a family file the build does not name: no reconfigure ($(cat meson-calls 2>/dev/null))"
rm -f meson-calls
cp build.ninja.all build/build.ninja
PATH="$tmp/bin:$PATH" bash -c '. "$1"; build="$2"; build_tree' _ "$lab" "$tmp/build" >/dev/null 2>&1
[ ! -e meson-calls ] || fail "every family named, yet meson ran: $(cat meson-calls)"

[ "$failures" -eq 0 ] || exit 1
echo "ok: the build's end reaches the run's context"
