#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/lab fleet's options, without a cluster: bad options are refused
# with exit 2, one line naming the value, and nothing made; --dry-run
# prints the array on exclusive nodes, the afterok report job and the
# run options passed through, and submits nothing.
#
#   test_fleet_cli.sh BOUNCELAB SOURCE_DIR
set -u
bouncelab=$1
top=$2
. "$(dirname "$0")/test_lib.sh"
fleet() {
	BOUNCELAB=$bouncelab "$top/scripts/lab" fleet "$@"
}

# expect_bad NAME ARGS...: exit 2, one line on stderr naming NAME.
expect_bad() {
	local name=$1
	shift
	fleet "$@" --results "$tmp/never" >"$tmp/out" 2>"$tmp/err"
	local rc=$? lines
	lines=$(wc -l <"$tmp/err")
	[ $rc -eq 2 ] || fail "$*: exit $rc, expected 2"
	[ "$lines" -eq 1 ] || fail "$*: $lines lines on stderr, expected 1: $(cat "$tmp/err")"
	grep -qF -- "$name" "$tmp/err" || fail "$*: stderr does not name '$name': $(cat "$tmp/err")"
	[ ! -e "$tmp/never" ] || fail "$*: made the results directory"
}

expect_bad "'--bogus'" --bogus
expect_bad "--nodes 'x'" --nodes x
expect_bad "--nodes '0'" --nodes 0
expect_bad "--nodes" --nodes
expect_bad "--nodes '2' and --nodelist 'a'" --nodes 2 --nodelist a
expect_bad "--partition 'a b'" --partition 'a b' --nodes 1
expect_bad "--time 'soon'" --time soon --nodes 1
expect_bad "--account 'a b'" --account 'a b' --nodes 1
expect_bad "--account 'lab;rm'" --account 'lab;rm' --nodes 1
expect_bad "--qos 'high\$'" --qos 'high$' --nodes 1
expect_bad "--constraint 'a b'" --constraint 'a b' --nodes 1
expect_bad "--constraint '&epyc'" --constraint '&epyc' --nodes 1
expect_bad "--constraint 'epyc|'" --constraint 'epyc|' --nodes 1
expect_bad "--account" --nodes 1 --account
expect_bad "--nodelist 'a;b'" --nodelist 'a;b'
# a count past Slurm's array indices (bash's arithmetic wrapped it into
# --array=0-7766279631452241918), and host lists whose brackets do not pair
expect_bad "--nodes '99999999999999999999'" --nodes 99999999999999999999 --dry-run
expect_bad "--nodes '4000001'" --nodes 4000001 --dry-run
expect_bad "--nodelist 'n[1-3'" --nodelist 'n[1-3' --dry-run
expect_bad "--nodelist 'n[1-3]]'" --nodelist 'n[1-3]]' --dry-run
expect_bad "--nodelist 'n[a-b]'" --nodelist 'n[a-b]' --dry-run
expect_bad "--nodelist ',a'" --nodelist ',a' --dry-run
# run's own checks, once, before anything is submitted
expect_bad "--repetitions '0'" --repetitions 0 --nodes 1 --dry-run
expect_bad "--threads" --threads 0 --nodes 1 --dry-run
expect_bad "placement 'bogus'" --placement bogus --nodes 1 --dry-run
# ...but checked on a node as large as bouncelab plans on, not this login
# node: CPUs and classes a compute node has are not refused here
for placement in cpus:0-63 pair:cross_package pair:numa pair:l2; do
	fleet --nodes 2 --placement "$placement" --threads 2 --filter '^has_pinned/nop$' \
		--results "$tmp/never" --dry-run >/dev/null 2>"$tmp/err" ||
		fail "--placement $placement refused on the login node: $(cat "$tmp/err")"
done
fleet --nodes 2 --placement cpus:0-63 --threads 64 --filter '^has_pinned/nop$' \
	--results "$tmp/never" --dry-run >/dev/null 2>"$tmp/err" ||
	fail "--threads 64 refused on the login node: $(cat "$tmp/err")"
