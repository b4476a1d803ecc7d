#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The fleet on a real Slurm cluster of one node: this machine.
#
#   test_fleet_slurm.sh BOUNCELAB SOURCE_DIR
#
# Starts munged, slurmctld and slurmd from Debian's packages, with a
# slurm.conf made for this host and its CPUs and every file (key, state,
# spool, logs, pid files, socket) under a temporary directory, on ports
# nobody uses. Then `scripts/lab fleet --quick --nodes 2 --wait` submits
# a small suite as a two-task array and the report job; both tasks run on
# this node, one after the other (exclusive), and the report must name
# both tasks' results files and pool them as one machine. On the way out,
# even after a failure: our jobs are cancelled, then the daemons we
# started are stopped by the PIDs they wrote, and nothing may be left.
# Skips (77) when Slurm cannot start here: not root, or no packages.
set -u
bouncelab=$1
top=$2

skip() {
	echo "SKIP: $*"
	exit 77
}

[ "$(id -u)" -eq 0 ] || skip "not root: slurmd must run as root to start jobs"
for tool in munged mungekey slurmctld slurmd sbatch squeue sinfo scancel python3; do
	command -v $tool >/dev/null ||
		skip "no $tool here (Debian: apt-get install slurm-wlm munge)"
done

tmp=$(mktemp -d /tmp/bouncelab-fleet-slurm.XXXXXX) || exit 1
# munged insists that every directory above its socket is searchable.
chmod 755 "$tmp"
export SLURM_CONF=$tmp/slurm.conf
failures=0
started=()	# "name pid" of each daemon we started
fleet_pid=

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# Processes of this test's cluster (jobs and step daemons included): they
# carry the temporary directory in their environment or command line.
# This test and its subshells have it too, and are left out.
cluster_pids() {
	local p
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[ "$p" = $$ ] || [ "$p" = "$BASHPID" ] && continue
		{ tr '\0' '\n' <"/proc/$p/environ" ; tr '\0' '\n' <"/proc/$p/cmdline"; } 2>/dev/null |
			grep -qF "$tmp" && echo "$p"
	done
}

# A PID that still runs the program we started under it (PIDs get reused).
alive() {
	[ "$(cat "/proc/$2/comm" 2>/dev/null)" = "$1" ]
}

stop_pid() {
	local name=$1 pid=$2 i
	alive "$name" "$pid" || return 0
	kill "$pid" 2>/dev/null
	for i in $(seq 50); do
		alive "$name" "$pid" || return 0
		sleep 0.2
	done
	echo "$name ($pid) ignored SIGTERM: SIGKILL"
	kill -9 "$pid" 2>/dev/null
	sleep 0.2
}

