#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The report through the CLI.
#
#   report_checks.sh CHECK BOUNCELAB TESTS_DIR PYTHON3
#
# malformed: every file of tests/data/malformed is refused with exit 2, one
#            line on stderr naming it, and no output directory; so are bad
#            command lines of report and compare;
# fixed:     the fixed results file's report passes check_report.py (prose
#            matches tables, links and SVGs valid), and a report whose
#            verdict was altered fails it;
# many:      a generated 500-benchmark file reports and passes the check;
# rounds:    a run whose rounds switched between a fast and a slow mode
#            (tests/data/results-rounds.json): paired by round, the claim
#            "store_always / read_then_set <= 2.00x" is seen with a CI of
#            0.90-1.24; the same rows without rounds (its context names no
#            `bouncelab run`) give a bootstrap CI past 2x, not seen;
# quick-run: a real `run --quick` reports and passes the check, says it
#            ran in rounds as the report's pairing reads it, and
#            compares with itself to a geometric mean of 1.00x.
set -u
check=$1 bouncelab=$2 tests=$3 python3=$4
. "$(dirname "$0")/test_lib.sh"

# expect_usage_error NAME-IN-MESSAGE ARGS...: exit 2, one "bouncelab: " line naming it.
expect_usage_error() {
	name=$1
	shift
	"$bouncelab" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	lines=$(wc -l <"$tmp/stderr")
	[ "$rc" -eq 2 ] || fail "$*: exit $rc, expected 2"
	[ "$lines" -eq 1 ] || fail "$*: $lines lines on stderr, expected 1"
	grep -q "^bouncelab: .*$name" "$tmp/stderr" || fail "$*: stderr does not name $name: $(cat "$tmp/stderr")"
}