# no cluster answering sinfo: one line, not a silent exit 1
PATH="$tmp/nosinfo:$PATH"
mkdir -p "$tmp/nosinfo" && printf '#!/bin/sh\nexit 1\n' >"$tmp/nosinfo/sinfo" && chmod +x "$tmp/nosinfo/sinfo"
expect_bad "sinfo shows no nodes" --dry-run
PATH=${PATH#"$tmp/nosinfo:"}

mkdir "$tmp/full" && touch "$tmp/full/results-old.json"
fleet --nodes 1 --results "$tmp/full" --dry-run >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "expected a new or empty directory" "$tmp/err" ||
	fail "a results directory with files is not refused: $(cat "$tmp/err")"

# --dry-run: the array, exclusive, the report job after it, run's options.
fleet --nodes 3 --partition batch --quick --filter 'has_pinned|counter' \
	--results "$tmp/dry" --dry-run >"$tmp/dry.out" 2>"$tmp/err" ||
	fail "--dry-run exited $?: $(cat "$tmp/err")"
[ ! -e "$tmp/dry" ] || fail "--dry-run made the results directory"
suite=$(grep "suite.sbatch" "$tmp/dry.out")
merge=$(grep "merge.sbatch" "$tmp/dry.out")
for want in --array=0-2 --exclusive --nodes=1 --partition=batch --quick \
	'has_pinned\|counter' 'compact\,spread' "$tmp/dry"; do
	grep -qF -- "$want" <<<"$suite" || fail "the suite job lacks $want: $suite"
done
for want in --dependency=afterok: --kill-on-invalid-dep=yes --partition=batch "$tmp/dry"; do
	grep -qF -- "$want" <<<"$merge" || fail "the report job lacks $want: $merge"
done

# The site's options: account and QOS on both jobs, the constraint and
# the time limit on the suite's nodes only (the report job runs anywhere).
fleet --nodes 2 --account lab-7 --qos high --constraint 'epyc&(ib|roce)' --time 1:30:00 \
	--partition batch --results "$tmp/dry" --dry-run >"$tmp/site.out" 2>"$tmp/err" ||
	fail "--dry-run with the site's options exited $?: $(cat "$tmp/err")"
suite=$(grep "suite.sbatch" "$tmp/site.out")
merge=$(grep "merge.sbatch" "$tmp/site.out")
# each as sbatch receives it: the printed command is shell-quoted
suite_words=$(eval "printf '%s\n' $suite")
merge_words=$(eval "printf '%s\n' $merge")
for want in --account=lab-7 --qos=high '--constraint=epyc&(ib|roce)' --time=1:30:00 --partition=batch; do
	grep -qxF -- "$want" <<<"$suite_words" || fail "the suite job lacks $want: $suite"
done
for want in --account=lab-7 --qos=high --partition=batch; do
	grep -qxF -- "$want" <<<"$merge_words" || fail "the report job lacks $want: $merge"
done
grep -q -- "--constraint" <<<"$merge" && fail "the report job is held to the suite's node features: $merge"

# A run inside a Slurm job records the job in its context; the report's
# environment names it on one line, and a run outside one records none.
slurm_run() {
	"$bouncelab" run --filter '^has_pinned/nop$' --threads 1 --repetitions 1 --min-time 0.001 \
		--counters none --out "$1" >/dev/null 2>"$tmp/err" || fail "run exited $?: $(cat "$tmp/err")"
}
SLURM_JOB_ID=4242 SLURM_CLUSTER_NAME=lab SLURM_JOB_NODELIST='node[01-02]' SLURM_JOB_PARTITION=batch \
	SLURM_ARRAY_JOB_ID=4240 SLURM_ARRAY_TASK_ID=2 slurm_run "$tmp/slurm.json"
(unset SLURM_JOB_ID; slurm_run "$tmp/plain.json")
python3 - "$tmp/slurm.json" "$tmp/plain.json" <<'PY' || fail "context.slurm is not the job's variables"
import json, sys
slurm = json.load(open(sys.argv[1]))["context"].get("slurm")
want = {"job_id": "4242", "cluster_name": "lab", "node_list": "node[01-02]",
        "partition": "batch", "array_job_id": "4240", "array_task_id": "2"}
assert slurm == want, slurm
assert "slurm" not in json.load(open(sys.argv[2]))["context"]
PY
"$bouncelab" report "$tmp/slurm.json" -o "$tmp/slurm-report" >/dev/null 2>"$tmp/err" ||
	fail "report exited $?: $(cat "$tmp/err")"
grep -qxF '| Slurm | job 4242 (array 4240, task 2), cluster lab, nodes node\[01-02\], partition batch |' \
	"$tmp/slurm-report/report.md" || fail "the report's environment does not name the Slurm job: $(grep -i slurm "$tmp/slurm-report/report.md")"
"$bouncelab" report "$tmp/plain.json" -o "$tmp/plain-report" >/dev/null 2>"$tmp/err" ||
	fail "report exited $?: $(cat "$tmp/err")"
grep -q '| Slurm |' "$tmp/plain-report/report.md" && fail "a run outside Slurm has a Slurm row"

# A node list: one job per node, each sent to its node.
fleet --nodelist n1,n2 --placement cores --results "$tmp/dry" --dry-run >"$tmp/list.out" 2>&1 ||
	fail "--nodelist --dry-run failed: $(cat "$tmp/list.out")"
[ "$(grep -c "suite.sbatch" "$tmp/list.out")" -eq 2 ] || fail "not one job per listed node"
grep -q -- "--nodelist=n1 " "$tmp/list.out" && grep -q -- "--nodelist=n2 " "$tmp/list.out" ||
	fail "the jobs are not sent to n1 and n2"
grep -q -- "--placement cores" "$tmp/list.out" && ! grep -q "compact" "$tmp/list.out" ||
	fail "--placement does not replace the default placements"

[ $failures -eq 0 ] || exit 1
echo "ok: fleet options"
