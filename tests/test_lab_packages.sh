#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# scripts/lab's package lists: what run installs is what building and
# running need (every dependency() of meson.build has its -dev package in
# it) and no browser, Slurm or munge; test adds the rest. An install with
# stand-in apt-get, dpkg-query and systemctl: no service may start while
# it runs (policy-rc.d answers 101), the services it added are disabled
# after, and the policy file is gone.
#
#   test_lab_packages.sh SOURCE_DIR
set -u
source_dir=$(realpath "$1")
lab="$source_dir/scripts/lab"
. "$(dirname "$0")/test_lib.sh"

lists=$(bash -c '. "$1"; echo "${run_packages[*]}"; echo "${test_packages[*]}"' _ "$lab")
run=" $(sed -n 1p <<<"$lists") "
test=" $(sed -n 2p <<<"$lists") "
for p in chromium firefox-esr slurm-wlm slurmd slurmctld slurm-client munge libmunge2; do
	case $run in *" $p "*) fail "scripts/lab run installs $p" ;; esac
done
# Debian's package for each pkg-config name meson.build asks for; threads
# is the C library's. An unknown name fails, so a new dependency needs
# its package here and in the list.
declare -A debian=([benchmark]=libbenchmark-dev [jansson]=libjansson-dev [libpcre2-8]=libpcre2-dev
	[hwloc]=libhwloc-dev [libpfm]=libpfm4-dev [cmocka]=libcmocka-dev [threads]=)
check_deps() {
	local file=$1 list=$2 name
	for name in $(grep -o "dependency('[^']*'" "$file" | sed "s/dependency('//; s/'//"); do
		[ -n "${debian[$name]+x}" ] || { fail "$file: no Debian package known for '$name'"; continue; }
		[ -z "${debian[$name]}" ] && continue
		case $list in *" ${debian[$name]} "*) ;;
		*) fail "$file needs $name: ${debian[$name]} is not in its list" ;; esac
	done
}
check_deps "$source_dir/meson.build" "$run"
check_deps "$source_dir/tests/meson.build" "$test"
for p in gcc g++ pkg-config meson ninja-build; do
	case $run in *" $p "*) ;; *) fail "the build needs $p: not in scripts/lab run's list" ;; esac
done
for p in $run $test; do
	grep -qw -- "$p" "$source_dir/README.md" || fail "the README does not name the package $p"
done

# The install, with stand-ins under $tmp: nothing is installed but gcc,
# and ssh starts at boot already. Installing munge or slurm-wlm enables
# services, as Debian's maintainer scripts do.
[ -n "$tmp" ] && [ -d "$tmp" ] || exit 1
wants=$tmp/etc/systemd/system/multi-user.target.wants
mkdir -p "$tmp/bin" "$wants" "$tmp/etc/rc2.d"
ln -s /lib/systemd/system/ssh.service "$wants/ssh.service"
ln -s ../init.d/ssh "$tmp/etc/rc2.d/S01ssh"
echo gcc >"$tmp/installed"
cat >"$tmp/bin/dpkg-query" <<'EOF'
#!/bin/sh
for p; do :; done
grep -qx -- "$p" "$TMPDIR_LAB/installed" && printf 'install ok installed'
exit 0
EOF
cat >"$tmp/bin/apt-get" <<'EOF'
#!/bin/sh
[ "$1" = install ] || exit 0
"$POLICY_RC" munge start; echo "policy $?" >>"$TMPDIR_LAB/log"
shift 3
echo "install $*" >>"$TMPDIR_LAB/log"
for p; do echo "$p"; done >>"$TMPDIR_LAB/installed"
wants=$TMPDIR_LAB/etc/systemd/system/multi-user.target.wants
services=
case " $* " in *" munge "*) services=munge ;; esac
case " $* " in *" slurm-wlm "*) services="$services slurmd slurmctld" ;; esac
for s in $services; do
	ln -sf "/lib/systemd/system/$s.service" "$wants/$s.service"
	ln -sf "../init.d/$s" "$TMPDIR_LAB/etc/rc2.d/S01$s"
