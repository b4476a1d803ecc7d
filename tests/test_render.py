#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""report.md as readers see it: rendered as a code-hosting site renders
markdown, opened in headless Chromium, checked in the browser's DOM.

  test_render.py BOUNCELAB TESTS_DIR SCREENSHOT_DIR

Three reports: the fixed results file (with a latency matrix) and its
appendix details.md, its report --brief, and a short real run. Each is rendered with cmark-gfm and GitHub's extensions (table,
autolink, strikethrough, tagfilter; raw HTML is left out, as GitHub does),
and the fixed one with pandoc -f gfm too. In Chromium's DOM after the page
loaded:
- every image the markdown links has loaded (naturalWidth > 0); a
  sentinel image that does not exist must be seen as not loaded, or the
  check itself is broken;
- there are as many <table> elements as the markdown has tables, and no
  paragraph that still shows table pipes;
- no raw HTML was dropped (cmark-gfm leaves "raw HTML omitted"), no stray
  code fence shows as text, no entity shows escaped twice ("&amp;").
A screenshot of the top of the fixed report (the summary) is saved as
SCREENSHOT_DIR/report-summary.png. Exits 77 when Chromium or both
renderers are missing.
"""
import html.parser
import os
import re
import shutil
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

bouncelab, tests, shots = sys.argv[1:4]
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if not chromium:
    print("SKIP: no chromium (Debian's package 'chromium'): cannot open the report as a reader would")
    sys.exit(77)
renderers = []
if shutil.which("cmark-gfm"):
    renderers.append(("cmark-gfm", ["cmark-gfm", "--extension", "table", "--extension", "autolink",
                                    "--extension", "strikethrough", "--extension", "tagfilter"]))
if shutil.which("pandoc"):
    renderers.append(("pandoc", ["pandoc", "-f", "gfm", "-t", "html"]))
if not renderers:
    print("SKIP: neither cmark-gfm nor pandoc is installed: cannot render markdown as GitHub does")
    sys.exit(77)

tmp = tempfile.mkdtemp(prefix="bouncelab-render.")
problems = []

PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>report.md</title>
<style>body { font-family: sans-serif; max-width: 1000px; margin: 1em auto; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: 2px 6px; }
img { max-width: 100%%; }</style></head>
<body><article id="report">
%s
</article>
<img id="sentinel" alt="sentinel" src="no-such-plot.svg" style="display:none">
<script>
/* The checker's own marks, set once every image has loaded or failed. */
window.addEventListener("load", function () {
  for (const img of document.images)
    img.setAttribute("data-loaded", img.complete && img.naturalWidth > 0 ? "yes" : "no");
  document.body.setAttribute("data-checked", String(document.images.length));
});
</script></body></html>
"""


def problem(msg):
    problems.append(msg)


def chromium_args(profile):
    return [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--disable-extensions", "--user-data-dir=" + profile,
            "--hide-scrollbars"]


