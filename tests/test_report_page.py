#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A report a reader can paste: each check below fails on a real wrong line.

  test_report_page.py BOUNCELAB TESTS_DIR

Every input lies under a directory named xyzzy-PATHLEAK: the fixed results
(its topology recorded as read from an XML file there), a latency matrix,
two files of one name in two folders, a fleet of three machines
(gen_fleet.py) and the largest corpus run. From their reports
(report.md, details.md, prediction.md, --brief, --text):
- no markdown table has more than 8 columns (the cells of each header
  row, counted here from the markdown);
- no file the report writes names that directory (markdown, SVG, CSV,
  text), and two inputs of one name are told apart;
- no HTML entity (&amp; &lt; ...) outside code spans and code blocks;
- report.md on the fixed results is under 2,500 words (the count is
  printed), and has the fix's before-and-after table under its verdict;
- report --brief prints on at most 2 A4 pages: pandoc renders it to HTML,
  headless Chromium prints it to PDF (@page A4, 15 mm margins), and the
  PDF's pages are counted (pdfinfo, else the /Type /Page objects);
- report.txt (--text): every line at most 72 columns, table rows at most
  80; no pipe tables, no ** or backticks, no markdown links; it holds the
  brief's headline gains as --brief writes them, and those agree with
  data/report-expected.tsv (scipy's numbers from the results file).
"""
import copy
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

bouncelab, tests = sys.argv[1], sys.argv[2]
LEAK = "xyzzy-PATHLEAK"
root = tempfile.mkdtemp(prefix=LEAK + ".")
problems = []


def problem(msg):
    problems.append(msg)


def put(path, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fp:
        json.dump(doc, fp)
    return path


def report(name, files, *extra):
    out = os.path.join(root, "reports", name)
    subprocess.run([bouncelab, "report", *files, "-o", out, *extra], check=True,
                   stdout=subprocess.DEVNULL)
    return out


def cells(line):
    """The cells of a table row, split at pipes that are not escaped."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def outputs(out):
    return sorted(p for p in glob.glob(os.path.join(out, "**"), recursive=True)
                  if os.path.isfile(p))


def without_code(md):
    md = re.sub(r"^```.*?^```", "", md, flags=re.M | re.S)
    return re.sub(r"`[^`\n]*`", "", md)


def check_markdown(label, path):
    md = open(path, encoding="utf-8").read()
    lines = md.split("\n")
    for i in range(len(lines) - 1):
        if lines[i].startswith("|") and re.match(r"^\|(\s*:?-+:?\s*\|)+$", lines[i + 1]):
            n = len(cells(lines[i]))
            if n > 8:
                problem("%s: a table of %d columns: %s" % (label, n, lines[i][:100]))
    for m in re.finditer(r"&(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#[xX][0-9A-Fa-f]+);", without_code(md)):
        problem("%s: an HTML entity %s in prose" % (label, m.group(0)))
        break


def check_outputs(label, out):
    for path in outputs(out):
        data = open(path, "rb").read()
        if LEAK.encode() in data or root.encode() in data:
            at = data.find(LEAK.encode())
            problem("%s: %s names the inputs' directory: %r" %
                    (label, os.path.relpath(path, out), data[max(0, at - 60):at + 30]))
        if path.endswith(".md"):
            check_markdown("%s %s" % (label, os.path.relpath(path, out)), path)


# ---- the inputs, under xyzzy-PATHLEAK ----
fixed_doc = json.load(open(os.path.join(tests, "data", "results-fixed.json")))
doc = copy.deepcopy(fixed_doc)
# As bouncelab records a topology read from a file (no summary line).
doc["context"]["topology"] = {"source": "XML file %s/machine/topo.xml (HWLOC_XMLFILE)" % root,
                              "nr_allowed_cpus": 4, "numa_nodes": 1}
fixed = put(os.path.join(root, "runs", "a", "results.json"), doc)
latency = shutil.copy(os.path.join(tests, "data", "latency-fixed.json"), os.path.join(root, "runs", "a"))
second = put(os.path.join(root, "runs", "b", "results.json"), fixed_doc)
fleet = os.path.join(root, "fleet")
subprocess.run([sys.executable, os.path.join(tests, "gen_fleet.py"), "--three", fleet], check=True,
               stdout=subprocess.DEVNULL)
corpus = sorted(glob.glob(os.path.join(tests, "data", "runs", "*", "default.json")))[-1]
big = shutil.copy(corpus, os.path.join(root, "runs", "corpus.json"))

# ---- the full report, its appendix and its text ----
out = report("fixed", [fixed], "--latency", latency, "--text")
check_outputs("fixed", out)
text = open(os.path.join(out, "report.md"), encoding="utf-8").read()
plain = open(os.path.join(report("words", [fixed]), "report.md"), encoding="utf-8").read()
words = len(plain.split())
print("report.md on results-fixed.json: %d words" % words)
if words > 2500:
    problem("report.md on results-fixed.json is %d words, more than 2,500" % words)
verdict = text.find("**Verdict.**", text.find("## has_pinned"))
pair = text.find("| threads | `store_always` ns/op | `read_then_set` ns/op |", verdict)
if verdict < 0 or pair < 0 or text.find("| threads | variant |", verdict) < pair:
    problem("report.md: no before-and-after table under has_pinned's verdict, before its table")

for name, files in (("two", [fixed, second]), ("fleet", sorted(glob.glob(os.path.join(fleet, "*.json")))),
                    ("corpus", [big])):
    out = report(name, files, "--text")
    check_outputs(name, out)
    if name == "two":
        env = open(os.path.join(out, "report.md"), encoding="utf-8").read().split("## Environment")[1]
        header = cells(env.strip().split("\n")[0])[1:]
        if len(header) != 2 or header[0] == header[1]:
            problem("two files named results.json are not told apart: %s" % header)

# ---- report --brief: two A4 pages ----
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
pandoc = shutil.which("pandoc")
PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>brief</title>
<style>@page { size: A4; margin: 15mm }
body { font-family: sans-serif; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: 2px 6px; }
img { max-width: 100%%; }</style></head>
<body>
%s
</body></html>
"""


def pages(pdf):
    if shutil.which("pdfinfo"):
        info = subprocess.run(["pdfinfo", pdf], stdout=subprocess.PIPE, check=True).stdout.decode()
        return int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    return len(re.findall(rb"/Type\s*/Page(?![s\w])", open(pdf, "rb").read()))


for name, path in (("fixed", fixed), ("corpus", big)):
    out = report(name + "-brief", [path], "--brief")
    check_outputs(name + " --brief", out)
    if not chromium or not pandoc:
        print("SKIP the page count of %s --brief: chromium and pandoc are needed" % name)
        continue
    body = subprocess.run([pandoc, "-f", "gfm", "-t", "html"], input=open(os.path.join(out, "report.md"), "rb").read(),
                          stdout=subprocess.PIPE, check=True).stdout.decode()
    page = os.path.join(out, "print.html")
    with open(page, "w", encoding="utf-8") as fp:
        fp.write(PAGE % body)
    pdf = os.path.join(root, name + "-brief.pdf")
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--no-first-run", "--user-data-dir=" + os.path.join(root, "profile"),
                    "--no-pdf-header-footer", "--print-to-pdf=" + pdf, "file://" + page],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=180)
    if not os.path.isfile(pdf):
        problem("%s --brief: Chromium printed no PDF" % name)
        continue
    n = pages(pdf)
    print("report --brief on %s: %d A4 pages" % (os.path.basename(path), n))
    if n > 2 or n < 1:
        problem("report --brief on %s prints on %d A4 pages, expected 1 or 2" % (os.path.basename(path), n))

# ---- report --text: a mail's plain text ----
out = os.path.join(root, "reports", "fixed")
txt = open(os.path.join(out, "report.txt"), encoding="utf-8").read()
brief = open(os.path.join(root, "reports", "fixed-brief", "report.md"), encoding="utf-8").read()
for block in txt.split("\n\n"):
    rows = block.strip("\n").split("\n")
    table = len(rows) > 1 and re.match(r"^[- ]+$", rows[1]) and "--" in rows[1]
    for line in rows:
        if len(line) > (80 if table else 72):
            problem("report.txt: a %s line of %d columns: %r" % ("table" if table else "prose", len(line), line))
for bad, what in ((r"^\s*\|", "a pipe table"), (r"\*\*", "bold markup"), (r"`", "a code span"),
                  (r"\]\(", "a markdown link"), (r"^#", "a markdown heading"), (r"\\[_*|<>\[\]]", "an escape")):
    m = re.search(bad, txt, re.M)
    if m:
        problem("report.txt has %s: %r" % (what, txt[max(0, m.start() - 30):m.end() + 30]))
# The headline: has_pinned's gain at 1 thread and at the most threads, as
# --brief's summary table writes them, in the text too, and right.
header = [cells(l) for l in brief.split("\n") if l.startswith("| family | gain at 1 thread |")]
row = [cells(l) for l in brief.split("\n") if l.startswith("| `has_pinned` |") and header and
       len(cells(l)) == len(header[0])]
flat = " ".join(txt.split())
expected = {}
for line in open(os.path.join(tests, "data", "report-expected.tsv")):
    f = line.rstrip("\n").split("\t")
    if f[0] == "gain" and f[1] == "has_pinned" and f[2] == "pin_work=1, flag_line=shared, placement compact":
        expected[int(f[3])] = (float(f[6]), float(f[8]), float(f[9]))
if not row or len(expected) < 2:
    problem("--brief has no has_pinned row, or the oracle no has_pinned gains")
else:
    at1, most = header[0].index("gain at 1 thread"), header[0].index("gain at the most threads")
    for cell, threads in ((row[0][at1], 1), (row[0][most], max(expected))):
        m = re.match(r"^([\d.]+)x \(95% CI ([\d.]+)–([\d.]+), paired by round\), faster", cell)
        if not m:
            problem("--brief's has_pinned gain %r is not a paired gain" % cell)
            continue
        if m.group(0) not in flat:
            problem("report.txt lacks --brief's headline %r" % m.group(0))
        for shown, value in zip(m.groups(), expected[threads]):
            if abs(float(shown) - value) > 0.5 * 10 ** -len(shown.split(".")[1]) + 1e-9:
                problem("has_pinned's gain at %d threads: %s shown, %.4g expected" % (threads, shown, value))
for want in ("4 seen, 0 not seen, 5 not testable here", "Summary"):
    if want not in txt:
        problem("report.txt lacks %r" % want)

for p in problems:
    print("FAIL: " + p)
print("report page: %d problems" % len(problems))
shutil.rmtree(root, ignore_errors=True)
sys.exit(1 if problems else 0)
