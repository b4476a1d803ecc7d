#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""bouncelab gup prints what tools/testing/selftests/mm/gup_test prints.

Two readers that owe nothing to our code check every option gup_test
takes:

- the format, from the printf and ksft_*() calls of gup_test.c and
  kselftest.h (their format strings are copied below as data and turned
  into patterns mechanically): header, plan, one timing or "done" line per
  thread and repeat, one result per thread, Totals that add up, and the
  exit status of ksft_finished();
- Perl's TAP::Parser, and prove on one run, as any TAP harness reads it.

Numbers come from the kernel's rules, not from ours: a pin adds
GUP_PIN_COUNTING_BIAS (1024) to a small page's refcount and one to a large
folio's refcount and pincount (include/linux/mm.h); a long-term writable
pin of a shared file mapping is refused (mm/gup.c,
writable_file_mapping_allowed()), so the ioctl covers 0 bytes.

  test_gup_tap.py BOUNCELAB
"""
import os
import re
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

BOUNCELAB = os.path.realpath(sys.argv[1])
failures = []

# ---- the kernel's format strings ------------------------------------------
# kselftest.h: ksft_print_header(), ksft_set_plan(), ksft_print_msg()'s
# prefix, ksft_test_result_pass()/_fail()'s prefixes, ksft_print_cnts().
KSFT_HEADER = "TAP version 13\n"
KSFT_PLAN = "1..%u\n"
KSFT_MSG = "# "
KSFT_OK = "ok %u "
KSFT_NOT_OK = "not ok %u "
KSFT_TOTALS = "# Totals: pass:%u fail:%u xfail:%u xpass:%u skip:%u error:%u\n"
# gup_test.c, gup_thread(): each a ksft_print_msg() call, or the
# ksft_test_result() message.
GUP_TIME = "%s: Time: get:%lld put:%lld us"
GUP_TRUNCATED = ", truncated (size: %lld)"
GUP_NEWLINE = "\n"
GUP_DONE = "%s: done\n"
GUP_TRUNCATED_DONE = "Truncated (size: %lld)\n"
GUP_RESULT = "ioctl status %d\n"
# gup_test.c's getopt switch and cmd_to_str(): the command each option picks.
CMD_OF_OPTION = {"-u": "GUP_FAST_BENCHMARK", "-a": "PIN_FAST_BENCHMARK",
                 "-L": "PIN_LONGTERM_BENCHMARK", "-U": "GUP_BASIC_TEST",
                 "-b": "PIN_BASIC_TEST", "-c": "DUMP_USER_PAGES_TEST"}
BENCHMARKS = {"GUP_FAST_BENCHMARK", "PIN_FAST_BENCHMARK", "PIN_LONGTERM_BENCHMARK"}
KSFT_PASS, KSFT_FAIL = 0, 1


def pattern(fmt):
    """A printf format as a regex: each conversion one captured number or name."""
    out, i = "", 0
    for m in re.finditer(r"%(u|d|lld|s)", fmt):
        out += re.escape(fmt[i:m.start()])
        out += r"([A-Z_]+)" if m.group(1) == "s" else r"(-?\d+)"
        i = m.end()
    return out + re.escape(fmt[i:])


def line_re(*fmts):
    return re.compile("^" + "".join(pattern(f) for f in fmts) + "$")


HEADER = line_re(KSFT_HEADER)
PLAN = line_re(KSFT_PLAN)
TOTALS = line_re(KSFT_TOTALS)
# "# " TIME ["# " TRUNCATED] "# " "\n": three or four calls, one line
TIME = re.compile("^" + pattern(KSFT_MSG + GUP_TIME) + "(?:" + pattern(KSFT_MSG + GUP_TRUNCATED)
                  + ")?" + pattern(KSFT_MSG + GUP_NEWLINE) + "$")
DONE = line_re(KSFT_MSG, GUP_DONE)
TRUNCATED_DONE = line_re(KSFT_MSG, GUP_TRUNCATED_DONE)
OK = line_re(KSFT_OK, GUP_RESULT)
NOT_OK = line_re(KSFT_NOT_OK, GUP_RESULT)


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def gup(*args):
    p = subprocess.run([BOUNCELAB, "gup", *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def check_format(args, status, out, threads, repeats, cmd):
    """gup_test's output for these options, line by line; returns the timing lines' matches."""
    what = "gup " + " ".join(args)
    lines = out.splitlines(keepends=True)
    if len(lines) < 3 or not HEADER.match(lines[0]) or not PLAN.match(lines[1]):
        fail(f"{what}: no TAP header and plan: {out[:300]!r}")
        return []
    if int(PLAN.match(lines[1]).group(1)) != threads:
        fail(f"{what}: plan {lines[1]!r}, expected 1..{threads}")
    totals = TOTALS.match(lines[-1])
    if not totals:
        fail(f"{what}: the last line is not ksft_print_cnts()'s: {lines[-1]!r}")
        return []
    times, dones, results = [], [], []
    for line in lines[2:-1]:
        if m := TIME.match(line):
            times.append(m)
        elif m := DONE.match(line):
            dones.append(m)
        elif m := OK.match(line) or NOT_OK.match(line):
            results.append((line.startswith("ok"), int(m.group(1)), int(m.group(2))))
        elif not line.startswith(KSFT_MSG) and not TRUNCATED_DONE.match(line):
            fail(f"{what}: a line neither gup_test nor ksft_print_msg() prints: {line!r}")
    if cmd in BENCHMARKS:
        if len(times) != threads * repeats or dones:
            fail(f"{what}: {len(times)} timing and {len(dones)} done lines, "
                 f"expected {threads * repeats} timing lines")
        if any(m.group(1) != cmd for m in times):
            fail(f"{what}: timing lines not all {cmd}")
    elif len(dones) != threads or times or any(m.group(1) != cmd for m in dones):
        fail(f"{what}: {len(dones)} '{cmd}: done' lines and {len(times)} timing lines, "
             f"expected {threads} done lines")
    # ksft_test_num() counts every result so far: 1..threads in order
    if [n for _, n, _ in results] != list(range(1, threads + 1)):
        fail(f"{what}: results numbered {[n for _, n, _ in results]}")
    passed = sum(ok for ok, _, _ in results)
    want = (passed, len(results) - passed, 0, 0, 0, 0)
    if tuple(int(g) for g in totals.groups()) != want:
        fail(f"{what}: {lines[-1]!r}, but the results give pass:{want[0]} fail:{want[1]}")
    # ksft_finished(): pass if every planned test passed
    if status != (KSFT_PASS if passed == threads else KSFT_FAIL):
        fail(f"{what}: exit status {status} with {passed} of {threads} passed")
    return times


def check_tap_parser(what, out, threads):
    """Perl's TAP::Parser on the output: a good plan, every test passed, no stray line."""
    script = r'''
use TAP::Parser;
my $p = TAP::Parser->new({ tap => do { local $/; <STDIN> } });
my $unknown = 0;
while (my $r = $p->next) { $unknown++ if $r->is_unknown; }
printf "%d %d %d %d %d %d\n", $p->version, $p->tests_planned, $p->tests_run,
    scalar($p->passed), scalar($p->parse_errors), $unknown;
'''
    p = subprocess.run(["perl", "-e", script], input=out, capture_output=True, text=True)
    got = p.stdout.split()
    want = ["13", str(threads), str(threads), str(threads), "0", "0"]
    if p.returncode or got != want:
        fail(f"{what}: TAP::Parser reads version, planned, run, passed, parse errors, "
             f"unknown lines as {got} {p.stderr.strip()}, expected {want}")