class Dom(html.parser.HTMLParser):
    """The few things the checks need from the dumped DOM."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.images = []	# (src, data-loaded)
        self.tables = 0
        self.checked = None
        self.comments = []
        self.stack = []
        self.texts = []		# (enclosing tags, text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.images.append((a.get("src"), a.get("data-loaded"), a.get("id")))
        elif tag == "table":
            self.tables += 1
        elif tag == "body":
            self.checked = a.get("data-checked")
        if tag not in ("img", "br", "hr", "meta", "input"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack.pop() != tag:
                pass

    def handle_comment(self, data):
        self.comments.append(data)

    def handle_data(self, data):
        if data.strip():
            self.texts.append((tuple(self.stack), data))


def check(label, outdir, renderer, md_name="report.md"):
    name, cmd = renderer
    md = open(os.path.join(outdir, md_name), encoding="utf-8").read()
    body = subprocess.run(cmd, input=md.encode(), stdout=subprocess.PIPE, check=True).stdout.decode()
    page = os.path.join(outdir, "view-%s-%s.html" % (name, md_name[:-3]))
    with open(page, "w", encoding="utf-8") as fp:
        fp.write(PAGE % body)
    # A long virtual-time budget: the dump waits for the page's load event.
    dom_text = subprocess.run(chromium_args(os.path.join(tmp, "profile")) +
                              ["--virtual-time-budget=30000", "--dump-dom", "file://" + page],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=180).stdout.decode()
    dom = Dom()
    dom.feed(dom_text)
    where = "%s (%s)" % (label, name)
    if dom.checked is None:
        problem("%s: the page never finished loading in Chromium" % where)
        return page
    sentinel = [i for i in dom.images if i[2] == "sentinel"]
    if not sentinel or sentinel[0][1] != "no":
        problem("%s: a missing image was not seen as missing: the image check is broken" % where)
    shown = [i for i in dom.images if i[2] != "sentinel"]
    linked = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", md)
    if len(shown) != len(linked):
        problem("%s: the markdown links %d images, the page shows %d" % (where, len(linked), len(shown)))
    for src, loaded, _ in shown:
        if loaded != "yes":
            problem("%s: image %s did not load" % (where, src))
    md_tables = len(re.findall(r"^\|[-:| ]+\|$", md, re.M))
    if dom.tables != md_tables:
        problem("%s: %d tables in the markdown, %d rendered as tables" % (where, md_tables, dom.tables))
    for c in dom.comments:
        if "raw HTML omitted" in c:
            problem("%s: raw HTML in the markdown was dropped by the renderer" % where)
    for tags, text in dom.texts:
        if "script" in tags or "style" in tags:
            continue
        if "```" in text:
            problem("%s: a stray code fence shows as text: %r" % (where, text[:80]))
        if re.search(r"&(amp|lt|gt|quot);", text):
            problem("%s: an entity shows escaped twice: %r" % (where, text[:80]))
        if "p" in tags and re.search(r"^\s*\|.*\|\s*$", text, re.M) and "code" not in tags:
            problem("%s: a paragraph shows table pipes: %r" % (where, text[:80]))
        if "p" in tags and re.search(r"</?[a-z]+[ >]", text):
            problem("%s: an HTML tag shows as text: %r" % (where, text[:80]))
    print("%s: %d images loaded, %d tables" % (where, len(shown), dom.tables))
    return page


# The fixed results, with a latency matrix: every section the report has.
fixed = os.path.join(tmp, "fixed")
subprocess.run([bouncelab, "report", os.path.join(tests, "data", "results-fixed.json"),
                "--latency", os.path.join(tests, "data", "latency-fixed.json"), "-o", fixed],
               check=True, stdout=subprocess.DEVNULL)
pages = [check("fixed results", fixed, r) for r in renderers]
# The page report.md links for the model's whole check.
for r in renderers:
    check("fixed results, prediction.md", fixed, r, "prediction.md")
for r in renderers:
    check("fixed results, details.md", fixed, r, "details.md")
brief = os.path.join(tmp, "brief")
subprocess.run([bouncelab, "report", os.path.join(tests, "data", "results-fixed.json"), "--brief", "-o", brief],
               check=True, stdout=subprocess.DEVNULL)
check("report --brief", brief, renderers[0])

# A short real run on this machine.
real = os.path.join(tmp, "real")
subprocess.run([bouncelab, "run", "--quick", "--threads", "1,2", "--filter", "^(has_pinned|counter)/",
                "--out", os.path.join(real, "results.json")],
               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
subprocess.run([bouncelab, "report", os.path.join(real, "results.json"), "-o", os.path.join(real, "report")],
               check=True, stdout=subprocess.DEVNULL)
check("a real quick run", os.path.join(real, "report"), renderers[0])

# The summary, as the top of the page shows it.
os.makedirs(shots, exist_ok=True)
shot = os.path.join(shots, "report-summary.png")
if os.path.exists(shot):
    os.remove(shot)
subprocess.run(chromium_args(os.path.join(tmp, "profile")) +
               ["--window-size=1100,1400", "--screenshot=" + shot, "file://" + pages[0]],
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=180)
if not os.path.isfile(shot) or os.path.getsize(shot) < 10000:
    problem("no screenshot of the summary at %s" % shot)
else:
    print("screenshot of the summary: %s" % shot)

shutil.rmtree(tmp, ignore_errors=True)
for p in problems:
    print("FAIL: " + p)
sys.exit(1 if problems else 0)
