#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The numbers the report prints around its tables, against values
worked out by hand from files changed in one known way.

  test_report_oracle.py BOUNCELAB TESTS_DIR [hwloc|no-hwloc]

Each case below takes tests/data/results-fixed.json (4 CPUs, load 0.5,
no CPU share measured), changes one fact of its context or rows, runs
`bouncelab report` and reads one number off report.md: the CPU share the
warning quotes and its bound, the busiest file's load, a build just before
the run, and where each rule's bound lies (a value at the bound, and just
past it). The expected text is written out from the change, not from the
report's code.

Then the summary's fix per family on real runs (tests/data/runs/): each
gain is the median over rounds of the before variant's ns/op over the
after variant's in the same round, at the family's defaults (read from
`bouncelab list`) and placement compact, at 1 thread and at the most
threads both measured, computed here from the results file's rows; the
same per host mode, the modes found here from the ping-pong's rows; the
summary's claim counts against the claims table; the fleet table's
columns and names on gen_fleet.py's machines; and, where hwloc can
rebuild a run's topology for the model, that every fitted case of a run
and its sweep is predicted at what it measured.
"""
import copy
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

bouncelab, tests = os.path.abspath(sys.argv[1]), sys.argv[2]
# the model's predictions need a topology rebuilt by hwloc from the file's
has_hwloc = sys.argv[3:4] != ["no-hwloc"]
problems = []


def problem(msg):
    problems.append(msg)
    print("FAIL:", msg)


def report(tmp, name, docs):
    paths = []
    for i, doc in enumerate(docs):
        path = os.path.join(tmp, "%s-%d.json" % (name, i))
        with open(path, "w") as fp:
            json.dump(doc, fp)
        paths.append(path)
    out = os.path.join(tmp, name)
    r = subprocess.run([bouncelab, "report"] + paths + ["-o", out],
                       capture_output=True, text=True)
    if r.returncode:
        problem("%s: report exited %d: %s" % (name, r.returncode, r.stderr.strip()))
        return ""
    with open(os.path.join(out, "report.md")) as f:
        return f.read()


def top_of(text):
    """The warnings above the summary."""
    return text.split("## Summary")[0]


def check_cpu_share(tmp, fixed):
    """A thread spinning on each CPU got cpu_share of its time: below 0.8
    (RUN_MIN_CPU_SHARE) other work held the CPUs. 0.4 is said as 40%, with
    the bound as 80%; at 0.8 exactly the CPUs were the run's. Over two
    files the least share counts: 0.9 and 0.55 give 55%, whichever file
    comes first; a file that did not measure it (no cpu_share) is passed
    over."""
    doc = copy.deepcopy(fixed)
    doc["context"]["cpu_share"] = 0.4
    top = top_of(report(tmp, "share-40", [doc]))
    want = ("Other work held the CPUs as the run started: a thread spinning on each got 40% of "
            "its time, where a case's threads need theirs together (its 2-thread claims are not "
            "tested below 80%).")
    if want not in top:
        problem("cpu_share 0.4: the warning does not say 40%% and 80%%: %r" % top[-600:])
    if "Other work took turns on the CPUs" not in top:
        problem("cpu_share 0.4: the warning does not say other work took turns")
    if "busy when the run started" in top or "Your build just ran" in top:
        problem("cpu_share 0.4 at load 0.5 on 4 CPUs: blamed on the load or a build")

    doc["context"]["cpu_share"] = 0.8
    top = top_of(report(tmp, "share-80", [doc]))
    if "held the CPUs" in top or "a noisy run" in top:
        problem("cpu_share 0.8, the bound itself: the CPUs are called held")

    doc["context"]["cpu_share"] = 0.79
    top = top_of(report(tmp, "share-79", [doc]))
    if "each got 79% of its time" not in top:
        problem("cpu_share 0.79, just under the bound: not called held, or not as 79%")

    first, second = copy.deepcopy(fixed), copy.deepcopy(fixed)
    first["context"]["cpu_share"] = 0.9
    second["context"]["cpu_share"] = 0.55
    second["context"]["host_name"] = "otherhost"
    for name, docs in (("share-two", [first, second]), ("share-two-swapped", [second, first])):
        top = top_of(report(tmp, name, docs))
        if "each got 55% of its time" not in top:
            problem("%s: cpu shares 0.9 and 0.55: the least, 55%%, is not quoted" % name)
    none = copy.deepcopy(fixed)
    none["context"].pop("cpu_share", None)
    none["context"]["host_name"] = "thirdhost"
    top = top_of(report(tmp, "share-one-measured", [none, second]))
    if "each got 55% of its time" not in top:
        problem("cpu share 0.55 beside a file that did not measure it is not quoted")


def check_busiest_file(tmp, fixed):
    """Busy is a 1-minute load over allowed CPUs above 0.5, and the warning
    names the file with the highest load per CPU, not the highest load:
    2.8 on 4 CPUs (0.7) beside 1.5 on 2 CPUs (0.75) names 1.5 on 2."""
    big, small = copy.deepcopy(fixed), copy.deepcopy(fixed)
    big["context"]["load_avg"] = [2.8, 1.0, 1.0]
    small["context"]["load_avg"] = [1.5, 1.0, 1.0]
    small["context"]["host_name"] = "smallhost"
    small["context"].setdefault("topology", {})["nr_allowed_cpus"] = 2
    for name, docs in (("busiest", [big, small]), ("busiest-swapped", [small, big])):
        top = top_of(report(tmp, name, docs))
        if "The machine was busy when the run started: load average 1.5 on 2 CPUs." not in top:
            problem("%s: loads 2.8 on 4 CPUs and 1.5 on 2: the warning does not name 1.5 on 2: %r"
                    % (name, top[-400:]))


def check_build(tmp, fixed):
    """A busy start after the build: build_ended_s_before 0 (the run
    started the second the build ended) is a build, said as 0 s; an idle
    start after a build warns of nothing."""
    doc = copy.deepcopy(fixed)
    doc["context"]["load_avg"] = [3.0, 1.0, 1.0]
    doc["context"]["build_ended_s_before"] = 0
    top = top_of(report(tmp, "built-0", [doc]))
    if ("Your build just ran: the load average when the run started, 3 on 4 CPUs, still counts "
            "the build that `scripts/lab run` finished 0 s before it" not in top):
        problem("a load of 3 on 4 CPUs 0 s after a build: not said as the build: %r" % top[-500:])
    if "Other work" in top:
        problem("a build 0 s before the run: other work blamed")
    doc["context"]["load_avg"] = [0.25, 1.0, 1.0]
    doc["context"]["build_ended_s_before"] = 5
    top = top_of(report(tmp, "built-idle", [doc]))
    if "Your build just ran" in top or "a noisy run" in top:
        problem("an idle start (load 0.25 on 4 CPUs) after a build: a warning")
    # held CPUs say so even after a build: the build is over, the share is now
    doc["context"]["load_avg"] = [3.0, 1.0, 1.0]
    doc["context"]["cpu_share"] = 0.5
    top = top_of(report(tmp, "built-held", [doc]))
    if "Your build just ran" in top or "each got 50% of its time" not in top:
        problem("CPUs held (share 0.5) after a build: not said as held")


def catalogue_defaults():
    """{family: {param: default text}} from `bouncelab list`."""
    out = subprocess.run([bouncelab, "list"], capture_output=True, text=True, check=True).stdout
    defaults, family = {}, None
    for line in out.splitlines():
        m = re.match(r"^([a-z_]+): ", line)
        if m:
            family = m.group(1)
            defaults[family] = {}
            continue
        m = re.match(r"^    ([a-z_]+) +default (\S+?),", line)
        if m and family:
            defaults[family][m.group(1)] = m.group(2)
    return defaults


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def within_print(printed, value):
    """printed ("1.22x", "0.97x", "113x") is value rounded to the digits
    it shows: within half a unit of its last digit."""
    text = printed.rstrip("x")
    decimals = len(text.split(".")[1]) if "." in text else 0
    return abs(float(text) - value) <= 0.5 * 10 ** -decimals + 1e-9 * value


def default_rows(doc, defaults):
    """{(family, variant, threads): {round: ns/op}} at the defaults, compact."""
    cases = {}
    for r in doc["benchmarks"]:
        b = r.get("bouncelab") or {}
        fam = b.get("family")
        if r.get("run_type") != "iteration" or fam not in defaults or "ns_per_op" in r and \
                r.get("error_occurred"):
            continue
        params = b.get("params") or {}
        if any(str(params.get(k, v)) != v for k, v in defaults[fam].items()):
            continue
        if (b.get("placement") or {}).get("policy", "compact") != "compact":
            continue
        cases.setdefault((fam, b["variant"], r["threads"]), {})[r["repetition_index"]] = \
            r["ns_per_op"]
    return cases


def paired_gain(cases, fam, before, after, threads):
    a, b = cases.get((fam, before, threads)), cases.get((fam, after, threads))
    if not a or not b:
        return None
    ratios = [a[k] / b[k] for k in a if k in b and a[k] > 0 and b[k] > 0]
    return median(ratios) if ratios else None


# The families of a default run with a before and after variant.
PAIRED_FAMILIES = ["has_pinned", "gup", "counter", "longterm_check", "false_sharing"]
SUMMARY_ROW = re.compile(r"^\| `([a-z_]+)` \| .* \| `([a-z_0-9]+)` over `([a-z_0-9]+)` \| "
                         r"([0-9.]+x) \(95% CI [^|]*\| ([0-9.]+x) \(95% CI [^|]* at (\d+) threads \|")


def check_summary_gains(tmp, run, defaults):
    """Each family's fix in the summary table against the paired medians
    of its rows: before over after, round by round."""
    path = os.path.join(tests, "data", "runs", run, "default.json")
    with open(path) as f:
        doc = json.load(f)
    cases = default_rows(doc, defaults)
    text = report(tmp, "summary-" + run, [doc])
    check_marks(text, run)
    checked, families = 0, []
    for line in text.split("### The lessons' claims")[0].splitlines():
        m = SUMMARY_ROW.match(line)
        if not m:
            continue
        fam, after, before, at1, most, threads = m.groups()
        families.append(fam)
        for t, printed in ((1, at1), (int(threads), most)):
            want = paired_gain(cases, fam, before, after, t)
            if want is None:
                problem("%s: %s has no rows of %s and %s at %d threads at its defaults" %
                        (run, fam, before, after, t))
            elif not within_print(printed, want):
                problem("%s: %s's fix at %d thread(s) is %s, the median of %s / %s by round "
                        "is %.4g" % (run, fam, t, printed, before, after, want))
            else:
                checked += 1
        most_both = max((k[2] for k in cases if k[0] == fam and k[1] == before and
                         (fam, after, k[2]) in cases), default=None)
        if most_both != int(threads):
            problem("%s: %s's fix is given at %s threads, its most with both variants is %s" %
                    (run, fam, threads, most_both))
    if sorted(families) != sorted(PAIRED_FAMILIES):
        problem("%s: the summary gives a fix for %s, expected %s (pingpong and last_nidpid "
                "have no pair; longterm_check's comes from its seed's figure)" %
                (run, sorted(families), sorted(PAIRED_FAMILIES)))
    if checked != 2 * len(PAIRED_FAMILIES):
        problem("%s: %d of the summary's gains checked, expected %d" %
                (run, checked, 2 * len(PAIRED_FAMILIES)))


def fleet_rows(text):
    """The fleet table's header and rows, as lists of cells."""
    body = text.split("## Fleet: the fix on each machine", 1)
    if len(body) < 2:
        return None, []
    lines = [l for l in body[1].split("\n## ", 1)[0].splitlines() if l.startswith("| ")]
    cells = [[c.strip() for c in re.split(r"(?<!\\)\|", l.strip())[1:-1]] for l in lines]
    return (cells[0], cells[1:]) if cells else (None, [])