def run_case(args, threads=1, repeats=1, cmd=None):
    cmd = cmd or next((CMD_OF_OPTION[a] for a in reversed(args) if a in CMD_OF_OPTION),
                      "GUP_FAST_BENCHMARK")
    status, out, err = gup(*args)
    if status not in (KSFT_PASS, KSFT_FAIL):
        fail(f"gup {' '.join(args)}: status {status}: {err.strip()}")
        return [], out
    times = check_format(args, status, out, threads, repeats, cmd)
    check_tap_parser("gup " + " ".join(args), out, threads)
    return times, out


def truncated_sizes(times):
    """The size each timing line's truncation note gives; None when it has none."""
    sizes = []
    for m in times:
        extra = re.search(pattern(GUP_TRUNCATED), m.group(0))
        sizes.append(int(extra.group(1)) if extra else None)
    return sizes


def expect_usage(needle, *args):
    status, out, err = gup(*args)
    if status != 2 or out or len(err.splitlines()) != 1 or needle not in err:
        fail(f"gup {' '.join(args)}: status {status}, stdout {out[:80]!r}, stderr {err!r}; "
             f"expected status 2 and one line naming {needle!r}")


def dumped_pages(out):
    """The '# page:' facts after each '# ---- page #N' line, by page index."""
    pages, index = {}, None
    for line in out.splitlines():
        if m := re.match(r"^# ---- page #(\d+), starting from user virt addr: 0x[0-9a-f]+$", line):
            index = int(m.group(1))
        elif (m := re.match(r"^# page: refcount:(\d+) pincount:(\d+) pfn:0x[0-9a-f]+ "
                            r"order:(\d+) (\w+) maybe_dma_pinned:([01])$", line)) and index is not None:
            pages[index] = (int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4),
                            int(m.group(5)))
            index = None
    return pages


