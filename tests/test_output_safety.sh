#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The output rule (lib/output_path.h) for every option that writes, the
# exit-code table of the README, stdout write checks, and inert inputs:
#
#   - /dev/full, /dev/null, a FIFO, a symbolic link and an existing file are
#     refused by run --out, topo --latency-out and report -o (exit 2, the
#     device still a device), the file replaced only with --force, the
#     others refused even with it;
#   - a second command on an output another one holds is refused at start
#     (report: before it reads its inputs);
#   - what a killed command leaves (a lock nobody holds, temporary files,
#     a half-built report) is taken over and removed by the next one, and
#     a SIGKILLed run's journal is recovered by --resume (--dry-run
#     writes nothing; a damaged line costs only its own row); files of the
#     same shapes that bouncelab did not leave stay;
#   - report -o DIR --force removes only the files its record lists;
#   - the same run given twice to report (a copy, its journal) is refused;
#   - a lock path that is a hard link is refused, the file untouched;
#   - --out NEWDIR/. and NEWDIR/.. are refused before the run, and so is
#     NEWDIR/../FILE when FILE is refused, NEWDIR removed again;
#   - every command exits non-zero, with a message, when stdout is /dev/full;
#   - every command's exit status is one of the README's table;
#   - a hostile results file (a tag and a code fence in names) is refused
#     or reaches report.md escaped; a UTF-8 BOM is accepted; control bytes
#     from input files reach report.md, compare and model escaped;
#   - a FIFO as HWLOC_XMLFILE is refused, not waited on, and so is one
#     in HWLOC_FSROOT's directory (hwloc's other directories it would read
#     itself are refused whole);
#   - a run whose every repetition fails exits 1;
#   - out of memory reading a results file is said so, exit 1, and so is
#     a benchmark thread that cannot be created (ulimit -v);
#   - a write past ulimit -f fails with exit 1 and one line, leaving nothing;
#   - under ulimit -n every command finishes or fails (exit 1), leaving
#     no lock or empty directory;
#   - a context value 2000 levels deep is reported with a 256 KB stack.
#
# usage: test_output_safety.sh BOUNCELAB     (TAP output)
set -u
bouncelab=$(realpath "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/bouncelab-output-safety.XXXXXX)
tiny=""
# The small tmpfs of the full-disk check is always unmounted.
trap '[ -n "$tiny" ] && umount "$tiny" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }

# expect STATUS WHAT -- COMMAND...: the exit status, and one message line.
expect() {
	local want=$1 what=$2 status
	shift 3
	timeout 120 "$@" >out.txt 2>err.txt </dev/null
	status=$?
	if [ "$status" = "$want" ]; then
		ok "$what: exit $status"
	else
		not_ok "$what: exit $status, expected $want"
		sed 's/^/#   /' err.txt | head -5
	fi
}

quick=(--quick --filter 'has_pinned/nop$' --threads 1 --repetitions 1 --counters none)
"$bouncelab" run "${quick[@]}" --out results.json >/dev/null 2>&1 ||
	{ echo "Bail out! cannot make a results file"; exit 1; }
latency=(topo --latency --samples 1 --round-trips 1 --pairs-per-class 1)

# --- devices, a FIFO, a link and an existing file, for every output option
mkfifo fifo
ln -s results.json link
echo keep >existing.json
mkdir report_dir
for force in "" --force; do
	for path in /dev/full /dev/null fifo link; do
		expect 2 "run --out $path $force" -- "$bouncelab" run "${quick[@]}" --out "$path" $force
		expect 2 "topo --latency-out $path $force" -- "$bouncelab" "${latency[@]}" --latency-out "$path" $force
		expect 2 "report -o $path $force" -- "$bouncelab" report results.json -o "$path" $force
	done
done
for dev in /dev/full /dev/null; do
	[ -c "$dev" ] && ok "$dev is still a device" || not_ok "$dev is no longer a device"
done
[ -p fifo ] && [ -L link ] && ok "the FIFO and the link are untouched" || not_ok "the FIFO or the link changed"
expect 2 "run --out an existing file" -- "$bouncelab" run "${quick[@]}" --out existing.json
expect 2 "topo --latency-out an existing file" -- "$bouncelab" "${latency[@]}" --latency-out existing.json
grep -qx keep existing.json && ok "the existing file is untouched" || not_ok "the existing file changed"
expect 0 "run --out an existing file --force" -- "$bouncelab" run "${quick[@]}" --out existing.json --force
grep -q '"benchmarks"' existing.json && ok "--force replaced it with a complete run" || not_ok "--force did not replace it"
expect 0 "report -o a new directory" -- "$bouncelab" report results.json -o report_dir
expect 2 "report -o a directory holding a report" -- "$bouncelab" report results.json -o report_dir
expect 0 "report -o a directory holding a report --force" -- "$bouncelab" report results.json -o report_dir --force
expect 2 "report -o a regular file" -- "$bouncelab" report results.json -o existing.json
left=$(find . -name '*.tmp.*' -o -name '*.lock' -o -name '.bouncelab*' | head -3)
[ -z "$left" ] && ok "no temporary file, probe or lock is left" || not_ok "left behind: $left"

# --- a directory made for the output goes again when the command fails
expect 2 "run --out new/dir/results.json with a bad option" -- "$bouncelab" run "${quick[@]}" --out new/dir/results.json --threads 0
[ ! -e new ] && ok "no directory made for a refused command" || not_ok "new/ was left behind"

# --- a second command on an output another one holds
# (A script's background job starts with SIGINT ignored, and bouncelab
# keeps what was ignored: env gives it the default back, as a terminal would.)
env --default-signal=INT "$bouncelab" run --filter 'has_pinned/nop$' --threads 1 \
	--repetitions 200 --min-time 0.01 --counters none --out held/results.json 2>held.err &
holder=$!
# However long the holder takes to start: the loops that wait here are
# bounded by the process they wait for, not by a count that a loaded
# machine can outlast.
while kill -0 "$holder" 2>/dev/null && [ ! -e held/results.json.journal ]; do sleep 0.1; done
expect 2 "a second run on a held --out" -- "$bouncelab" run "${quick[@]}" --out held/results.json --force
grep -q "another bouncelab" err.txt && ok "the refusal names the other writer" || not_ok "the refusal does not say why"
kill -INT "$holder"
wait "$holder"
holder_status=$?
[ "$holder_status" = 130 ] && [ -f held/results.json ] && [ ! -e held/results.json.journal ] &&
	ok "the holder, interrupted, wrote its rows (exit 130)" ||
	not_ok "the holder exited $holder_status"

# report takes its lock before it reads its inputs: a report started later
# on a held output is refused at its start, before reading a byte (the
# missing input shows it: the lock's refusal comes first)
mkdir -p held_report
# The lock held by a sleep that is the background job itself (killed
# below, it lets go at once), for as long as a loaded machine needs.
(exec 9>held_report/.bouncelab.lock && flock 9 && exec sleep 60) >/dev/null 2>&1 &
locker=$!
while kill -0 "$locker" 2>/dev/null && flock -n held_report/.bouncelab.lock true; do sleep 0.1; done
expect 2 "a report on a held -o" -- "$bouncelab" report missing.json -o held_report --force
grep -q "another bouncelab" err.txt && ok "refused for the lock before reading its inputs" ||
	not_ok "not refused for the lock first: $(head -1 err.txt)"
kill "$locker" 2>/dev/null
wait "$locker" 2>/dev/null
rm -rf held_report

# --- what a killed command leaves (SIGKILL: no handler runs) is taken over
# A lock file nobody holds (flock dies with its holder), a temporary file
# and a half-built report: the next command on the path succeeds and
# removes them, and says nothing of the lock.
# (4194305 is above any pid_max: a writer that no longer runs.)
mkdir -p stale/rep/.report.tmp.bouncelab-4194305.AbC123/plots
echo 999999 >stale/results.json.lock
echo '{"half' >stale/results.json.tmp.bouncelab-4194305.AbC123
echo 999999 >stale/rep/.bouncelab.lock
echo '<svg' >stale/rep/.report.tmp.bouncelab-4194305.AbC123/plots/half.svg
echo 999999 >stale/lat.json.lock
# What bouncelab did not make stays, whatever its name: a user's backup
# of the shape of a temporary name, one whose writer still runs (PID 1),
# and directories of the report's temporary shape
echo mine >stale/results.json.tmp.backup
echo mine >stale/results.json.tmp.AbC123
echo mine >stale/results.json.tmp.bouncelab-1.AbC123
mkdir -p stale/rep/.report.tmp.AbC123 stale/rep/.report.tmp.bouncelab-1.AbC123
echo mine >stale/rep/.report.tmp.AbC123/notes
expect 0 "run --out with a stale lock and temporary file" -- "$bouncelab" run "${quick[@]}" --out stale/results.json
grep -qi lock err.txt && not_ok "run spoke of the stale lock: $(head -1 err.txt)" || ok "run took the stale lock silently"
expect 0 "report -o with a stale lock and a half-built report" -- "$bouncelab" report results.json -o stale/rep
expect 0 "topo --latency-out with a stale lock" -- "$bouncelab" "${latency[@]}" --latency-out stale/lat.json
left=$(find stale -name '*.tmp.bouncelab-4194305*' -o -name '*.lock' -o -name '.bouncelab*' | head -3)
[ -z "$left" ] && ok "the killed commands' leftovers are gone" || not_ok "left behind: $left"
kept=0
for f in results.json.tmp.backup results.json.tmp.AbC123 results.json.tmp.bouncelab-1.AbC123 \
	rep/.report.tmp.AbC123/notes; do
	grep -qx mine "stale/$f" && kept=$((kept + 1))
done
[ "$kept" = 4 ] && [ -d stale/rep/.report.tmp.bouncelab-1.AbC123 ] &&
	ok "files of a temporary's shape that bouncelab did not leave stay" ||
	not_ok "a file of a temporary's shape was removed ($kept of 4 kept)"

# --- a lock path that is a hard link to another file: refused, the file
# untouched (O_NOFOLLOW stops symbolic links only)
echo precious >precious.txt
ln precious.txt hardlinked.json.lock
expect 2 "run --out whose lock is a hard link" -- "$bouncelab" run "${quick[@]}" --out hardlinked.json
grep -qx precious precious.txt && [ ! -e hardlinked.json ] &&
	ok "the hard-linked file is neither truncated nor written" || not_ok "the hard-linked file changed: $(cat precious.txt)"
mkdir -p linkrep && ln precious.txt linkrep/.bouncelab.lock
expect 2 "report -o whose lock is a hard link" -- "$bouncelab" report results.json -o linkrep
grep -qx precious precious.txt && ok "the report's hard-linked lock is untouched" || not_ok "precious.txt changed"
rm -rf linkrep hardlinked.json.lock

# --- --out NEWDIR/. and NEWDIR/..: refused before the run, nothing made
for path in newdot/. newdot/..; do
	expect 2 "run --out $path" -- "$bouncelab" run "${quick[@]}" --out "$path"
	[ "$(wc -l <err.txt)" = 1 ] && grep -q "expected a file path" err.txt &&
		ok "--out $path: one line, what was expected" || not_ok "--out $path: $(head -2 err.txt)"
done
[ ! -e newdot ] && ok "no directory left by --out NEWDIR/." || not_ok "newdot/ left behind"

# --- a path through a directory that is not there yet, then "..": the path
# is checked as it resolves once its directories exist, so an existing
# file at it is refused before the run, and what was made for it goes
mkdir -p dotdot && echo keep >dotdot/results.json
expect 2 "run --out made/../dotdot/results.json (exists)" -- "$bouncelab" run "${quick[@]}" --out made/../dotdot/results.json
grep -q "the file exists" err.txt && [ ! -e dotdot/results.json.journal ] &&
	ok "refused before the run, as the file it names" || not_ok "not refused at start: $(head -1 err.txt)"
expect 2 "report -o made/../dotdot/results.json (a file)" -- "$bouncelab" report results.json -o made/../dotdot/results.json
expect 2 "topo --latency-out made/../dotdot (a directory)" -- "$bouncelab" "${latency[@]}" --latency-out made/../dotdot
[ ! -e made ] && grep -qx keep dotdot/results.json && ok "no directory left by a refused made/../PATH" ||
	not_ok "made/ left behind, or the file changed"
rm -rf dotdot

# --- report -o DIR --force replaces only what bouncelab wrote: a results
# file in DIR/plots/ (reported on from there) and a user's file in
# DIR/will-it-scale/ stay; a plot the old report recorded and the new one
# does not have goes; a file at a plot's name that the record does not
# list is in the way (exit 2), and nothing changes
expect 0 "report -o keep" -- "$bouncelab" report results.json -o keep
cp results.json keep/plots/mine.json
echo mine >keep/will-it-scale/notes.csv
echo '<svg/>' >keep/plots/zz-recorded.svg
echo plots/zz-recorded.svg >>keep/.report.files
expect 0 "report -o keep --force on a file inside keep/plots" -- "$bouncelab" report keep/plots/mine.json -o keep --force
cmp -s results.json keep/plots/mine.json && grep -qx mine keep/will-it-scale/notes.csv &&
	ok "report --force kept the files it did not write" || not_ok "report --force removed or changed a user's file"
[ ! -e keep/plots/zz-recorded.svg ] && ok "report --force removed its old recorded plot" ||
	not_ok "an old recorded plot was left"
plot=$(cd keep && ls plots/*.svg | head -1)
sed -i "\|^$plot\$|d" keep/.report.files
cp keep/report.md before.md
expect 2 "report -o keep --force with a foreign file at a plot's name" -- "$bouncelab" report results.json -o keep --force
grep -q "not written by bouncelab" err.txt && cmp -s before.md keep/report.md && [ -f "keep/$plot" ] &&
	ok "the foreign file is named, the old report left whole" || not_ok "a foreign file at a plot's name: $(head -1 err.txt)"
left=$(find keep -name '.report.tmp.*' -o -name '.bouncelab*' | head -3)
[ -z "$left" ] && ok "nothing left by the refused report" || not_ok "left behind: $left"
# And a real SIGKILL in the middle of a run: the journal keeps its rows,
# the next run on the path says to resume, --resume recovers them.
"$bouncelab" run --filter 'has_pinned/nop$' --threads 1 --repetitions 200 --min-time 0.01 \
	--counters none --out killed/results.json 2>/dev/null &
victim=$!
# Killed once the journal holds its header and 4 repetitions, which the
# cases below damage, however long that takes: a fixed 0.3 s after the
# journal appeared left 2 repetitions on a loaded machine.
while kill -0 "$victim" 2>/dev/null &&
      [ "$(cat killed/results.json.journal 2>/dev/null | wc -l)" -lt 5 ]; do
	sleep 0.05
done
kill -KILL "$victim"
wait "$victim" 2>/dev/null
[ -e killed/results.json.lock ] && echo "# SIGKILL left killed/results.json.lock, held by nobody"
expect 2 "run --out after a SIGKILL, without --resume" -- "$bouncelab" run "${quick[@]}" --out killed/results.json --force
grep -q "run --resume" err.txt && ok "the refusal says to resume" || not_ok "the refusal does not say to resume: $(cat err.txt)"
# --resume --dry-run says what it would recover and changes nothing
expect 0 "run --resume --dry-run after a SIGKILL" -- "$bouncelab" run --resume killed --dry-run
grep -q "would recover" out.txt && [ -f killed/results.json.journal ] && [ ! -e killed/results.json ] &&
	ok "--resume --dry-run wrote nothing and kept the journal" || not_ok "--resume --dry-run: $(head -1 out.txt)"
expect 2 "run --resume with --threads" -- "$bouncelab" run --resume killed --threads 2
# A damaged line in the middle costs its own row, not the ones after it
lines=$(tr -cd '\n' <killed/results.json.journal | wc -c)
sed -i '3s/.*/{"name": "has_pinned\/nop", "torn/' killed/results.json.journal
cp killed/results.json.journal killed.journal
expect 0 "run --resume after a SIGKILL" -- "$bouncelab" run --resume killed
kept=$(python3 -c 'import json, sys; print(sum(r["run_type"] == "iteration" for r in json.load(open(sys.argv[1]))["benchmarks"]))' \
	killed/results.json 2>/dev/null)
[ "$lines" -ge 3 ] && [ "$kept" = $((lines - 2)) ] && grep -q "skipped 1 damaged" err.txt &&
	ok "every good line past a damaged one recovered ($kept of $((lines - 1)))" ||
	not_ok "a damaged journal line: ${kept:-no} rows of $((lines - 1)) lines: $(head -1 err.txt)"
grep -q '"incomplete"' killed/results.json && ok "the recovered rows are marked incomplete" ||
	not_ok "the recovered file is not marked incomplete"
left=$(find killed -name '*.tmp.*' -o -name '*.lock' -o -name '*.journal' | head -3)
[ -z "$left" ] && ok "nothing left after --resume" || not_ok "left behind: $left"
# A line that is whole JSON but a row report would refuse (a negative
# time, a string for a count) is damaged too: the file --resume writes is
# one report reads, and the rows around the bad ones are kept
mkdir -p refused && cp killed.journal refused/results.json.journal
sed -i -e '4s/"real_time": *[0-9.e+-]*/"real_time": -5/' \
	-e '5s/"iterations": *[0-9]*/"iterations": "many"/' refused/results.json.journal
expect 0 "run --resume of a journal with rows report would refuse" -- "$bouncelab" run --resume refused
grep -q "skipped 3 damaged" err.txt && ok "the refused rows are counted as damaged" ||
	not_ok "the refused rows: $(head -1 err.txt)"
expect 0 "report on what --resume recovered" -- "$bouncelab" report refused/results.json -o refused/rep

# --- the same run twice is not pooled as independent repetitions: the
# file twice, a copy, or a file and its own journal share a run_id
cp results.json copy.json
for pair in "results.json results.json" "results.json copy.json" "killed/results.json killed.journal"; do
	set -- $pair
	expect 2 "report $pair" -- "$bouncelab" report "$1" "$2" -o same_run
	[ "$(wc -l <err.txt)" = 1 ] && grep -q "$2: the same run as $1" err.txt &&
		grep -q "expected each run once" err.txt &&
		ok "report $pair: one line naming both" || not_ok "report $pair: $(head -2 err.txt)"
done
[ ! -e same_run ] && ok "no report directory left by a refused pair" || not_ok "same_run/ left behind"

# --- nohup: a signal ignored from the start stays ignored
env --ignore-signal=HUP "$bouncelab" run --filter 'has_pinned/nop$' --threads 1 \
	--repetitions 20 --min-time 0.01 --counters none --out nohup/results.json >nohup.out 2>nohup.err &
runner=$!
while kill -0 "$runner" 2>/dev/null && [ ! -e nohup/results.json.journal ]; do sleep 0.1; done
kill -HUP "$runner"
wait "$runner"
runner_status=$?
[ "$runner_status" = 0 ] && grep -q '"benchmarks"' nohup/results.json &&
	! grep -q incomplete nohup/results.json &&
	ok "a run whose SIGHUP was ignored (nohup) outlives a SIGHUP" ||
	not_ok "a run under nohup stopped at SIGHUP: exit $runner_status"

# --- stdout on /dev/full: every command says so and fails
full() {
	local what=$1 status
	shift
	timeout 120 "$@" >/dev/full 2>err.txt </dev/null
	status=$?
	if [ "$status" != 0 ] && grep -q "standard output\|No space" err.txt; then
		ok "$what >/dev/full: exit $status"
	else
		not_ok "$what >/dev/full: exit $status"
		sed 's/^/#   /' err.txt | head -3
	fi
}
full "--help" "$bouncelab" --help
full "--version" "$bouncelab" --version
full "run --help" "$bouncelab" run --help
full "list" "$bouncelab" list
full "compare" "$bouncelab" compare results.json results.json
full "topo" "$bouncelab" topo
full "gup" "$bouncelab" gup
full "run --dry-run" "$bouncelab" run "${quick[@]}" --dry-run
full "run (its summary)" "$bouncelab" run "${quick[@]}" --out full_run/results.json
full "report" "$bouncelab" report results.json -o full_report
full "report --brief" "$bouncelab" report --brief results.json -o full_brief
full "list --events" "$bouncelab" list --events
full "lesson" "$bouncelab" lesson
full "lesson has_pinned" "$bouncelab" lesson has_pinned
full "model" "$bouncelab" model
full "topo --latency" "$bouncelab" "${latency[@]}"
full "compare --help" "$bouncelab" compare --help

# --- a FIFO as HWLOC_XMLFILE, which hwloc would open itself and wait on:
# read under the input rule, as --topology is, and refused
# (a build without hwloc reads no topology file: nothing to refuse)
has_hwloc=1
"$bouncelab" topo 2>/dev/null | grep -q "no hwloc" && has_hwloc=0
if [ "$has_hwloc" = 1 ]; then
expect 2 "HWLOC_XMLFILE a FIFO" -- env HWLOC_XMLFILE=fifo "$bouncelab" topo
grep -q "'fifo': not a regular file (a FIFO): expected a regular file" err.txt &&
	ok "the refusal names the FIFO" || not_ok "the refusal does not name the FIFO: $(head -1 err.txt)"
# hwloc's hooks that have it read a directory's files itself (a fake
# sysfs with a FIFO where a CPU list goes): refused, by every command
# (HWLOC_FSROOT's files checked first, the others not read at all)
mkdir -p fsroot/sys/devices/system/cpu && mkfifo fsroot/sys/devices/system/cpu/online
for var in HWLOC_FSROOT HWLOC_CPUID_PATH HWLOC_DUMPED_HWDATA_DIR; do
	expect 2 "$var: topo" -- env "$var=$PWD/fsroot" timeout 10 "$bouncelab" topo
	grep -q "$var" err.txt && ok "the refusal names $var" || not_ok "$var: $(head -1 err.txt)"
done
expect 2 "HWLOC_FSROOT: run" -- env HWLOC_FSROOT="$PWD/fsroot" timeout 10 "$bouncelab" run "${quick[@]}" --dry-run
expect 2 "HWLOC_FSROOT: model" -- env HWLOC_FSROOT="$PWD/fsroot" timeout 10 "$bouncelab" model --family pingpong
fi

# --- a file size limit (ulimit -f): SIGXFSZ is ignored, so the write that
# crosses it fails (EFBIG) and the command's error path runs: exit 1, one
# line, and no lock or temporary file left
fsize() {
	local what=$1 status
	shift
	(ulimit -f 4; timeout 120 "$@" >fsize.out 2>err.txt </dev/null)
	status=$?
	if [ "$status" = 1 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -q "File too large" err.txt; then
		ok "$what under ulimit -f: exit 1, one line"
	else
		not_ok "$what under ulimit -f: exit $status"
		sed 's/^/#   /' err.txt | head -3
	fi
}
mkdir fsize && cd fsize || exit 1
fsize "run" "$bouncelab" run "${quick[@]}" --repetitions 100 --out r.json
fsize "report" "$bouncelab" report ../results.json -o rep
fsize "list > file" sh -c '"$1" list >list.txt' sh "$bouncelab"
left=$(find . -name '*.tmp.*' -o -name '*.lock' -o -name '.bouncelab*' -o -name '*.journal' -o -name rep | head -3)
[ -z "$left" ] && ok "nothing left behind under ulimit -f" || not_ok "left behind under ulimit -f: $left"
cd .. || exit 1

# --- few file descriptors (ulimit -n): every command either finishes or
# fails with exit 1, and leaves no lock, probe, temporary file or empty
# directory, even where a library ends the process itself (Google
# Benchmark exits when it cannot read sysfs: the claim is released at exit)
mkdir nofile && cd nofile || exit 1
# A sanitizer's runtime opens descriptors of its own and, halting at its
# first report (UBSan's vptr check in the C++ streams Google Benchmark
# writes to as it exits), ends the process before any exit handler: the
# release at exit is tested in the plain build only.
if [ -n "${ASAN_OPTIONS:-}${TSAN_OPTIONS:-}${UBSAN_OPTIONS:-}" ]; then
	ok "few file descriptors # SKIP a sanitizer's runtime ends the process before exit handlers"
else
for fds in 4 5 6 7; do
	for cmd in "run ${quick[*]} --out o$fds/r.json" "report ../results.json -o r$fds" \
		   "${latency[*]} --latency-out l$fds/l.json"; do
		# shellcheck disable=SC2086
		(ulimit -n $fds; timeout 120 "$bouncelab" $cmd >/dev/null 2>err.txt </dev/null)
		status=$?
		[ "$status" = 0 ] || [ "$status" = 1 ] &&
			ok "ulimit -n $fds: ${cmd%% *}: exit $status" ||
			not_ok "ulimit -n $fds: ${cmd%% *}: exit $status"
	done
done
left=$( (find . -name '*.tmp.*' -o -name '*.lock' -o -name '.bouncelab*'
	find . -mindepth 1 -maxdepth 1 -type d -empty) | head -3)
[ -z "$left" ] && ok "nothing left behind under ulimit -n" || not_ok "left behind under ulimit -n: $left"
fi
cd .. || exit 1

# --- out of memory while parsing a results file (ulimit -v): said so, exit 1,
# not "not valid JSON" with an empty reason. 3 million empty arrays: a 9 MB
# text that fits in 40 MB of address space, a tree of 150 MB that does not.
# A sanitizer's runtime maps far more than 40 MB for itself: skipped there.
python3 -c 'open("oom.json", "w").write("{\"context\": {}, \"benchmarks\": [" + ",".join(["[]"] * 3000000) + "]}")'
if [ -n "${ASAN_OPTIONS:-}${TSAN_OPTIONS:-}" ]; then
	ok "out of memory # SKIP a sanitizer build cannot start under ulimit -v 40000"
else
for cmd in "report oom.json -o oom_report" "compare oom.json results.json"; do
	(ulimit -v 40000; timeout 120 "$bouncelab" $cmd >/dev/null 2>err.txt </dev/null)
	status=$?
	[ "$status" = 1 ] && [ "$(cat err.txt)" = "bouncelab: out of memory reading oom.json" ] &&
		ok "${cmd%% *} out of memory: exit 1, said so" ||
		not_ok "${cmd%% *} out of memory: exit $status: $(head -1 err.txt)"
done
[ ! -e oom_report ] && ok "no report directory left by the out-of-memory report" || not_ok "oom_report/ left behind"
# The same rule for every JSON input (input_file_json()): a machine profile
# and a latency file of the same shape, each under its own size bound
python3 -c '
junk = ",".join(["[]"] * 3000000)
open("oom_profile.json", "w").write("{\"name\": \"x\", \"junk\": [" + junk + "]}")
open("oom_latency.json", "w").write("{\"latency\": {\"pairs\": [" + junk + "]}}")'
for cmd in "model --profile oom_profile.json --family pingpong" \
	   "report results.json --latency oom_latency.json -o oom_report"; do
	# shellcheck disable=SC2086
	(ulimit -v 40000; timeout 120 "$bouncelab" $cmd >/dev/null 2>err.txt </dev/null)
	status=$?
	[ "$status" = 1 ] && grep -qx "bouncelab: out of memory reading oom_[a-z]*.json" err.txt &&
		ok "$cmd: out of memory: exit 1, said so" ||
		not_ok "${cmd%% *} out of memory: exit $status: $(head -1 err.txt)"
done
rm -f oom_profile.json oom_latency.json
[ ! -e oom_report ] && ok "no report directory left by the out-of-memory latency file" || not_ok "oom_report/ left behind"
# A benchmark thread that cannot be created (ulimit -v): exit 1 and one line
# saying so, not std::system_error's abort (exit 134); nothing left. How much
# address space the run needs before its threads depends on the build (one
# without hwloc maps less), so the limit steps down until the second thread
# no longer fits; an abort at any step fails, and so does no step failing.
thread_outcome=""
for limit in 60000 50000 40000 32000 26000 22000 20000 18000; do
	rm -rf nothread
	(ulimit -v $limit; timeout 120 "$bouncelab" run --filter 'has_pinned/nop$' --threads 2 \
		--repetitions 3 --counters none --out nothread/r.json >/dev/null 2>err.txt </dev/null)
	status=$?
	if [ "$status" = 1 ] && grep -q "cannot create a benchmark thread" err.txt; then
		[ "$(grep -vc 'interleaved in rounds' err.txt)" = 1 ] && [ ! -e nothread ] &&
			thread_outcome=ok || thread_outcome="exit 1 at $limit KB: $(tail -1 err.txt)"
		break
	fi
	if [ "$status" = 134 ] || grep -q "system_error\|terminate called" err.txt; then
		thread_outcome="exit $status at $limit KB: $(tail -1 err.txt)"
		break
	fi
done
[ "$thread_outcome" = ok ] &&
	ok "a thread that cannot be created: exit 1, one line, nothing left" ||
	not_ok "a thread that cannot be created: ${thread_outcome:-no limit down to 18000 KB made it fail}"
rm -rf nothread
fi
rm -f oom.json

# --- a deeply nested context value: 2000 levels read and reported with a
# 256 KB stack (nothing recurses on it but the parser, bounded at 2048
# levels by jansson); past the bound, refused as malformed (exit 2)
python3 - results.json <<'PY'
import sys
text = open(sys.argv[1]).read()
at = text.index('"context": {') + len('"context": {')
for depth, name in ((2000, "deep.json"), (2100, "too_deep.json")):
    value = "[" * depth + "]" * depth
    deep = text[:at] + '"nested": ' + value + ', ' + text[at:]
    open(name, "w").write(deep.replace('"run_id": "', '"run_id": "%d-' % depth, 1))
PY
# AddressSanitizer puts a redzone around every local and keeps frames
# longer: the same calls need several times the stack there, so a
# sanitizer build gets 1 MB, still a fixed bound a recursion would pass.
stack_kb=256
[ -z "${ASAN_OPTIONS:-}" ] || stack_kb=1024
for cmd in "report deep.json -o deep_report" "report --brief deep.json -o deep_brief" "compare deep.json results.json"; do
	(ulimit -s $stack_kb; timeout 120 "$bouncelab" $cmd >/dev/null 2>err.txt </dev/null)
	status=$?
	[ "$status" = 0 ] && ok "${cmd% -o *} with a $stack_kb KB stack: exit 0" ||
		not_ok "${cmd% -o *} with a $stack_kb KB stack: exit $status: $(head -1 err.txt)"
done
expect 2 "a context value nested 2100 deep" -- "$bouncelab" report too_deep.json -o too_deep
grep -q "maximum parsing depth" err.txt && ok "the refusal says the depth" || not_ok "the refusal: $(head -1 err.txt)"
rm -f deep.json too_deep.json

# --- the README's exit-code table holds every status a command gave here
table=$(sed -n '/^## Exit status/,/^## /p' "$top/README.md" | grep -o '^| `[0-9+ N]*`' | tr -d '|` ')
for s in 0 1 2 3 128+N; do
	echo "$table" | grep -qx "$s" && ok "README lists exit status $s" || not_ok "README lacks exit status $s"
done

# --- a run whose every repetition fails
expect 1 "a run whose every repetition fails (--watchdog 1e-9)" -- \
	"$bouncelab" run --filter 'has_pinned/nop$' --threads 1 --repetitions 2 --counters none \
	--watchdog 1e-9 --out all_failed/results.json

# --- hostile results files
python3 - results.json <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
row = doc["benchmarks"][0]
bad = json.loads(json.dumps(doc))
bad["benchmarks"][0]["bouncelab"]["variant"] = "x`<img src=x onerror=alert(1)>`\n```"
json.dump(bad, open("hostile_variant.json", "w"))
foreign = json.loads(json.dumps(doc))
other = {k: v for k, v in row.items() if k != "bouncelab"}
other["name"] = other["run_name"] = "evil`<img src=x onerror=alert(1)>`\n```\n# owned"
foreign["benchmarks"].append(other)
foreign["context"]["command"] = "rm -rf ~ #\n```\n<script>alert(1)</script>"
foreign["context"]["run_id"] = "another-run"
foreign["context"]["host_name"] = "h\n```\n<b>x</b>"
json.dump(foreign, open("hostile_foreign.json", "w"))
open("bom.json", "wb").write(b"\xef\xbb\xbf" + open(sys.argv[1], "rb").read())
PY
# Control bytes (an OSC title, an SGR colour, a BEL) in a file's strings:
# shown escaped, never raw, in report.md, details.md, compare and model
python3 - results.json "$top/model/profiles/ryzen-5950x.json" <<'PY'
import json, sys
ctl = "\x1b]0;owned\x07\x1b[31m\x01"
doc = json.load(open(sys.argv[1]))
for key, value in list(doc["context"].items()):
    if isinstance(value, str) and key != "date":
        doc["context"][key] = value + ctl
other = {k: v for k, v in doc["benchmarks"][0].items() if k != "bouncelab"}
other["name"] = other["run_name"] = "evil" + ctl
doc["benchmarks"].append(other)
json.dump(doc, open("control_bytes.json", "w"))
profile = json.load(open(sys.argv[2]))
profile["title"] += ctl
json.dump(profile, open("control_profile.json", "w"))
PY
raw_controls() { LC_ALL=C grep -lP '[\x00-\x08\x0b-\x1f\x7f]' "$@"; }
expect 0 "report on a file with control bytes" -- "$bouncelab" report control_bytes.json -o cb
left=$(raw_controls cb/*.md)
[ -z "$left" ] && grep -q 'x1b' cb/report.md && ok "report.md and details.md show control bytes escaped" ||
	not_ok "raw control bytes in: $left"
expect 0 "compare on a file with control bytes" -- "$bouncelab" compare control_bytes.json control_bytes.json
[ -z "$(raw_controls out.txt)" ] && grep -q 'x1b' out.txt && ok "compare shows control bytes escaped" ||
	not_ok "compare printed raw control bytes"
# (a profile's machine is a synthetic hwloc topology: only with hwloc)
if [ "$has_hwloc" = 1 ]; then
expect 0 "model on a profile with control bytes" -- "$bouncelab" model --profile control_profile.json --family pingpong --threads 2
[ -z "$(raw_controls out.txt)" ] && grep -q 'x1b' out.txt && ok "model shows control bytes escaped" ||
	not_ok "model printed raw control bytes"
fi
expect 2 "a variant name outside the catalogue's characters" -- "$bouncelab" report hostile_variant.json -o hv
grep -q "letters, digits" err.txt && ok "the refusal says what names may hold" || not_ok "the refusal does not say why"
expect 0 "another tool's row with a tag in its name" -- "$bouncelab" report hostile_foreign.json results.json -o hf
if grep -q '<img\|<script\|<b>\|rm -rf' hf/report.md; then
	not_ok "raw HTML or the file's command reached report.md"
else
	ok "no raw HTML, and not the file's command, in report.md"
fi
fences=$(grep -c '^```' hf/report.md)
[ $((fences % 2)) = 0 ] && ok "code fences are balanced ($fences)" || not_ok "unbalanced code fences ($fences)"
expect 0 "a results file with a UTF-8 BOM" -- "$bouncelab" report bom.json -o bom_report

# --- a full disk fails at the start, not after the run: a 128 KB tmpfs
# (root only: mount), and a suite whose results need more than that
mkdir tiny_mount
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=128k tmpfs tiny_mount 2>/dev/null; then
	tiny=$PWD/tiny_mount
	expect 1 "run --out on a full disk" -- "$bouncelab" run --filter 'has_pinned' --threads 1 \
		--repetitions 50 --counters none --out tiny_mount/results.json
	grep -q "cannot reserve" err.txt && ok "the full disk is named before any benchmark runs" ||
		not_ok "no word of the disk"
	grep -q '^\[' err.txt && not_ok "benchmarks ran before the check" || ok "no benchmark ran"
	[ -z "$(ls -A tiny_mount)" ] && ok "nothing left on the full disk" || not_ok "left: $(ls -A tiny_mount)"
	umount tiny_mount && tiny=""
	# An estimate past the probe's 64 MB reservation (14 cases x 1000
	# repetitions: 115 MB) on an 80 MB disk: the rest is checked too
	mount -t tmpfs -o size=80m tmpfs tiny_mount && tiny=$PWD/tiny_mount
	expect 1 "run --out a 115 MB estimate on an 80 MB disk" -- "$bouncelab" run --filter 'has_pinned' \
		--threads 1 --repetitions 1000 --counters none --out tiny_mount/results.json
	grep -q "cannot reserve 114.8 MB" err.txt && [ -z "$(ls -A tiny_mount)" ] &&
		ok "an estimate past the probe's cap is checked against the free space" ||
		not_ok "past the probe's cap: $(head -1 err.txt)"
	umount tiny_mount && tiny=""
	# The disk fills during the run: the journal write that fails stops
	# the run, and that repetition is neither counted nor shown; every
	# one shown is in the journal, and --resume recovers them all.
	# "During": once the journal holds its header and a first repetition,
	# however long the run takes to get there (a loaded or sanitized
	# build took over the 10 s this waited once, and the disk filled
	# before the run had reserved its space: a refusal, not this case).
	mount -t tmpfs -o size=4m tmpfs tiny_mount && tiny=$PWD/tiny_mount
	"$bouncelab" run --filter 'has_pinned/nop$' --threads 1 --repetitions 400 --min-time 0.005 \
		--counters none --out tiny_mount/results.json 2>filled.err &
	runner=$!
	while kill -0 "$runner" 2>/dev/null &&
	      [ "$(cat tiny_mount/results.json.journal 2>/dev/null | wc -l)" -lt 2 ]; do
		sleep 0.1
	done
	dd if=/dev/zero of=tiny_mount/fill bs=4k 2>/dev/null
	wait "$runner"
	runner_status=$?
	rm -f tiny_mount/fill
	shown=$(tr '\r' '\n' <filled.err | grep -c '^\[')
	"$bouncelab" run --resume tiny_mount/results.json 2>resumed.err
	kept=$(python3 -c 'import json, sys; print(sum(r["run_type"] == "iteration" for r in json.load(open(sys.argv[1]))["benchmarks"]))' \
		tiny_mount/results.json 2>/dev/null)
	[ "$runner_status" = 1 ] && grep -q "stopping the run after $shown repetitions: cannot write the journal" filled.err &&
		[ "$kept" = "$shown" ] &&
		ok "a disk that fills mid-run: $shown repetitions shown, $kept recovered" ||
		not_ok "a disk that fills mid-run: exit $runner_status, $shown shown, ${kept:-no} rows recovered: $(grep -v '^\[' filled.err | tail -2)"
	umount tiny_mount && tiny=""
else
	n=$((n + 1)); echo "ok $n # SKIP full-disk check needs root to mount a tmpfs"
fi

echo "1..$n"
[ "$failed" = 0 ]
