#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The report a teacher hands out: each check below fails on a real wrong line.

  test_report_hygiene.py BOUNCELAB TESTS_DIR

From tests/data/results-fixed.json and copies of it changed in one way:
- the "no scalability model" note is said at most once;
- every plot's title names its family, and its setting or sweep, and the
  thread count; no two plots share a title;
- has_pinned's sweep plot has pin_work on its x-axis, ticks 0 and 1, and its
  points are the medians of the "Other settings" row and the default table;
  swept over 0, 1 and 16, its ticks sit at log10(1 + value), one point per
  value measured and no line between them;
- the summary figure's ratio bars grow from 1: right for a gain, left for a
  loss (the fix made 3 times slower at 1 thread);
- a counter that is zero on every row has no column in the appendix's
  spread and counters table, one that is not has;
- a calm run has no warning; a noisy copy and a busy copy have one at the
  top, with the counts, and say what to do;
- threads above the allowed CPUs are flagged "shared CPUs" row by row;
- two results files get "how far apart" with the farthest case's ratio;
- the seeds are cited by thread title and archive link, never "seeds/";
- no repeated boilerplate: each claim is listed once, in the summary's
  table (a claim not seen also in the banner and under its lesson); the
  seeds' gloss is said once; a before-and-after table is under each
  verdict with a fix, in report.md and in the appendix details.md, which
  report.md links, and which follows the same rules;
- report --brief is the summary, the claims and the key figure in at most
  120 lines, with a PNG copy when rsvg-convert is installed and a note
  saying why not when it is not.