def check_fleet_names_and_columns(tmp):
    """gen_fleet.py's machines (the fix's gain at t threads K t / 2, K = 3
    on the Xeon and 4 on the EPYC, 1.5 times that spread). The Xeon and the
    EPYC share 1, 2, 4, 8, 16 and 32 threads, more than the table's 2
    columns for them: the largest two, 16 and 32, at 24.0x and 48.0x on
    the Xeon, 32.0x and 64.0x on the EPYC (spread 36.0x, 72.0x; 48.0x,
    96.0x). Two laptops of one host name but another build are two
    machines, named with their first file's number; a file without a host
    name is "machine N", and where its ping-pong's threads shared a CPU its
    floor is at same_pu."""
    sys.path.insert(0, tests)
    from gen_fleet import FLEET, machine_file
    xeon, epyc = machine_file(FLEET["xeon"]), machine_file(FLEET["epyc"])
    header, rows = fleet_rows(report(tmp, "fleet-columns", [xeon, epyc]))
    if header is None:
        problem("xeon and epyc: no fleet table")
        return
    if header[5:7] != ["at 16", "at 32"] or len(header) != 8:
        problem("xeon and epyc: the shared thread counts shown are %s, expected at 16, at 32" %
                header[5:-1])
    want = [("`xeon2s`", "60.0x", "24.0x", "48.0x"), ("`xeon2s`", "90.0x", "36.0x", "72.0x"),
            ("`epyc2n`", "512x", "32.0x", "64.0x"), ("`epyc2n`", "768x", "48.0x", "96.0x")]
    got = [(r[0], r[3].split(" ")[0], r[5], r[6]) for r in rows]
    if got != want:
        problem("xeon and epyc: rows %s, expected %s" % (got, want))

    laptop = machine_file(FLEET["laptop"])
    debug = copy.deepcopy(laptop)
    debug["context"]["build_type"] = "debug"
    nameless = copy.deepcopy(laptop)
    del nameless["context"]["host_name"]
    # its ping-pong's two threads shared one CPU: a floor at same_pu
    for r in nameless["benchmarks"]:
        b = r.get("bouncelab") or {}
        if b.get("family") == "pingpong":
            b["placement"]["widest_class"] = "same_pu"
    header, rows = fleet_rows(report(tmp, "fleet-names", [laptop, debug, nameless]))
    names = [r[0] for r in rows]
    if names != ["`laptop (m1)`"] * 2 + ["`laptop (m2)`"] * 2 + ["`machine 3`"] * 2:
        problem("two laptops of two builds and one without a host name: named %s" % names)
    if rows and rows[0][1] != "Intel Core i5-8250U; 2 CPUs, 1 NUMA node; farthest pair: package":
        problem("the laptop's CPU line: %r" % rows[0][1])
    # 2 to 6 ns: a linear axis, with no tick at 10 or 100
    with open(os.path.join(tmp, "fleet-names", "plots", "fleet-has_pinned.svg")) as f:
        ticks = re.findall(r'text-anchor="middle">([0-9.]+)</text>', f.read())
    if not ticks or "10" in ticks or "100" in ticks:
        problem("the laptops' figure (2 to 6 ns): ticks %s, expected a linear axis" % ticks)
    # 2 to 200 ns, exactly two decades: still linear (log above 100 times)
    xeon = machine_file(FLEET["xeon"])
    for r in xeon["benchmarks"]:
        b = r.get("bouncelab") or {}
        if b.get("variant") == "store_always" and r["threads"] == 40 and \
                b["placement"]["policy"] == "spread":
            for key in ("ns_per_op", "real_time"):
                r[key] = 200.0
            r["wall_ns"] = 200.0 * r["ops"] / 40
    report(tmp, "fleet-decades", [laptop, xeon])
    with open(os.path.join(tmp, "fleet-decades", "plots", "fleet-has_pinned.svg")) as f:
        ticks = re.findall(r'text-anchor="middle">([0-9.]+)</text>', f.read())
    if not ticks or "1000" in ticks or ("1" in ticks and "10" in ticks and "100" in ticks):
        problem("2 to 200 ns, exactly 100 times: ticks %s, expected a linear axis" % ticks)
    floors = [r[-1] for r in rows]
    if floors != ["package 50.0"] * 4 + ["same_pu 50.0"] * 2:
        problem("the one-way floors %s, expected package 50.0 and, where the ping-pong shared "
                "a CPU, same_pu 50.0" % floors)