malformed() {
	count=0
	for f in "$tests"/data/malformed/*; do
		expect_usage_error "$f" report "$f" -o "$tmp/out"
		[ ! -e "$tmp/out" ] || fail "$f: wrote $tmp/out"
		rm -rf "$tmp/out"
		expect_usage_error "$f" compare "$tests/data/results-fixed.json" "$f"
		count=$((count + 1))
	done
	[ "$count" -ge 30 ] || fail "only $count malformed files"
	expect_usage_error "$tmp/missing.json" report "$tmp/missing.json" -o "$tmp/out"
	expect_usage_error "$tests/data" report "$tests/data" -o "$tmp/out"
	expect_usage_error "output directory" report "$tests/data/results-fixed.json"
	expect_usage_error "results file" report -o "$tmp/out"
	expect_usage_error "--bogus" report --bogus "$tests/data/results-fixed.json" -o "$tmp/out"
	expect_usage_error "two results files" compare "$tests/data/results-fixed.json"
	[ ! -e "$tmp/out" ] || fail "a refused command wrote $tmp/out"
	echo "$count malformed files refused"
}

report_and_check() {
	"$bouncelab" report "$@" -o "$tmp/out" >/dev/null || fail "report $* failed"
	"$python3" "$tests/check_report.py" "$tmp/out" || fail "check_report on $*"
}

fixed() {
	# --full: every setting's verdict in full, each checked against its table.
	report_and_check "$tests/data/results-fixed.json" --full
	[ "$(grep -c '^\*\*Verdict\.\*\*' "$tmp/out/report.md")" -eq 4 ] ||
		fail "report --full: expected a verdict for each of the 4 settings"
	rm -rf "$tmp/out"
	report_and_check "$tests/data/results-fixed.json" --latency "$tests/data/latency-fixed.json"
	# The check itself must catch a number that differs from its table.
	sed 's/\(\*\*Verdict\.\*\* At [0-9]* threads, `[a-z_]*` [^:]*: `[a-z_]*` is [a-z ]* (\)[0-9.]*x/\19999x/' \
		"$tmp/out/report.md" >"$tmp/altered.md"
	cmp -s "$tmp/altered.md" "$tmp/out/report.md" && fail "the alteration changed nothing"
	mv "$tmp/altered.md" "$tmp/out/report.md"
	"$python3" "$tests/check_report.py" "$tmp/out" >/dev/null && fail "check_report missed an altered verdict"
	floor_vs_matrix
	compare_doubled
	return 0
}

# The suite's pingpong floor and topo --latency's agree in the fixed files;
# a matrix whose smt pairs are twice as slow must be called out, with why.
floor_vs_matrix() {
	grep -q "^At distance \`smt\`, the suite's \`store_load\` floor is 18.0 one-way ns .*: they agree\.$" \
		"$tmp/out/report.md" || fail "the smt floor and the matrix are not said to agree"
	sed 's/"one_way_ns": 18\.[26]/"one_way_ns": 40.5/' "$tests/data/latency-fixed.json" >"$tmp/slow-smt.json"
	"$bouncelab" report "$tests/data/results-fixed.json" --latency "$tmp/slow-smt.json" \
		-o "$tmp/slow-smt" >/dev/null || fail "report with a slow smt matrix failed"
	grep -q "matrix's median is 40.5 one-way ns, 2.25x apart\. .*moved a vCPU" "$tmp/slow-smt/report.md" ||
		fail "a 2.25x gap between the floor and the matrix is not explained"
}

# B is A with store_always twice as slow and its counters doubled: compare
# must say 2.00x for exactly those rows, counters included.
compare_doubled() {
	"$python3" - "$tests/data/results-fixed.json" "$tmp/doubled.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for row in doc["benchmarks"]:
    facts = row.get("bouncelab", {})
    if facts.get("variant") in ("store_always", "locked_cmpxchg") and "ns_per_op" in row:
        row["ns_per_op"] *= 2
        if "retries_per_success" in row:
            row["retries_per_success"] *= 2
json.dump(doc, open(sys.argv[2], "w"))
PY
	"$bouncelab" compare "$tests/data/results-fixed.json" "$tmp/doubled.json" >"$tmp/compare.txt" ||
		fail "compare exited $?"
	grep -q '^| has_pinned/store_always/real_time/threads:4 \[pin_work=1, flag_line=shared, placement compact\] | [0-9.]* | [0-9.]* | 2.00x (95% CI' "$tmp/compare.txt" ||
		fail "compare: no 2.00x row for store_always"
	grep -q '^| has_pinned/read_then_set/real_time/threads:4 \[pin_work=1, flag_line=shared, placement compact\] | [0-9.]* | [0-9.]* | 1.00x (95% CI' "$tmp/compare.txt" ||
		fail "compare: read_then_set should be 1.00x"
	grep -q '^|     counter retries_per_success | 0.340 | 0.680 | 2.00x' "$tmp/compare.txt" ||
		fail "compare: counter retries_per_success not doubled"
	grep -q '^| BM_memcpy/64 | ' "$tmp/compare.txt" ||
		fail "compare: another tool's benchmark not compared"
	grep -q '^Geometric mean of B/A over [0-9]* benchmarks: 1.[0-9]*x' "$tmp/compare.txt" ||
		fail "compare: no geometric mean"
}

# A claim the results contradict is shown at the top, marked NOT SEEN with
# its numbers (tests/data/results-claims.json: same_line is 6.30 vs 5.30
# ns/op, 1.19x, where false_sharing claims at least 2x), and a claim the
# run cannot test says why (update=plain ran at 1 thread only).
claims() {
	report_and_check "$tests/data/results-claims.json"
	md="$tmp/out/report.md"
	first_not_seen=$(grep -n 'NOT SEEN in this run' "$md" | head -1 | cut -d: -f1)
	line=$(grep -n 'a locked update pays a line transfer' "$md" | head -1 | cut -d: -f1)
	summary=$(grep -n '^| family | lesson' "$md" | head -1 | cut -d: -f1)
	environment=$(grep -n '^## Environment' "$md" | cut -d: -f1)
	[ -n "$first_not_seen" ] && [ -n "$summary" ] && [ -n "$line" ] ||
		{ fail "claims: no NOT SEEN banner, claim line or summary table"; return; }
	[ "$first_not_seen" -lt "$summary" ] && [ "$line" -lt "$summary" ] ||
		fail "claims: the claim not seen is not above the summary table"
	[ "$summary" -lt "$environment" ] || fail "claims: the summary is not at the top"
	sed -n "${line}p" "$md" | grep -q '6.30 vs 5.30 ns/op: 1.19x (95% CI' ||
		fail "claims: the claim not seen lacks its numbers: $(sed -n "${line}p" "$md")"
	grep -q '| \*\*NOT SEEN\*\* | median round: 6.30 vs 5.30 ns/op: 1.19x' "$md" ||
		fail "claims: the claims table does not mark it NOT SEEN"
	grep -q '| not testable here | only 1 thread was measured' "$md" ||
		fail "claims: the 1-thread claim is not marked not testable with its reason"
	# Under the lesson, one sentence: the marks, and the claim not seen by name.
	grep -q '^The lesson, and each variant: \[details.md\](details.md)\. \*The lesson.s claims\* .*: \*\*1 NOT SEEN\*\*, 1 seen, 1 not testable here\. Not seen: "a locked update pays a line transfer' "$md" ||
		fail "claims: the family section does not mark it NOT SEEN"
	# The summary's table is the one list of claims: no second list below.
	[ "$(grep -c 'a locked update pays a line transfer' "$md")" -eq 3 ] ||
		fail "claims: the claim is listed $(grep -c 'a locked update pays a line transfer' "$md") times, expected 3 (banner, table, lesson)"
}

rounds() {
	report_and_check "$tests/data/results-rounds.json"
	claim=$(grep 'store_always / read_then_set ≤ 2.00x' "$tmp/out/report.md")
	echo "$claim" | grep -q '| seen | median round: 52.6 vs 48.4 ns/op: 1.10x (95% CI 0.90–1.24, paired by round), p = 0.07,' ||
		fail "rounds: paired, the claim is not seen at 1.10x (0.90-1.24): $claim"
	"$python3" - "$tests/data/results-rounds.json" "$tmp/unpaired.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["context"]["command"] = "a Google Benchmark binary, repetitions not in rounds"
json.dump(doc, open(sys.argv[2], "w"))
PY
	rm -rf "$tmp/out"
	report_and_check "$tmp/unpaired.json"
	claim=$(grep 'store_always / read_then_set ≤ 2.00x' "$tmp/out/report.md")
	# the median (1.05x) is within 2x, its bootstrap CI is not: undecided
	echo "$claim" | grep -q '| not testable here | 9 repetitions cannot decide it: .* Measured: 51.5 vs 48.9 ns/op: 1.05x (95% CI [0-9.]*–[2-9]\.[0-9]*), p = ' ||
		fail "rounds: unpaired, the claim should be undecided, its bootstrap CI past 2x: $claim"
}

many() {
	"$python3" "$tests/gen_results.py" --benchmarks 500 "$tmp/many.json" || fail "generator"
	report_and_check "$tmp/many.json"
	n=$(grep -c '^| [0-9]* | `' "$tmp/out/report.md")
	echo "$n table rows"
}

quick_run() {
	"$bouncelab" run --quick --filter '^has_pinned/' --out "$tmp/run/results.json" >/dev/null 2>"$tmp/run.log" ||
		{ cat "$tmp/run.log"; fail "run --quick"; return; }
	report_and_check "$tmp/run/results.json"
	# what the report reads as a run in rounds (results_read.c), so that
	# its ratios are paired: the command, and each row's round
	"$python3" - "$tmp/run/results.json" <<'PY' || fail "run --quick: the results do not say they ran in rounds"
import json, sys
doc = json.load(open(sys.argv[1]))
ctx = doc["context"]
assert isinstance(ctx.get("bouncelab_version"), str), ctx
assert ctx["command"].startswith("bouncelab run "), ctx["command"]
rows = [b for b in doc["benchmarks"] if "bouncelab" in b and not b.get("error_occurred") and
        b["run_type"] == "iteration"]
assert rows and all(0 <= b["repetition_index"] < 6 for b in rows), rows[:1]
PY
	"$bouncelab" compare "$tmp/run/results.json" "$tmp/run/results.json" >"$tmp/compare.txt" ||
		fail "compare with itself"
	grep -q "Geometric mean of B/A over [0-9]* benchmarks: 1.00x" "$tmp/compare.txt" ||
		fail "compare with itself: $(tail -2 "$tmp/compare.txt")"
}

# A Zen 3 guest's run whose host moved the vCPUs (tests/data/runs/): the
# top of the report names the two modes of rounds the pingpong's one-way
# transfer fell into, and gives the fix per mode, which a hand computation
# from the file gives as the median of has_pinned's per-round ratios over
# rounds 0-5 and 8 (5.61x) and over rounds 6-7 (6.95x).
host_modes() {
	report_and_check "$tests/data/runs/epyc-zen3-2026-12-01/default.json"
	md="$tmp/out/report.md"
	summary=$(grep -n '^| family | lesson' "$md" | head -1 | cut -d: -f1)
	banner=$(grep -n 'The host moved the vCPUs during this run' "$md" | head -1 | cut -d: -f1)
	[ -n "$banner" ] && [ "$banner" -lt "$summary" ] ||
		{ fail "modes: no banner above the summary table"; return; }
	grep -q 'fell into 2 modes of rounds: 30.6–85.4 ns (7 rounds, median 42.5) and 235–440 ns (2 rounds, median 338)' "$md" ||
		fail "modes: the banner does not name the two modes: $(sed -n "${banner}p" "$md")"
	grep -q '^| `has_pinned` | 2 | 5.61x | 6.95x |$' "$md" ||
		fail "modes: has_pinned's fix per mode is not 5.61x and 6.95x"
	# a noisy run on an idle machine whose host moved the vCPUs: the warning
	# names the host, and blames no other work
	rm -rf "$tmp/out"
	report_and_check "$tests/data/runs/epyc-zen3-2026-12-02/default.json"
	grep -q '^> \*\*Warning: a noisy run.\*\* .* The host moved the vCPUs between placements during the run' "$tmp/out/report.md" ||
		fail "modes: the noisy-run warning does not name the host's moves"
	! grep -q 'Other work took turns' "$tmp/out/report.md" ||
		fail "modes: an idle run's noise blamed on other work"
	# the pingpong alone, one mode: no banner
	rm -rf "$tmp/out"
	report_and_check "$tests/data/results-claims.json"
	! grep -q 'The host moved the vCPUs' "$tmp/out/report.md" ||
		fail "modes: a banner on a run without a pingpong"
}

case $check in
malformed) malformed ;;
fixed) fixed ;;
many) many ;;
claims) claims ;;
rounds) rounds ;;
quick-run) quick_run ;;
host-modes) host_modes ;;
*) echo "unknown check $check"; exit 2 ;;
esac
[ "$failures" -eq 0 ] || exit 1
echo "ok"