cleanup() {
	local status=$? i p left entry
	trap - EXIT INT TERM
	# The fleet command, if a signal cut the wait for it short.
	if [ -n "${fleet_pid:-}" ]; then
		kill "$fleet_pid" 2>/dev/null
		wait "$fleet_pid" 2>/dev/null
	fi
	if alive slurmctld "$(cat "$tmp/slurmctld.pid" 2>/dev/null)"; then
		scancel --quiet --user=root 2>/dev/null
		for i in $(seq 50); do
			[ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
			sleep 0.2
		done
	fi
	# Daemons in the reverse order of starting.
	for ((i = ${#started[@]} - 1; i >= 0; i--)); do
		entry=${started[i]}
		stop_pid "${entry% *}" "${entry#* }"
	done
	# Anything of our cluster still running (a job step slurmd left):
	# stopped by PID, and it fails the test.
	left=$(cluster_pids)
	if [ -n "$left" ]; then
		echo "FAIL: still running after the daemons stopped:"
		for p in $left; do
			ps -o pid=,args= -p "$p"
			kill -9 "$p" 2>/dev/null
		done
		status=1
	fi
	if [ $status -ne 0 ]; then
		for log in "$tmp"/*.log "$tmp"/results/slurm-*.out; do
			[ -f "$log" ] && { echo "--- $log"; tail -n 15 "$log"; }
		done
	fi
	echo "[${SECONDS}s] stopped: ${started[*]}"
	rm -rf "$tmp"
	exit $status
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Waits up to $1 tenths of a second for a daemon's pid file, and records it.
record_pid() {
	local name=$1 file=$2 i pid
	for i in $(seq 100); do
		pid=$(cat "$file" 2>/dev/null)
		if [ -n "$pid" ] && alive "$name" "$pid"; then
			started+=("$name $pid")
			return 0
		fi
		sleep 0.1
	done
	echo "SKIP: $name did not start (log: $(tail -n 3 "$tmp/$name.log" 2>/dev/null | tr '\n' ' '))"
	return 1
}

# munge: a key of our own, the socket in our directory.
mkdir -m 755 "$tmp/munge" "$tmp/state" "$tmp/spool"
mungekey --create --keyfile="$tmp/munge.key" 2>/dev/null || skip "mungekey cannot create a key"
munged --socket="$tmp/munge/munge.socket" --key-file="$tmp/munge.key" \
	--pid-file="$tmp/munged.pid" --log-file="$tmp/munged.log" \
	--seed-file="$tmp/munged.seed" 2>"$tmp/munged.err" ||
	skip "munged cannot start: $(head -n 1 "$tmp/munged.err")"
record_pid munged "$tmp/munged.pid" || exit 77

# The node as slurmd sees this machine (CPUs, sockets, cores, threads),
# with less memory than it has, so that the node is never refused.
host=$(hostname -s)
node=$(slurmd -C 2>/dev/null | head -n 1)
memory=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$node")
[ -n "$memory" ] || skip "slurmd -C does not describe this machine"
node=$(sed "s/RealMemory=[0-9]*/RealMemory=$((memory / 2))/" <<<"$node")
# Two ports free now (another test cluster may hold the default ones).
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s:
    x.bind(("", 0))
print(*[x.getsockname()[1] for x in s])')

cat >"$SLURM_CONF" <<EOF
ClusterName=bouncelab-test
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
$node State=UNKNOWN
PartitionName=fleet Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -f "$SLURM_CONF" 2>"$tmp/slurmctld.err" ||
	skip "slurmctld cannot start: $(head -n 1 "$tmp/slurmctld.err")"
record_pid slurmctld "$tmp/slurmctld.pid" || exit 77
slurmd -f "$SLURM_CONF" 2>"$tmp/slurmd.err" ||
	skip "slurmd cannot start: $(head -n 1 "$tmp/slurmd.err")"
record_pid slurmd "$tmp/slurmd.pid" || exit 77
for i in $(seq 100); do
	[ "$(sinfo -h -o %T 2>/dev/null)" = idle ] && break
	sleep 0.2
done
[ "$(sinfo -h -o %T 2>/dev/null)" = idle ] ||
	skip "the node is not idle after 20 s: $(sinfo -h -o '%T %E' 2>&1)"
echo "[${SECONDS}s] one-node cluster up: $host, $(sed 's/.*CPUs=\([0-9]*\).*/\1/' <<<"$node") CPUs, munged/slurmctld/slurmd: ${started[*]}"

# The fleet run. What runs on the node is not what this test checks (the
# suite has tests of its own): one family's fix, before and after, at 1
# and 2 threads, keeps each task to seconds, where the whole quick suite
# took 114 s a task under a load of 13 on 2 CPUs and met a 150 s bound.
suite=(--quick --filter '^has_pinned/(store_always|read_then_set)/placement:' --threads 1,2)
# Bounded by progress, not by the clock, since load stretches every step:
# the run is stuck when for STALL_S seconds nothing moved, neither the
# fleet's own output, nor a file under the results directory (each task's
# log gains a line per benchmark, its journal one per repetition, the
# report job writes the report), nor a job's state in squeue. Then it is
# stopped, and fails. A wall-clock bound stays only in meson's timeout.
STALL_S=90
progress() {
	{
		stat -c %s "$tmp/fleet.out"
		find "$tmp/results" -type f -printf '%p %s\n' | sort
		squeue -h -o '%i %T' | sort
	} 2>/dev/null | cksum
}
start=$(date +%s)
# In the background, watched a second at a time: a SIGTERM (meson's
# timeout) runs the cleanup within a second, not after the fleet ends.
BOUNCELAB=$bouncelab "$top/scripts/lab" fleet "${suite[@]}" --nodes 2 \
	--partition fleet --time 10 --results "$tmp/results" --wait >"$tmp/fleet.out" 2>&1 &
fleet_pid=$!
seen=$(progress)
moved=$SECONDS
stalled=0
while kill -0 "$fleet_pid" 2>/dev/null; do
	sleep 1
	now=$(progress)
	if [ "$now" != "$seen" ]; then
		seen=$now
		moved=$SECONDS
	elif [ $((SECONDS - moved)) -ge $STALL_S ]; then
		stalled=1
		echo "[${SECONDS}s] no progress for $STALL_S s; jobs: $(squeue -h -o '%i %T %r' 2>&1 | tr '\n' ' ')"
		kill "$fleet_pid" 2>/dev/null
		break
	fi
done
wait $fleet_pid
rc=$?
fleet_pid=
elapsed=$(($(date +%s) - start))
cat "$tmp/fleet.out"
echo "[${SECONDS}s] fleet run: exit $rc after $elapsed s"
[ $stalled -eq 0 ] || fail "the fleet made no progress for $STALL_S s: stopped"
[ $rc -eq 0 ] || fail "scripts/lab fleet exited $rc"

shopt -s nullglob
files=("$tmp"/results/results-"$host"-*.json)
[ ${#files[@]} -eq 2 ] || fail "${#files[@]} results files, expected one per array task (2)"
tasks=$(printf '%s\n' "${files[@]}" | sed -n 's/.*-\([0-9]*\)\.json$/\1/p' | sort | tr '\n' ' ')
[ "$tasks" = "0 1 " ] || fail "array task numbers in the names: '$tasks', expected '0 1 '"
report=$tmp/results/report/report.md
if [ -f "$report" ]; then
	for f in "${files[@]}"; do
		grep -qF "$(basename "$f")" "$report" || fail "the report does not name $(basename "$f")"
	done
	grep -q "same host and build: pooled" "$report" ||
		fail "the report does not pool the two tasks' results as one machine"
else
	fail "no merged report at $report"
fi
# Each task's run recorded the job Slurm ran it in, as Slurm set it.
for f in "${files[@]}"; do
	task=${f##*-}
	task=${task%.json}
	python3 - "$f" "$host" "$task" <<'PY' || fail "$(basename "$f"): context.slurm is not its job's"
import json, sys
path, host, task = sys.argv[1:]
s = json.load(open(path))["context"].get("slurm") or {}
want = {"cluster_name": "bouncelab-test", "partition": "fleet", "node_list": host,
        "array_task_id": task}
bad = {k: s.get(k) for k in want if s.get(k) != want[k]}
if bad or not s.get("job_id", "").isdigit() or not s.get("array_job_id", "").isdigit():
    sys.exit(f"context.slurm {s}, expected {want} and numeric job ids")
PY
done
grep -q '^| Slurm | job [0-9]* (array [0-9]*, task [01]), cluster bouncelab-test' "$report" ||
	fail "the report's environment does not name the Slurm jobs"
for task in 0 1; do
	log=$(echo "$tmp"/results/slurm-bouncelab-suite-*_$task.out)
	[ -n "$log" ] && grep -q "^fleet: $host: job [0-9]* task $task" $log ||
		fail "no log of array task $task on $host"
done

[ $failures -eq 0 ] || exit 1
echo "ok: two array tasks' results merged in one report in $elapsed s"