done
EOF
printf '#!/bin/sh\necho "systemctl $*" >>"$TMPDIR_LAB/log"\n' >"$tmp/bin/systemctl"
printf '#!/bin/sh\necho "update-rc.d $*" >>"$TMPDIR_LAB/log"\n' >"$tmp/bin/update-rc.d"
printf '#!/bin/sh\necho 0\n' >"$tmp/bin/id"
chmod +x "$tmp/bin/"*
install() {
	: >"$tmp/log"
	PATH="$tmp/bin:$PATH" TMPDIR_LAB=$tmp POLICY_RC=$tmp/policy-rc.d bash -c \
		'. "$1"; policy_rc=$2/policy-rc.d; etc=$2/etc; shift 2; install_packages "$@"' \
		_ "$lab" "$tmp" "$@" 2>/dev/null || fail "install_packages $* failed"
}
install $run
grep -q '^install .*gcc' "$tmp/log" && fail "an installed package is installed again"
grep -q '^install .*meson' "$tmp/log" || fail "scripts/lab run's packages are not installed"
grep -q 'disable' "$tmp/log" && fail "a run's install disables services: $(grep disable "$tmp/log")"
install $run $test
grep -q '^install libcmocka-dev .*munge' "$tmp/log" ||
	fail "scripts/lab test does not install only the test packages: $(grep install "$tmp/log")"
grep -qx 'policy 101' "$tmp/log" || fail "services may start during the install: $(grep policy "$tmp/log")"
[ -e "$tmp/policy-rc.d" ] && fail "the policy-rc.d of the install is left behind"
for s in munge slurmd slurmctld; do
	grep -qx "systemctl disable --quiet $s.service" "$tmp/log" || fail "$s.service is left enabled"
	grep -qx "update-rc.d $s disable" "$tmp/log" || fail "$s is left in rc2.d"
done
grep -q 'ssh' "$tmp/log" && fail "a service the install did not enable is disabled: $(grep ssh "$tmp/log")"
# The machine's own policy-rc.d is kept.
grep -v -e munge -e slurm "$tmp/installed" >"$tmp/i" && mv "$tmp/i" "$tmp/installed"
printf '#!/bin/sh\nexit 0\n' >"$tmp/policy-rc.d"
chmod +x "$tmp/policy-rc.d"
install munge
grep -qx 'policy 0' "$tmp/log" && [ -e "$tmp/policy-rc.d" ] ||
	fail "the machine's own policy-rc.d is replaced or removed"

# cmd_test's closing count, with a stand-in meson that writes the log a
# real one would: it counts this run's log only, a skip as skipped, and a
# name that selects no test is an error (exit 2), never the last run's
# count.
mkdir -p "$tmp/b/meson-logs"
cat >"$tmp/bin/meson" <<'EOF'
#!/bin/sh
log=$TMPDIR_LAB/b/meson-logs/testlog.json
case " $* " in
*" nosuch "*|*" --list "*) exit 0 ;;
esac
printf '{"result": "OK"}\n{"result": "SKIP"}\n{"result": "FAIL"}\n{"result": "OK"}\n' >"$log"
exit 1
EOF
chmod +x "$tmp/bin/meson"
lab_test() {
	PATH="$tmp/bin:$PATH" TMPDIR_LAB=$tmp bash -c \
		'. "$1"; build=$2/b; shift 2; cmd_test "$@"' _ "$lab" "$tmp" "$@" >"$tmp/out" 2>&1
}
lab_test some_test
rc=$?
[ "$rc" -eq 1 ] || fail "cmd_test exits $rc where a test failed (expected 1)"
grep -qx '2 passed, 1 failed, 1 skipped' "$tmp/out" || fail "cmd_test counts: $(cat "$tmp/out")"
lab_test nosuch
rc=$?
[ "$rc" -eq 2 ] || fail "cmd_test exits $rc where no test is named nosuch (expected 2)"
grep -q 'passed' "$tmp/out" && fail "cmd_test prints the last run's count for a run of no test: $(cat "$tmp/out")"
grep -q "no test ran.*nosuch" "$tmp/out" || fail "cmd_test does not say that no test ran: $(cat "$tmp/out")"
lab_test --list
rc=$?
[ "$rc" -eq 0 ] && ! grep -q passed "$tmp/out" || fail "cmd_test --list exits $rc or counts: $(cat "$tmp/out")"

[ "$failures" -eq 0 ] || exit 1
echo "ok: scripts/lab run installs what running needs, test the rest, and no service is left on"