"""
import copy
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

bouncelab, tests = sys.argv[1], sys.argv[2]
fixed = json.load(open(os.path.join(tests, "data", "results-fixed.json")))
tmp = tempfile.mkdtemp(prefix="bouncelab-hygiene.")
problems = []
SVG = "{http://www.w3.org/2000/svg}"


def problem(msg):
    problems.append(msg)


def report(name, docs, *extra):
    paths = []
    for i, doc in enumerate(docs):
        path = os.path.join(tmp, "%s-%d.json" % (name, i))
        with open(path, "w") as fp:
            json.dump(doc, fp)
        paths.append(path)
    out = os.path.join(tmp, name)
    subprocess.run([bouncelab, "report", *paths, "-o", out, *extra], check=True,
                   stdout=subprocess.DEVNULL)
    return out, open(os.path.join(out, "report.md")).read()


def rows_of(doc, prefix):
    return [r for r in doc["benchmarks"] if r["name"].startswith(prefix)]


# ---- the fixed file as it is ----
out, text = report("fixed", [fixed])
if text.count("No scalability model") + text.count("Scalability model:** none") > 1:
    problem("the no-model note is repeated")
if "Warning" in text:
    problem("a calm run (CV about 3%, load 0.5 on 4 CPUs) got a warning")
# Self-contained: the seeds by title and archive link, not by a folder
# the reader does not have.
if "seeds/" in text:
    problem("the report names a seeds/ folder: %s" % re.search(r".{0,40}seeds/.{0,20}", text).group(0))
if "[\\[PATCH 0/3\\] mm/gup: Fix pin page write cache bouncing on has_pinned](https://lore.kernel.org/r/20210506232537.165788-1-peterx@redhat.com)" not in text:
    problem("has_pinned's source does not link its thread on lore.kernel.org")
# ---- no repeated boilerplate; the appendix ----
claims = re.findall(r"^\| `[a-z_]+` \| ([^|]+) \| [^|]+ \| [^|]+ \| (seen|\*\*NOT SEEN\*\*|not testable here) \|",
                    text, re.M)
if not claims:
    problem("no claims table in the summary")
for claim, mark in claims:
    n = text.count(claim.strip())
    if n != (3 if "NOT SEEN" in mark else 1):
        problem("the claim %r is written %d times in report.md" % (claim.strip(), n))
if text.count("*gain* is how many times better") > 1:
    problem("the seeds' gloss is repeated")
if text.count("Before and after:") != len(re.findall(r"^### Setting: .*\n\n\*\*Verdict\.\*\*.*\n\nBefore and after:", text, re.M)) \
        or "Before and after:" not in text:
    problem("report.md has no before-and-after table right under a verdict")
if "](details.md)" not in text:
    problem("report.md does not link its appendix details.md")
details = open(os.path.join(out, "details.md")).read()
settings = re.findall(r"^### Setting: ", details, re.M)
pairs = details.count("Before and after:")
with_fix = len(re.findall(r"^\*\*Verdict\.\*\*.* The fix, ", details, re.M))
if not settings or pairs != with_fix or not pairs:
    problem("details.md: %d settings, %d with a fix, %d before-and-after tables" %
            (len(settings), with_fix, pairs))
if "seeds/" in details or details.count("No scalability model") > 1:
    problem("details.md names seeds/ or repeats the no-model note")
if "](report.md)" not in details or "## How to reproduce" not in details:
    problem("details.md does not link back to report.md or lacks the command that reproduces the run")

titles = {}
families = set(re.findall(r"^## ([a-z_]+)(?: — .*)?$", text, re.M))
for name in sorted(os.listdir(os.path.join(out, "plots"))):
    # a table's plots and a family's sweeps; not the report-wide ones
    # (heatmap, floor, summary, model)
    m = re.match(r"^([a-z_]+)-(\d+|sweep)-", name)
    if not m or m.group(1) not in families:
        continue
    root = ET.parse(os.path.join(out, "plots", name)).getroot()
    title = root.find(SVG + "title").text
    family = name.split("-")[0]
    if not title.startswith(family) or "thread" not in title or \
            not re.search(r"^[a-z_]+ \([^)]+\): |against ", title) or \
            re.search(r"setting \d", title):
        problem("%s: title %r does not name family, setting and threads" % (name, title))
    if title in titles:
        problem("%s and %s share the title %r" % (titles[title], name, title))
    titles[title] = name

sweep = ET.parse(os.path.join(out, "plots", "has_pinned-sweep-pin_work.svg")).getroot()
texts = [t.text for t in sweep.iter(SVG + "text")]
if "pin_work" not in texts:
    problem("the has_pinned sweep's x-axis is not pin_work: %s" % texts)
if "0" not in texts or "1" not in texts or "threads" in texts:
    problem("the has_pinned sweep's ticks are not pin_work's values 0 and 1: %s" % texts)
# The sweep's points at 4 threads are the tables' medians (the default
# table for pin_work=1, the "Other settings" row for pin_work=0).
row = re.search(r"^\| pin_work=0 \| 4 \| ([^|]+) \| ([^|]+) \|", text, re.M)
default = re.search(r"^\| 4 \| store_always \| l3 \| ([\d.]+) ", text, re.M)
if not row or row.group(1).strip() != "8.75" or not default:
    problem("the Other settings row of pin_work=0 at 4 threads is not store_always 8.75: %s" %
            (row.group(0) if row else None))

# ---- a sweep on the parameter's own scale; ratio bars from 1 ----
def x_ticks(root):
    """{label: x} of the x-axis tick labels: the row of centred text above the axis label."""
    texts = [t for t in root.iter(SVG + "text") if t.get("text-anchor") == "middle"]
    label = max(float(t.get("y")) for t in texts)
    base = max(float(t.get("y")) for t in texts if float(t.get("y")) < label)
    return {t.text: float(t.get("x")) for t in texts if float(t.get("y")) == base}


doc = copy.deepcopy(fixed)
doc["benchmarks"] += [r for r in copy.deepcopy(rows_of(doc, "has_pinned/"))
                      if r["bouncelab"]["params"]["pin_work"] == 1]
for r in doc["benchmarks"][len(fixed["benchmarks"]):]:
    r["bouncelab"]["params"]["pin_work"] = 16
out, _ = report("sweep16", [doc])
sweep = ET.parse(os.path.join(out, "plots", "has_pinned-sweep-pin_work.svg")).getroot()
ticks = x_ticks(sweep)
if not {"0", "1", "16"} <= set(ticks):
    problem("the pin_work=0,1,16 sweep's ticks are %s" % sorted(ticks))
else:
    # 0 and 16 span decades: a symlog axis, x proportional to log10(1 + value)
    spread = (ticks["16"] - ticks["0"]) / (ticks["1"] - ticks["0"])
    if abs(spread / (math.log10(17) / math.log10(2)) - 1) > 0.02:
        problem("pin_work 0, 1, 16 at x %s: not placed by value (log of 1 + value)" % ticks)
    at = [float(c.get("cx")) for c in sweep.iter(SVG + "circle")]
    if sorted(x for x in at if x in ticks.values()) != sorted(ticks.values()):
        problem("the sweep's points are not one per measured value, at its tick: %s" % at)
if list(sweep.iter(SVG + "polyline")):
    problem("the sweep plot draws lines between the values measured")

doc = copy.deepcopy(fixed)
for r in rows_of(doc, "has_pinned/read_then_set/"):
    if r["threads"] == 1 and r["bouncelab"]["params"]["pin_work"] == 1:
        for key in ("ns_per_op", "wall_ns", "real_time"):
            r[key] *= 3
out, _ = report("loss", [doc])
gains = ET.parse(os.path.join(out, "plots", "summary-gains.svg")).getroot()
one = x_ticks(gains).get("1")
bars = [r for r in gains.iter(SVG + "rect") if r.get("class", "").startswith("f")]
labels = [t.text for t in gains.iter(SVG + "text") if t.get("text-anchor") == "end"]
if one is None or len(bars) != len(labels):
    problem("the summary figure has no tick at 1, or bars and labels do not pair: %d, %d" %
            (len(bars), len(labels)))
else:
    for bar, label in zip(bars, labels):
        left, right = float(bar.get("x")), float(bar.get("x")) + float(bar.get("width"))
        loss = label == "has_pinned, 1 thread"
        if abs((right if loss else left) - one) > 0.15 or (loss and left >= one - 1):
            problem("summary bar %r spans x %.1f-%.1f: a %s must grow %s from 1 at x %.1f" %
                    (label, left, right, "loss" if loss else "gain",
                     "left" if loss else "right", one))

# ---- one thread only: no gain "at the most threads" to show ----
doc = copy.deepcopy(fixed)
doc["benchmarks"] = [r for r in doc["benchmarks"] if r.get("threads") == 1]
_, text = report("one-thread", [doc])
row = re.search(r"^\| `has_pinned` \|.*$", text, re.M)
if not row or "not measured" not in row.group(0) or " at 1 thread" in row.group(0):
    problem("one thread only: the summary's has_pinned row %r should say its gain at the "
            "most threads is not measured" % (row.group(0) if row else None))

# ---- a counter all zero, and one that is not ----
doc = copy.deepcopy(fixed)
for r in rows_of(doc, "counter/"):
    r["zero_events_per_op"] = 0.0
    r["some_events_per_op"] = 0.0 if r["threads"] == 1 else 0.5
out, _ = report("counters", [doc])
text = open(os.path.join(out, "details.md")).read()
if "zero_events_per_op" in text:
    problem("a counter zero on every row has a column")
if "| some_events_per_op |" not in text:
    problem("a counter non-zero at 2 threads has no column in the appendix's spread and counters table")

# ---- noisy and busy ----
doc = copy.deepcopy(fixed)
for r in doc["benchmarks"]:
    if r.get("repetition_index", 0) % 2 and "ns_per_op" in r:
        for key in ("ns_per_op", "wall_ns", "real_time"):
            r[key] *= 1.6
_, text = report("noisy", [doc])
m = re.search(r"^> \*\*Warning: a noisy run\.\*\* (\d+) of (\d+) results are flagged \*noisy\*", text, re.M)
if not m or int(m.group(1)) < int(m.group(2)) // 2:
    problem("a run with every other repetition 1.6x slower has no noisy warning with counts")
if not re.search(r"Rerun on an idle machine.*--repetitions", text):
    problem("the noisy warning does not say what to do")
doc = copy.deepcopy(fixed)
doc["context"]["load_avg"] = [6.0, 3.0, 1.0]
_, text = report("busy", [doc])
if "busy when the run started: load average 6 on 4 CPUs" not in text:
    problem("a load average of 6 on 4 CPUs is not called busy")
# the same load 3 s after the build scripts/lab run did: the build, not other work
doc["context"]["build_ended_s_before"] = 3
_, text = report("built", [doc])
top = text.split("## Summary")[0]
if "Your build just ran" not in top or "finished 3 s before it" not in top:
    problem("a busy start 3 s after a build does not say that the build just ran")
if "Other work" in top or "was busy when the run started" in top:
    problem("a busy start 3 s after a build blames other work")

# ---- busy at its bound, and the CPU count's noun ----
# busy means a 1-minute load above half of the allowed CPUs (RUN_BUSY_LOAD):
# 2.0 on 4 CPUs is at the bound, not above it; 2.1 is above.
doc = copy.deepcopy(fixed)
doc["context"]["load_avg"] = [2.0, 1.0, 1.0]
_, text = report("at-bound", [doc])
if "busy when the run started" in text:
    problem("a load average of 2 on 4 CPUs, exactly half, is called busy")
doc["context"]["load_avg"] = [2.1, 1.0, 1.0]
_, text = report("above-bound", [doc])
if "busy when the run started: load average 2.1 on 4 CPUs." not in text:
    problem("a load average of 2.1 on 4 CPUs is not called busy")
doc["context"].setdefault("topology", {})["nr_allowed_cpus"] = 1
doc["context"]["load_avg"] = [0.75, 1.0, 1.0]
_, text = report("one-cpu", [doc])
if "busy when the run started: load average 0.75 on 1 CPU." not in text:
    problem("a load average of 0.75 on 1 CPU is not said in the singular")
doc["context"]["build_ended_s_before"] = 2
_, text = report("one-cpu-built", [doc])
if "the load average when the run started, 0.75 on 1 CPU, still counts the build" not in text:
    problem("a build just before a run on 1 CPU is not said in the singular")
doc["context"]["topology"]["nr_allowed_cpus"] = 2
doc["context"]["load_avg"] = [1.5, 1.0, 1.0]
_, text = report("two-cpus-built", [doc])
if "the load average when the run started, 1.5 on 2 CPUs, still counts the build" not in text:
    problem("a build just before a run on 2 CPUs is not said in the plural")

# ---- more threads than CPUs ----
doc = copy.deepcopy(fixed)
doc["context"].setdefault("topology", {})["nr_allowed_cpus"] = 2
_, text = report("shared", [doc])
flagged = re.findall(r"^\| (\d+) \| [^|]+ \| [^|]+ \|.*shared CPUs[^|]*\|$", text, re.M)
if not flagged or set(flagged) != {"4"}:
    problem("with 2 allowed CPUs, the rows flagged 'shared CPUs' are at %s threads, expected 4 only" %
            sorted(set(flagged)))
if "Warning: threads shared CPUs" not in text:
    problem("no warning at the top for threads sharing CPUs")

# ---- two runs ----
doc = copy.deepcopy(fixed)
for r in rows_of(doc, "has_pinned/store_always/"):
    for key in ("ns_per_op", "wall_ns", "real_time"):
        if key in r:
            r[key] *= 2
_, text = report("two", [fixed, doc])
m = re.search(r"^\| `[^`]*two-1\.json` \| (\d+) \| ([^|]+) \| [^|]+ \| (\d+) \| `([^`/]+)/([^`/]+)/[^`]*`: .*\(([\d.]+x)\) \|$",
              text, re.M)
if not m:
    problem("two results files: no 'same cases' row")
else:
    n, median, apart, family, variant, far = m.groups()
    if median.strip() != "1.00x" or variant != "store_always" or far != "2.00x":
        problem("two results files: median %s, farthest %s %s; expected 1.00x, store_always 2.00x" %
                (median, variant, far))
    if int(apart) < 1:
        problem("a case twice as slow is not counted apart")

# ---- report --brief: the summary, the claims, the key figure, 2 pages ----
def brief(name, path_env):
    out = os.path.join(tmp, name)
    env = dict(os.environ, PATH=path_env)
    subprocess.run([bouncelab, "report", os.path.join(tests, "data", "results-fixed.json"), "--brief",
                    "-o", out], check=True, stdout=subprocess.DEVNULL, env=env)
    return out, open(os.path.join(out, "report.md")).read()


rsvg = shutil.which("rsvg-convert")
no_tools = os.path.join(tmp, "no-tools")
os.makedirs(no_tools)
out, text = brief("brief-svg", no_tools)
lines = text.count("\n")
if lines > 120:
    problem("report --brief is %d lines, more than 120" % lines)
for want in ("# bouncelab report, brief", "## Summary", "### The lessons' claims, checked on this run",
             "(plots/summary-gains.svg)", "rsvg-convert is not installed (Debian: apt-get install librsvg2-bin)"):
    if want not in text:
        problem("report --brief without rsvg-convert lacks %r" % want)
for unwanted in ("## has_pinned", "## Environment", "### Setting"):
    if unwanted in text:
        problem("report --brief has %r: more than the summary" % unwanted)
# Markdown: a heading, and a list's end, stand apart by a blank line (a
# heading glued to a list item renders as part of it in some viewers).
md_lines = text.split("\n")
for k in range(1, len(md_lines)):
    if md_lines[k].startswith("#") and md_lines[k - 1].strip():
        problem("report --brief: %r follows %r with no blank line" % (md_lines[k], md_lines[k - 1]))
    # a paragraph right after a list item is read as that item's rest
    if md_lines[k - 1].startswith("- ") and md_lines[k].strip() and \
            not md_lines[k].startswith(("- ", "  ")):
        problem("report --brief: %r runs on from the list item %r" % (md_lines[k][:40],
                                                                     md_lines[k - 1][:40]))
if os.path.exists(os.path.join(out, "plots", "summary-gains.png")):
    problem("report --brief made a PNG without rsvg-convert")
# The brief links no appendix, so it writes none: a file nobody links is litter.
for part in ("details.md", "prediction.md"):
    if os.path.exists(os.path.join(out, part)):
        problem("report --brief wrote %s, which it does not link" % part)
stray = sorted(set(os.listdir(os.path.join(out, "plots"))) -
               {"summary-gains.svg", "summary-gains.png"})
if stray:
    problem("report --brief wrote plots it does not link: %s" % ", ".join(stray))
if rsvg:
    out, text = brief("brief-png", os.environ.get("PATH", ""))
    png = os.path.join(out, "plots", "summary-gains.png")
    if "(plots/summary-gains.png)" not in text:
        problem("report --brief with rsvg-convert does not link the PNG")
    if not os.path.isfile(png) or open(png, "rb").read(8) != b"\x89PNG\r\n\x1a\n":
        problem("report --brief with rsvg-convert: %s is not a PNG" % png)
else:
    print("rsvg-convert not installed: the PNG half of the --brief check is not run")
r = subprocess.run([bouncelab, "report", os.path.join(tests, "data", "results-fixed.json"), "--brief", "--full",
                    "-o", os.path.join(tmp, "both")], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
if r.returncode != 2 or os.path.exists(os.path.join(tmp, "both")):
    problem("report --brief --full: exit %d, expected 2 and nothing written" % r.returncode)

for p in problems:
    print("FAIL: " + p)
print("report hygiene: %d problems" % len(problems))
subprocess.run(["rm", "-rf", tmp])
sys.exit(1 if problems else 0)