def check_marks(text, name):
    """The summary's claims column and its totals line count the marks of
    the claims table below it, family by family."""
    table, totals = {}, {"seen": 0, "NOT SEEN": 0, "not testable here": 0}
    head = "| family | claim | expected | condition | mark | measured |"
    rows = text.split(head, 1)[1].split("\n\n", 1)[0].splitlines()[2:] if head in text else []
    for line in rows:
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        mark = {"seen": "seen", "not seen": "NOT SEEN", "**NOT SEEN**": "NOT SEEN",
                "not testable here": "not testable here"}.get(cells[4], cells[4])
        table.setdefault(cells[0], {"seen": 0, "NOT SEEN": 0, "not testable here": 0})
        table[cells[0]][mark] += 1
        totals[mark] += 1
    if not rows:
        problem("%s: no claims table" % name)
        return
    want_totals = "%d seen, %d not seen, %d not testable here." % (
        totals["seen"], totals["NOT SEEN"], totals["not testable here"])
    if want_totals not in text:
        problem("%s: the claims' totals are not %r" % (name, want_totals))
    summary = text.split("| family | lesson |", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    for line in summary:
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        c = table.get(cells[0])
        if not c:
            want = "none"
        else:
            want = ("**%d NOT SEEN**, " % c["NOT SEEN"] if c["NOT SEEN"] else "") + \
                "%d seen" % c["seen"] + \
                (", %d not testable here" % c["not testable here"] if c["not testable here"] else "")
        if cells[-1] != want:
            problem("%s: %s's claims in the summary: %r, the claims table gives %r" %
                    (name, cells[0], cells[-1], want))


def host_modes(doc):
    """The host's modes from the pingpong's store_load one-way transfer per
    round: sorted, a new mode at every gap of a factor of 2 or more
    (host_modes.h; at most 4 modes, none needed here). [(rounds, lo, hi,
    median)]."""
    one_way = {}
    for r in doc["benchmarks"]:
        b = r.get("bouncelab") or {}
        if b.get("family") == "pingpong" and b.get("variant") == "store_load" and \
                r.get("one_way_ns", 0) > 0:
            one_way[r["repetition_index"]] = r["one_way_ns"]
    order = sorted(one_way, key=one_way.get)
    modes, current = [], [order[0]]
    for prev, k in zip(order, order[1:]):
        if one_way[k] / one_way[prev] >= 2:
            modes.append(current)
            current = []
        current.append(k)
    modes.append(current)
    return [(set(m), one_way[m[0]], one_way[m[-1]], median([one_way[k] for k in m]))
            for m in modes]


def check_mode_figures(tmp, run, defaults):
    """The fix per host mode at the top of the report: for each family
    with a pair, at its most threads, the median over the mode's rounds of
    before over after in the same round; a family whose pair is at 1
    thread only (longterm_check's 2-thread rows dropped) is not listed,
    since one thread moves no line between the modes' placements."""
    path = os.path.join(tests, "data", "runs", run, "default.json")
    with open(path) as f:
        doc = json.load(f)
    modes = host_modes(doc)
    cases = default_rows(doc, defaults)
    one_thread_only = copy.deepcopy(doc)
    one_thread_only["benchmarks"] = [
        r for r in doc["benchmarks"]
        if not ((r.get("bouncelab") or {}).get("family") == "longterm_check" and r["threads"] > 1)]
    for name, d, families in (("modes", doc, PAIRED_FAMILIES),
                              ("modes-one-thread", one_thread_only,
                               [f for f in PAIRED_FAMILIES if f != "longterm_check"])):
        text = report(tmp, name, [d])
        pairs = {m.group(1): (m.group(3), m.group(2)) for m in
                 map(SUMMARY_ROW.match, text.splitlines()) if m}
        head = "| family | the fix, at threads |"
        if head not in text:
            problem("%s: no table of the fix per mode" % name)
            continue
        lines = text.split(head, 1)[1].split("\n\n", 1)[0].splitlines()
        header = [c.strip() for c in lines[0].strip().strip("|").split("|")]
        want_header = ["mode %s–%s ns (%d rounds, median %s)" %
                       (sig(lo), sig(hi), len(rounds), sig(med)) for rounds, lo, hi, med in modes]
        if header != want_header:
            problem("%s: the modes' columns %s, expected %s" % (name, header, want_header))
        listed = []
        for line in lines[2:]:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            fam, threads = cells[0].strip("`"), int(cells[1])
            listed.append(fam)
            before, after = pairs.get(fam, (None, None))
            for (rounds, _, _, _), printed in zip(modes, cells[2:]):
                a = cases.get((fam, before, threads), {})
                b = cases.get((fam, after, threads), {})
                ratios = [a[k] / b[k] for k in rounds if k in a and k in b]
                if not ratios or not within_print(printed, median(ratios)):
                    problem("%s: %s in the mode of rounds %s: %s, the median of %s / %s is %s" %
                            (name, fam, sorted(rounds), printed, before, after,
                             median(ratios) if ratios else "none"))
        if listed != families:
            problem("%s: the modes' table lists %s, expected %s" % (name, listed, families))


def sig(v):
    """Three significant digits, as the report prints a time."""
    return "%.3g" % v if v < 1000 else "%.0f" % v


def check_fitted_pair(tmp, run):
    """A run and its sweep side by side: each file's shares are fitted
    on its own cases (model_doc.md): the tenure's on false_sharing's
    same_line at update=locked (the defaults) and update=plain, the cold
    share on the case nearest its family's defaults that pays only for
    lines another CPU wrote last (the default run's has_pinned no_flag
    at already_set=0; the sweep has none such, so its nearest, counter's
    percpu_padded_locked at read_every=1). A fitted case is predicted at
    what it measured, by the definition of the fit: 1.00."""
    folder = os.path.join(tests, "data", "runs", run)
    docs = []
    for name in ("default.json", "sweep.json"):
        with open(os.path.join(folder, name)) as f:
            docs.append(json.load(f))
    report(tmp, "fitted-pair", docs)
    with open(os.path.join(tmp, "fitted-pair", "prediction.md")) as f:
        text = f.read()
    fitted = []
    for line in text.splitlines():
        m = re.match(r"^\| `([^`]+)` \(fitted\) \| ([^|]+) \| [^|]+ \| ([^|]+) \| ([^|]+) \| "
                     r"([^|]+) \|", line)
        if not m:
            continue
        case, setting, measured, predicted, ratio = (c.strip() for c in m.groups())
        fitted.append((case, setting))
        if ratio != "1.00" or measured != predicted:
            problem("fitted %s at %s: predicted %s, measured %s (%s)" %
                    (case, setting, predicted, measured, ratio))
    want = [("false_sharing/same_line", "defaults"), ("false_sharing/same_line", "update=plain"),
            ("has_pinned/no_flag", "already_set=0"),
            ("counter/percpu_padded_locked", "read_every=1")]
    for w in want:
        if w not in fitted:
            problem("%s with its sweep: %s at %s is not fitted (fitted: %s)" %
                    (run, w[0], w[1], fitted))
    if sorted(set(fitted)) != sorted(want):
        problem("%s with its sweep: fitted %s, expected %s" % (run, sorted(set(fitted)), want))
    # the sweep without false_sharing at update=plain: its plain stores'
    # share is not measured, and the model takes the whole tenure, 1
    plain_gone = copy.deepcopy(docs[1])
    plain_gone["benchmarks"] = [
        r for r in plain_gone["benchmarks"]
        if not ((r.get("bouncelab") or {}).get("family") == "false_sharing" and
                ((r.get("bouncelab") or {}).get("params") or {}).get("update") == "plain")]
    report(tmp, "fitted-pair-no-plain", [docs[0], plain_gone])
    with open(os.path.join(tmp, "fitted-pair-no-plain", "prediction.md")) as f:
        shares = re.findall(r"tenure share ([0-9.]+) for plain stores, ([0-9.]+) for locked ops",
                            f.read())
    if len(shares) != 2 or shares[1][0] != "1" or shares[0][0] == "1" or "1" in \
            (shares[0][1], shares[1][1]):
        problem("%s with its sweep lacking update=plain: tenure shares %s, expected the "
                "sweep's plain share 1 (not measured: the whole tenure), the others fitted" %
                (run, shares))
    for cold in ("(measured on has_pinned/no_flag, pin_work=1, flag_line=shared, already_set=0, "
                 "placement compact)",
                 "(measured on counter/percpu_padded_locked, batch=32, read_every=1, "
                 "placement compact)"):
        if cold not in text:
            problem("%s with its sweep: no file's cold share is %s" % (run, cold))


def check_fit_covers_64_counts(tmp, fixed):
    """The USL fit of a table takes its first 64 thread counts. Two tables
    of has_pinned's store_always at 1 to 65 threads, ns/op 10 C(N) with
    C(N) = 1 + 0.02 (N - 1) + 0.0001 N (N - 1) (so X(N) = N / ns lies on
    the USL with sigma 0.02, kappa 0.0001), but one point 1.5 times slower:
    at 65 threads in pin_work=2's table, outside the fit, which is then
    that curve exactly (sigma 0.02, kappa 0.0001, R2 1.000); at 64 threads
    in pin_work=3's, inside it, so no curve passes through every point
    and R2 is below 1."""
    sys.path.insert(0, tests)
    from gen_results import Writer, placement
    doc = copy.deepcopy(fixed)
    w = Writer(seed=1, reps=3)
    for pin_work, off in ((2, 65), (3, 64)):
        for n in range(1, 66):
            ns = 10 * (1 + 0.02 * (n - 1) + 0.0001 * n * (n - 1)) * (1.5 if n == off else 1)
            w.case("has_pinned", "store_always", {"pin_work": pin_work, "flag_line": "shared"},
                   placement(n), n, lambda r, v=ns: v, aggregates=False)
    doc["benchmarks"] = w.rows
    doc["context"]["num_cpus"] = 128
    report(tmp, "fit-64", [doc])
    with open(os.path.join(tmp, "fit-64", "details.md")) as f:
        details = f.read()
    head = "| variant | σ contention | κ coherency | R² |"
    fits = [re.match(r"^\| store_always \| ([^|]+) \| ([^|]+) \| ([^|]+) \|",
                     block.split("\n")[2]) for block in details.split(head)[1:]]
    fits = [f.groups() for f in fits if f]
    if len(fits) != 2:
        problem("two tables of 65 thread counts: %d fits in details.md" % len(fits))
        return
    outside, inside = [tuple(c.strip() for c in f) for f in fits]
    if outside != ("0.02", "0.0001", "1.000"):
        problem("a point off the curve at the 65th thread count moved the fit: %s" % (outside,))
    if inside[2] == "1.000" or (inside[0], inside[1]) == ("0.02", "0.0001"):
        problem("a point off the curve at the 64th thread count is not in the fit: %s" %
                (inside,))


def check_run_distance(tmp, fixed):
    """Two results files of the same cases, the first case by name
    (file_samples() sorts them) measured once, and in the second file three
    times as slow, and the last case by name not in the second file at
    all: every other case is in both, the median ratio is 1.00x, the range
    1.00x to 3.00x, one case apart (the others are the same numbers), and
    it is the farthest. The section's opening names the first file."""
    rows = [r for r in fixed["benchmarks"] if (r.get("bouncelab") or {}).get("family") and
            r.get("run_type") == "iteration" and
            isinstance(r.get("ns_per_op"), (int, float)) and math.isfinite(r["ns_per_op"])]
    names = sorted({r["name"] for r in rows})
    # that case measured once: each of its repetitions must count
    first = min(i for i, r in enumerate(fixed["benchmarks"]) if r in rows and r["name"] == names[0])
    fixed = copy.deepcopy(fixed)
    fixed["benchmarks"] = [r for i, r in enumerate(fixed["benchmarks"])
                           if i == first or r.get("name") != names[0]]
    slower = copy.deepcopy(fixed)
    # the search for the last name runs past every name the second file has
    slower["benchmarks"] = [r for r in slower["benchmarks"] if r.get("name") != names[-1]]
    for r in slower["benchmarks"]:
        if r.get("name") == names[0] and r.get("run_type") == "iteration":
            for key in ("ns_per_op", "wall_ns", "real_time"):
                if key in r:
                    r[key] *= 3
    text = report(tmp, "distance", [fixed, slower])
    m = re.search(r"^\| `[^`]*distance-1\.json` \| (\d+) \| ([^|]+) \| ([^|]+) \| (\d+) \| "
                  r"`([^`]+)`: [^|]*\(([^)]+)\) \|$", text, re.M)
    if not m:
        problem("two files, one case 3 times as slow: no row in the table of the same cases")
        return
    got = (int(m.group(1)), m.group(2).strip(), m.group(3).strip(), int(m.group(4)),
           m.group(5), m.group(6))
    want = (len(names) - 1, "1.00x", "1.00x – 3.00x", 1, names[0], "3.00x")
    if got != want:
        problem("two files, %s 3 times as slow, %s only in the first: %s, expected %s" %
                (names[0], names[-1], got, want))
    if not re.search(r"the other file's median ns/op over the first's \(`[^`]*distance-0\.json`\)",
                     text):
        problem("the table of the same cases does not name the first file as the first")


def claims_table(text):
    """The full report's claims: (family, claim, mark, measured) per row."""
    head = "| family | claim | expected | condition | mark | measured |"
    rows = text.split(head, 1)[1].split("\n\n", 1)[0].splitlines()[2:] if head in text else []
    out = []
    for line in rows:
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        out.append((cells[0], cells[1], cells[4], cells[5]))
    return out


def check_brief_claims(tmp, name):
    """report --brief lists each claim NOT SEEN with its text, then one
    line per reason a claim was not testable, with how many of each
    family's claims it stopped, as the full report's claims table gives
    them (its measured cell starts with the reason)."""
    path = os.path.join(tests, "data", name)
    flat = name.replace("/", "_")
    with open(path) as f:
        full = report(tmp, "full-" + flat, [json.load(f)])
    out = os.path.join(tmp, "brief-" + flat)
    subprocess.run([bouncelab, "report", path, "--brief", "-o", out], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(os.path.join(out, "report.md")) as f:
        brief = f.read()
    table = claims_table(full)
    want, reasons = [], {}
    for family, claim, mark, measured in table:
        if "NOT SEEN" in mark:
            want.append("- %s: %s: **NOT SEEN**. Expected " % (family, claim))
    for family, claim, mark, measured in table:
        if mark == "not testable here":
            reason = measured.split(". Measured: ")[0]
            reasons.setdefault(reason, {})
            reasons[reason][family] = reasons[reason].get(family, 0) + 1
    for reason, families in reasons.items():
        want.append("- *not testable here*: %s: %s." %
                    (reason, ", ".join("%s %d" % (f, n) for f, n in families.items())))
    got = [l for l in brief.splitlines() if l.startswith("- *not testable here*") or
           "**NOT SEEN**. Expected" in l]
    if len(got) != len(want) or any(not g.startswith(w) for g, w in zip(got, want)):
        problem("%s: the brief's claims\n  %s\nexpected\n  %s" %
                (name, "\n  ".join(got), "\n  ".join(want)))
    if not want:
        problem("%s: no claim NOT SEEN or not testable to list" % name)


def check_one_repetition(tmp, fixed):
    """Cases measured once each, has_pinned at 1 thread: store_always
    5 ns, no_flag 3 ns, nop 0.5 ns. The catalogue calls no_flag (the call
    without the flag) and nop (the empty loop) baselines, which are never
    best: store_always is, though slower, and each of the others is given
    against it, 0.60x and 0.10x."""
    sys.path.insert(0, tests)
    from gen_results import Writer, placement
    w = Writer(seed=1, reps=1)
    for variant, ns in (("store_always", 5.0), ("no_flag", 3.0), ("nop", 0.5)):
        w.case("has_pinned", variant, {"pin_work": 1}, placement(1), 1,
               lambda r, v=ns: v, aggregates=False)
    doc = copy.deepcopy(fixed)
    doc["benchmarks"] = w.rows
    report(tmp, "once", [doc])
    with open(os.path.join(tmp, "once", "details.md")) as f:
        rows = [[c.strip() for c in l.strip().strip("|").split("|")]
                for l in f.read().splitlines() if re.match(r"^\| 1 \| [a-z_]+", l)]
    got = [(r[1], r[5].split(" ")[0]) for r in rows if len(r) > 5][:3]
    want = [("store_always", "best"), ("no_flag (baseline)", "0.60x"),
            ("nop (baseline)", "0.10x")]
    if got != want:
        problem("one repetition each: %s, expected %s" % (got, want))


def check_noisy_count(tmp, fixed):
    """The noisy warning counts the results that have a spread: has_pinned
    at 1 thread, store_always at 10, 20, 10 ns (a CV of 43%: noisy) and
    no_flag at 5, 5, 5, three repetitions each, beside nop and
    read_then_set measured once each, which have no spread to judge. So 1
    of 2 results is noisy, above a quarter (RUN_NOISY_SHARE): "1 of 2".
    Counting the two measured once as well would make it 1 of 4, not
    above a quarter, and no warning at all."""
    sys.path.insert(0, tests)
    from gen_results import Writer, placement
    three = Writer(seed=1, reps=3)
    three.case("has_pinned", "store_always", {"pin_work": 1}, placement(1), 1,
               lambda r: (10.0, 20.0, 10.0)[r], aggregates=False)
    three.case("has_pinned", "no_flag", {"pin_work": 1}, placement(1), 1,
               lambda r: 5.0, aggregates=False)
    once = Writer(seed=1, reps=1)
    once.family_index = three.family_index
    for variant, ns in (("nop", 0.5), ("read_then_set", 4.0)):
        once.case("has_pinned", variant, {"pin_work": 1}, placement(1), 1,
                  lambda r, v=ns: v, aggregates=False)
    doc = copy.deepcopy(fixed)
    doc["benchmarks"] = three.rows + once.rows
    top = top_of(report(tmp, "noisy-once", [doc]))
    if "**Warning: a noisy run.** 1 of 2 results are flagged *noisy*" not in top:
        problem("one noisy result of two with a spread, two measured once: %r" % top[-600:])


def check_seed_plots(tmp, run):
    """Each seed's plot of the model's throughput, all threads, in Mops/s:
    at the seed's thread count t its before and after points are t x 1000
    / the ns per page per thread the seeds' table gives (read off the
    plot's log axis, whose ticks are powers of ten)."""
    path = os.path.join(tests, "data", "runs", run, "default.json")
    with open(path) as f:
        report(tmp, "seed-plots", [json.load(f)])
    out = os.path.join(tmp, "seed-plots")
    with open(os.path.join(out, "prediction.md")) as f:
        text = f.read()
    rows = re.findall(r"^\| [^|]*, (\d+) threads: [^|]* \| `([^`]+)` \| [^|]* \| [0-9.]+x "
                      r"\((\d+) → (\d+) ns per page per thread;", text, re.M)
    if len(rows) < 2:
        problem("%s: %d seed rows in prediction.md" % (run, len(rows)))
    for threads, profile, before, after in rows:
        with open(os.path.join(out, "plots", "prediction-%s.svg" % profile)) as f:
            svg = f.read()
        # the horizontal grid lines, bottom up, are the labelled decades
        values = [math.log10(float(v)) for v in re.findall(
            r'<text[^>]* text-anchor="end">([0-9.]+)</text>', svg)]
        grid = [(float(x2), float(y)) for y, x2, y2 in re.findall(
            r'<line class="grid"[^>]* y1="([0-9.]+)" x2="([0-9.]+)" y2="([0-9.]+)"', svg)
            if y == y2]
        if len(values) < 2 or len(grid) != len(values):
            problem("%s: no log axis read (%d labels, %d grid lines)" %
                    (profile, len(values), len(grid)))
            continue
        right = grid[0][0]
        (y0, l0), (y1, l1) = (grid[0][1], values[0]), (grid[-1][1], values[-1])
        # before's points are circles, after's squares; the legend's lie right of the plot
        marks = [("f0", float(cx), float(cy)) for cx, cy in re.findall(
            r'<circle class="f0"[^>]* cx="([0-9.]+)" cy="([0-9.]+)"', svg)]
        marks += [("f1", float(x) + 4, float(y) + 4) for x, y in re.findall(
            r'<rect class="f1"[^>]* x="([0-9.]+)" y="([0-9.]+)" width="8" height="8"', svg)]
        points = {}
        for cls, cx, cy in marks:
            if cx <= right and (cls not in points or cx > points[cls][0]):
                points[cls] = (cx, cy)
        for cls, ns in (("f0", before), ("f1", after)):
            want = int(threads) * 1000 / int(ns)
            if cls not in points:
                problem("%s: no %s points" % (profile, cls))
                continue
            got = 10 ** (l0 + (points[cls][1] - y0) * (l1 - l0) / (y1 - y0))
            # ns is printed to the unit, the point's position to 0.1 px
            if abs(got / want - 1) > 0.01 + 0.5 / int(ns):
                problem("%s: the point at %s threads is %.4g Mops/s, %s x 1000 / %s ns is "
                        "%.4g" % (profile, threads, got, threads, ns, want))


def main():
    with open(os.path.join(tests, "data", "results-fixed.json")) as f:
        fixed = json.load(f)
    with tempfile.TemporaryDirectory(prefix="bouncelab-report-oracle.") as tmp:
        check_cpu_share(tmp, fixed)
        check_busiest_file(tmp, fixed)
        check_build(tmp, fixed)
        check_marks(report(tmp, "fixed", [fixed]), "results-fixed.json")
        check_fit_covers_64_counts(tmp, fixed)
        check_run_distance(tmp, fixed)
        check_one_repetition(tmp, fixed)
        check_noisy_count(tmp, fixed)
        check_brief_claims(tmp, "results-fixed.json")
        check_brief_claims(tmp, "results-claims.json")
        # a claim its rounds cannot decide: the reason cut before its numbers
        check_brief_claims(tmp, "runs/epyc-zen4-2026-12-07/default.json")
        check_fleet_names_and_columns(tmp)
        defaults = catalogue_defaults()
        check_summary_gains(tmp, "epyc-zen3-2026-12-01", defaults)
        check_mode_figures(tmp, "epyc-zen3-2026-12-01", defaults)
        if has_hwloc:
            check_fitted_pair(tmp, "epyc-zen3-2026-12-01")
            check_seed_plots(tmp, "epyc-zen3-2026-12-01")
    print("%d problems" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