tmp = tempfile.mkdtemp(prefix="bouncelab-gup-tap.")
page_cache = os.path.join(tmp, "page-cache")
with open(page_cache, "wb") as f:
    f.truncate(4 << 20)
short_file = os.path.join(tmp, "short")
with open(short_file, "wb") as f:
    f.truncate(4096)
nproc = os.cpu_count() or 1
try:
    nproc = len(os.sched_getaffinity(0))
except AttributeError:
    pass

# ---- every gup_test option, and the format of what it prints -------------
for args, threads, repeats in [
        (["-m", "2"], 1, 1),
        (["-u", "-m", "2", "-r", "3"], 1, 3),
        (["-a", "-m", "2", "-r", "2", "-j", "2"], 2, 2),
        (["-L", "-m", "2", "-n", "64"], 1, 1),
        (["-U", "-m", "2", "-r", "4"], 1, 1),      # the *_TEST commands run once
        (["-b", "-m", "2", "-j", "2"], 2, 1),
        (["-a", "-m", "4", "-t"], 1, 1),
        (["-a", "-m", "4", "-T"], 1, 1),
        (["-a", "-m", "2", "-W"], 1, 1),
        (["-a", "-m", "2", "-W", "-w"], 1, 1),
        (["-a", "-m", "2", "-n", "-1"], 1, 1),
        (["-a", "-m", "2", "-F", "0x100"], 1, 1),
        (["-a", "-m", "2", "-S"], 1, 1),
        (["-a", "-m", "4", "-H"], 1, 1),
        (["-a", "-m", "4", "-S", "-f", page_cache], 1, 1),
        (["-a", "-m", "2", "-p", "-c"], 1, 1),
        (["-c", "-m", "2", "1", "2"], 1, 1),
        (["-a", "-m", "2", "-r", "2", "--variant", "store_always,read_then_set"], 1, 2 * 2),
]:
    run_case(args, threads, repeats)

# -j above the CPUs runs: gup_test does not cap it (seed 000 ran -j 40)
over = nproc + 2
times, out = run_case(["-a", "-m", "2", "-r", "2", "-j", str(over)], over, 2)
if not re.search(rf"^# {over} threads on {nproc} allowed CPUs?: threads share CPUs", out, re.M):
    fail(f"-j {over} on {nproc} CPUs: no '# ' line saying the threads share CPUs:\n{out}")

# prove, as a harness runs a TAP program
wrapper = os.path.join(tmp, "gup.t")
with open(wrapper, "w") as f:
    f.write(f"#!/bin/sh\nexec '{BOUNCELAB}' gup -a -m 2 -j {over}\n")
os.chmod(wrapper, 0o755)
p = subprocess.run(["prove", "--exec", "", wrapper], capture_output=True, text=True, timeout=120)
if p.returncode or not re.search(r"^Result: PASS$", p.stdout, re.M):
    fail(f"prove on gup -a -j {over}: status {p.returncode}:\n{p.stdout}{p.stderr}")

