#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Crash consistency: kill 'bouncelab run' at random moments, lose nothing.

Each of KILLS runs of a short suite is sent SIGKILL, SIGINT, SIGTERM,
SIGHUP or SIGPIPE (in turn) after a random delay between 0 and a little
more than a whole run takes, so some land in the planning, some between
repetitions and some during the final write. A repetition counts as
finished when its progress line reached stderr: run prints it only after
the repetition is in the journal and flushed. After each kill:

  - a journal left behind is recovered with 'run --resume DIR' (exit 0);
  - the results file, if any repetition finished, is valid JSON and holds
    at least every repetition seen finishing (none lost), and is marked
    incomplete when the run did not finish;
  - no temporary file (*.tmp.*) and no journal is left, and no lock but,
    after SIGKILL, a stale lock file that nobody holds (flock dies with
    the process; the next command on the path takes it over and removes
    it).

Then one real closed pipe: 'run 2>&1 | head -1' keeps its rows too.

The same for the other commands that write (KILLS / 5 kills each, the
moments spread over a whole command's time):

  - 'report' into a new directory and, with --force, over an old report:
    stopped, it exits 128 + N and leaves no directory it made, the old
    report whole and no temporary tree or lock; after SIGKILL the next
    report on the path succeeds and removes what was left;
  - 'topo --latency': stopped, it keeps the samples measured, marked
    incomplete, or writes nothing if none finished; no lock is left;
  - 'run --resume': the journal is recovered whole or left as it was,
    and a second --resume recovers every row.

All within a budget of 150 s: past it each kind stops at its least
number of kills (10 runs, 2 of each other command), and says so.

usage: test_kill.py BOUNCELAB [KILLS]   (TAP output)
"""
import fcntl
import glob
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

SIGNALS = [signal.SIGKILL, signal.SIGINT, signal.SIGTERM, signal.SIGHUP,
           signal.SIGPIPE]
SUITE = ["run", "--filter", "has_pinned/(nop|read_then_set)$", "--threads", "1",
         "--repetitions", "12", "--min-time", "0.002", "--counters", "none"]

tests = 0
failures = 0

# The kills' own bound on total time, inside meson's 300 s: past it, each
# kind stops once it has made its least number of kills (10 runs, 2 of
# each other command), so a loaded machine, where a run takes three times
# as long, makes fewer kills instead of meeting the timeout (187 s of 300
# under a load of 37 on 2 CPUs).
BUDGET_S = 150
LEAST_KILLS = 10
LEAST_OTHER_KILLS = 2
deadline = None


def more_kills(i, kills, least, what):
    """Whether kill number i of kills (of what) is made: within the
    budget, or one of the least number."""
    if i < least or time.monotonic() < deadline:
        return True
    print(f"# {what}: {i} of {kills} kills made, the budget of {BUDGET_S} s spent")
    return False


def check(ok, what, detail=""):
    global tests, failures
    tests += 1
    if not ok:
        failures += 1
        print(f"not ok {tests} - {what}")
        for line in detail.splitlines():
            print(f"#   {line}")
    else:
        print(f"ok {tests} - {what}")
    sys.stdout.flush()


def start(bouncelab, out, stderr_path):
    err = open(stderr_path, "wb")
    # A session of its own: SIGINT from the test reaches bouncelab only.
    proc = subprocess.Popen([bouncelab] + SUITE + ["--out", out],
                            stdout=subprocess.DEVNULL, stderr=err,
                            start_new_session=True)
    err.close()
    return proc


def finished_seen(stderr_path):
    with open(stderr_path, "rb") as f:
        return sum(1 for line in f if line.startswith(b"["))


def leftovers(directory):
    return [p for p in glob.glob(os.path.join(directory, "**"), recursive=True)
            if ".tmp." in os.path.basename(p) or p.endswith(".journal")
            or p.endswith(".lock")]


def held(lock):
    with open(lock) as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return False
        except OSError:
            return True


def rows_in(path):
    with open(path) as f:
        doc = json.load(f)
    rows = [r for r in doc["benchmarks"] if r.get("run_type") == "iteration"]
    return doc, rows


def one_kill(bouncelab, work, index, signo, delay):
    directory = os.path.join(work, f"k{index}")
    out = os.path.join(directory, "results.json")
    stderr_path = os.path.join(work, f"k{index}.err")
    proc = start(bouncelab, out, stderr_path)
    time.sleep(delay)
    try:
        proc.send_signal(signo)
    except ProcessLookupError:
        pass
    status = proc.wait(timeout=60)
    seen = finished_seen(stderr_path)
    name = f"{signal.Signals(signo).name} after {delay:.3f} s ({seen} finished, status {status})"
    detail = open(stderr_path, errors="replace").read()[-2000:]
    journal = out + ".journal"
    if os.path.exists(journal):
        resumed = subprocess.run([bouncelab, "run", "--resume", directory],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if resumed.returncode != 0:
            check(False, name + ": --resume failed",
                  resumed.stderr.decode(errors="replace"))
            return
    if os.path.exists(out):
        try:
            doc, rows = rows_in(out)
        except (ValueError, KeyError) as e:
            check(False, name + ": the results file is not valid", str(e))
            return
        ran_out = status == 0
        check(len(rows) >= seen and
              (ran_out or "incomplete" in doc["context"] or len(rows) == 24),
              name + f": {len(rows)} rows kept",
              f"rows {len(rows)} < finished {seen}, or not marked incomplete\n" + detail)
    else:
        check(seen == 0, name + ": no results file", f"{seen} finished repetitions lost\n" + detail)
    left = leftovers(work)
    if signo == signal.SIGKILL:
        left = [p for p in left if not (p.endswith(".lock") and not held(p))]
    check(not left, name + ": nothing left behind", "\n".join(left))
    shutil.rmtree(directory, ignore_errors=True)


def closed_pipe(bouncelab, work):
    out = os.path.join(work, "pipe", "results.json")
    # head exits after one line; the next progress line meets a closed pipe.
    shell = subprocess.run(
        ["bash", "-c", '"$0" "${@}" 2>&1 | head -1 >/dev/null; echo "${PIPESTATUS[0]}"',
         bouncelab] + SUITE + ["--out", out],
        stdout=subprocess.PIPE, timeout=120)
    status = int(shell.stdout.decode().strip() or -1)
    ok = os.path.exists(out)
    rows = rows_in(out)[1] if ok else []
    check(ok and status == 128 + signal.SIGPIPE and len(rows) >= 1 and
          not leftovers(work),
          f"run 2>&1 | head -1: exit {status}, {len(rows)} rows kept",
          "expected exit 141, the rows finished before the pipe closed, nothing left")


def timed(cmd):
    t0 = time.monotonic()
    status = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, timeout=120).returncode
    return status, time.monotonic() - t0


def kill_at(cmd, signo, delay):
    """cmd started in a session of its own, sent signo after delay: its status."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    time.sleep(delay)
    try:
        proc.send_signal(signo)
    except ProcessLookupError:
        pass
    return proc.wait(timeout=60)


def stopped_as_told(status, signo):
    """0 (done before the signal) or the signal's death or 128 + it."""
    return status in (0, -signo, 128 + signo)


def stale_ok(paths, signo):
    """Left behind: only a lock nobody holds, and only after SIGKILL."""
    if signo != signal.SIGKILL:
        return paths
    return [p for p in paths if not (p.endswith(".lock") and not held(p))]


def report_leftovers(directory):
    return [p for p in glob.glob(os.path.join(directory, "**"), recursive=True)
            + glob.glob(os.path.join(directory, ".*"))
            if ".tmp." in os.path.basename(p) or p.endswith(".lock")]


def kill_reports(bouncelab, work, inputs, kills, rng):
    cmd = [bouncelab, "report"] + inputs
    status, whole = timed(cmd + ["-o", os.path.join(work, "rwhole")])
    check(status == 0, f"an unkilled report ends with 0 ({whole:.2f} s)")
    for i in range(kills):
        if not more_kills(i, kills, LEAST_OTHER_KILLS, "report"):
            break
        signo = SIGNALS[i % 4]
        force = i % 2 == 1
        out = os.path.join(work, "rwhole" if force else f"r{i}")
        delay = rng.uniform(0, whole * 1.1)
        status = kill_at(cmd + ["-o", out] + (["--force"] if force else []),
                         signo, delay)
        name = (f"report{' --force' if force else ''}: "
                f"{signal.Signals(signo).name} after {delay:.3f} s (status {status})")
        md = os.path.join(out, "report.md")
        if force:
            # report.md goes in last, by rename: there, it is whole.
            check(os.path.exists(md) and stopped_as_told(status, signo),
                  name + ": the report there stays")
        elif status == 0:
            check(os.path.exists(md), name + ": done, report.md written")
        else:
            # A signal that lands after the last rename finds the report
            # whole (report.md goes in last): that is done, not left.
            check(stopped_as_told(status, signo) and
                  (signo == signal.SIGKILL or not os.path.exists(out) or
                   (os.path.exists(md) and not report_leftovers(out))),
                  name + ": no directory left, or a whole report", str(os.listdir(out))
                  if os.path.exists(out) else "")
        left = stale_ok(report_leftovers(out), signo)
        if signo == signal.SIGKILL:
            # The next report on the path takes over what was left.
            again = subprocess.run(cmd + ["-o", out, "--force"],
                                   stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE)
            left = report_leftovers(out)
            check(again.returncode == 0, name + ": the next report succeeds",
                  again.stderr.decode(errors="replace"))
        check(not left, name + ": nothing left behind", "\n".join(left))
        if not force:
            shutil.rmtree(out, ignore_errors=True)


LATENCY = ["topo", "--latency", "--samples", "200", "--round-trips", "2000"]


def kill_latency(bouncelab, work, kills, rng):
    cmd = [bouncelab] + LATENCY
    status, whole = timed(cmd + ["--latency-out", os.path.join(work, "lwhole", "l.json")])
    check(status == 0, f"an unkilled topo --latency ends with 0 ({whole:.2f} s)")
    for i in range(kills):
        if not more_kills(i, kills, LEAST_OTHER_KILLS, "topo --latency"):
            break
        signo = SIGNALS[i % 4]
        out = os.path.join(work, f"l{i}", "l.json")
        delay = rng.uniform(0, whole * 1.1)
        status = kill_at(cmd + ["--latency-out", out], signo, delay)
        name = f"topo --latency: {signal.Signals(signo).name} after {delay:.3f} s (status {status})"
        ok = stopped_as_told(status, signo)
        if os.path.exists(out):
            doc = json.load(open(out))
            samples = sum(len(p["samples_ns"]) for p in doc["latency"]["pairs"])
            # Whole when it finished, or when the signal landed after its
            # last write (status -signo: the default action by then);
            # marked incomplete when the signal stopped it.
            whole = "incomplete" not in doc["context"]
            ok = ok and samples > 0 and (status in (0, -signo) if whole else status != 0)
            check(ok, name + f": {samples} samples kept")
        else:
            check(ok and status != 0, name + ": nothing written")
        left = stale_ok(leftovers(os.path.dirname(out)), signo)
        check(not left, name + ": nothing left behind", "\n".join(left))
        shutil.rmtree(os.path.dirname(out), ignore_errors=True)


def kill_resumes(bouncelab, work, kills, rng):
    directory = os.path.join(work, "resume")
    out = os.path.join(directory, "results.json")
    journal = out + ".journal"
    proc = start(bouncelab, out, os.path.join(work, "resume.err"))
    while finished_seen(os.path.join(work, "resume.err")) < 6 and proc.poll() is None:
        time.sleep(0.01)
    proc.kill()
    proc.wait()
    saved = open(journal, "rb").read()
    lines = saved.count(b"\n")

    def restore():
        for p in glob.glob(os.path.join(directory, "*")):
            os.unlink(p)
        open(journal, "wb").write(saved)

    restore()
    status, whole = timed([bouncelab, "run", "--resume", directory])
    want = len(rows_in(out)[1])
    check(status == 0 and want >= 6, f"an unkilled --resume recovers {want} rows ({whole:.3f} s, {lines} journal lines)")
    for i in range(kills):
        if not more_kills(i, kills, LEAST_OTHER_KILLS, "--resume"):
            break
        signo = SIGNALS[i % 4]
        restore()
        delay = rng.uniform(0, whole * 1.1)
        status = kill_at([bouncelab, "run", "--resume", directory], signo, delay)
        name = f"--resume: {signal.Signals(signo).name} after {delay:.3f} s (status {status})"
        whole_journal = os.path.exists(journal) and open(journal, "rb").read() == saved
        done = os.path.exists(out) and not os.path.exists(journal)
        check(stopped_as_told(status, signo) and (whole_journal or done or signo == signal.SIGKILL),
              name + ": recovered, or the journal as it was")
        if os.path.exists(journal):
            subprocess.run([bouncelab, "run", "--resume", directory],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        rows = len(rows_in(out)[1]) if os.path.exists(out) else 0
        left = stale_ok(leftovers(directory), signo)
        check(rows == want and not left, name + f": {rows} of {want} rows, nothing left",
              "\n".join(left))
    shutil.rmtree(directory, ignore_errors=True)


def main():
    global deadline
    deadline = time.monotonic() + BUDGET_S
    bouncelab = os.path.abspath(sys.argv[1])
    kills = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    seed = int(os.environ.get("KILL_SEED", time.time_ns() % 1000000))
    rng = random.Random(seed)
    print(f"# seed {seed} (KILL_SEED={seed} repeats these moments)")
    work = tempfile.mkdtemp(prefix="bouncelab-kill.")
    try:
        # How long a whole run takes here: kills spread over all of it.
        t0 = time.monotonic()
        directory = os.path.join(work, "whole")
        proc = start(bouncelab, os.path.join(directory, "results.json"),
                     os.path.join(work, "whole.err"))
        whole_status = proc.wait(timeout=120)
        whole = time.monotonic() - t0
        check(whole_status == 0, f"an unkilled run ends with 0 ({whole:.2f} s)")
        shutil.rmtree(directory)
        for i in range(kills):
            if not more_kills(i, kills, LEAST_KILLS, "run"):
                break
            one_kill(bouncelab, work, i, SIGNALS[i % len(SIGNALS)],
                     rng.uniform(0, whole * 1.1))
        closed_pipe(bouncelab, work)
        inputs = sorted(glob.glob(os.path.join(
            os.path.dirname(os.path.abspath(__file__)),
            "data", "runs", "epyc-zen3-2026-12-01", "*.json")))
        kill_reports(bouncelab, work, inputs, max(kills // 5, 4), rng)
        kill_latency(bouncelab, work, max(kills // 5, 4), rng)
        kill_resumes(bouncelab, work, max(kills // 5, 4), rng)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"1..{tests}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
