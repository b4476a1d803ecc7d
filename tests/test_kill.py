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

SIGNALS = [signal.SIGKILL, signal.SIGINT, signal.SIGTERM, signal.SIGHUP,
           signal.SIGPIPE]
SUITE = ["run", "--filter", "has_pinned/(nop|read_then_set)$", "--threads", "1",
         "--repetitions", "12", "--min-time", "0.002", "--counters", "none"]

tests = 0
failures = 0


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


def main():
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
            one_kill(bouncelab, work, i, SIGNALS[i % len(SIGNALS)],
                     rng.uniform(0, whole * 1.1))
        closed_pipe(bouncelab, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"1..{tests}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