# ---- what the options do to the walk, by the kernel's rules --------------
# A long-term writable pin of page cache (-S -f FILE) is refused and the
# ioctl covers 0 bytes; shmem, a private file mapping (copied on the
# fault-in write), hugetlb, a read pin, or a get are not.
for args, refused in [
        (["-L", "-S", "-f", page_cache], True),
        (["-a", "-F", "0x100", "-S", "-f", page_cache], True),
        (["-a", "-l", "-S", "-f", page_cache], True),
        (["-L", "-S"], False),
        (["-L", "-f", page_cache], False),
        (["-L", "-S", "-f", page_cache, "-W"], False),
        (["-L", "-S", "-H", "-f", page_cache], False),
        (["-a", "-S", "-f", page_cache], False),
        (["-u", "-l", "-S", "-f", page_cache], False),
        # -F 0x2 (FOLL_GET) on a pin: pin_user_pages*() answer -EINVAL
        (["-a", "-F", "0x2"], True),
        (["-u", "-F", "0x2"], False),
]:
    times, _ = run_case(["-m", "4", *args])
    want = [0] if refused else [None]
    if truncated_sizes(times) != want:
        fail(f"gup -m 4 {' '.join(args)}: truncation sizes {truncated_sizes(times)}, expected {want}")

# DUMP_USER_PAGES_TEST shows the pages while they are held: a get adds 1
# to the refcount, a pin GUP_PIN_COUNTING_BIAS (1024) to a small page's
# and 1 to a large folio's refcount and pincount, per page taken (-n 1:
# all 512 pages of a 2M folio, one call each).
BIAS = 1024
for args, kind, want in [
        (["-c"], "anon", (1 + 1, 0, 0)),
        (["-c", "-p"], "anon", (1 + BIAS, 0, 0)),
        (["-c", "-p", "-S"], "shmem", (1 + BIAS, 0, 0)),
        (["-c", "-p", "-S", "-f", page_cache], "file", (1 + BIAS, 0, 0)),
        (["-c", "-p", "-f", page_cache], "anon", (1 + BIAS, 0, 0)),
        (["-c", "-t"], "anon", (1 + 512, 0, 9)),
        (["-c", "-p", "-t"], "anon", (1 + 512, 512, 9)),
        (["-c", "-p", "-H"], "hugetlb", (1 + 512, 512, 9)),
]:
    _, out = run_case(["-m", "4", *args])
    pages = dumped_pages(out)
    pinned = 1 if "-p" in args else 0
    if pages != {0: (*want, kind, pinned)}:
        fail(f"gup -m 4 {' '.join(args)}: dumped {pages}, expected page 0 as "
             f"refcount, pincount, order {want}, {kind}, maybe_dma_pinned {pinned}")
# 0-based page indexes after the options, strtol(.., 0, 0): 0x1001 is 4097
_, out = run_case(["-m", "20", "-c", "0", "1", "0x1001"])
if sorted(dumped_pages(out)) != [0, 1, 4097]:
    fail(f"gup -c 0 1 0x1001: dumped pages {sorted(dumped_pages(out))}, expected [0, 1, 4097]")
# pages the ioctl did not take are zeroed from which_pages[], with the kernel's warning
_, out = run_case(["-m", "4", "-c", "-p", "-F", "0x101", "-S", "-f", page_cache, "3"])
if ("# ZEROING due to out of range: .which_pages[0]: 4\n" not in out or dumped_pages(out)
        or "# Truncated (size: 0)\n" not in out):
    fail(f"gup -c -p of refused page cache: expected which_pages[0] zeroed and size 0:\n{out}")

# ---- bad usage: one line naming the value, status 2, nothing on stdout ---
expect_usage("'-z'", "-z")
expect_usage("'-p'", "-p", "-a")
expect_usage("0x8 (FOLL_FORCE)", "-F", "0x9")
expect_usage("0x10000", "-F", "0x10001")
expect_usage("-F 'fast'", "-F", "fast")
expect_usage("-m '3' with -H", "-m", "3", "-H")
expect_usage(f"-f '{tmp}/none'", "-f", f"{tmp}/none")
expect_usage(f"-f '{tmp}'", "-f", tmp)
expect_usage("4096 bytes", "-m", "4", "-f", short_file)
expect_usage("'5'", "-a", "5")
expect_usage("page index '1024'", "-m", "4", "-c", "1024")
expect_usage("at most 8", "-m", "4", "-c", *map(str, range(9)))
expect_usage("-j '1025'", "-j", "1025")

for name in os.listdir(tmp):
    os.unlink(os.path.join(tmp, name))
os.rmdir(tmp)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
