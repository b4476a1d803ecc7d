#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Every command in the README runs, as a reader would type it.

  test_readme.py README BUILD_DIR SOURCE_DIR

Takes every fenced ```sh block, joins backslash-continued lines, drops
comments, and runs each command with bash in a scratch directory where
build/ is this build and scripts/ is the checkout's. Each must exit 0.
Where a command would take too long or cannot run in a test, it is
changed or left out, and the reason is printed; these are the only ones:

- scripts/lab test: this test runs inside it; running it would recurse.
- scripts/lab run: --quick --threads 1 --filter '^has_pinned/nop$' added
  (the default suite takes a minute).
- --repetitions 9: 3 instead (the worked example's run; same commands).
- --param ...already_set=0,25,50,75,90,100: 0,100, with --quick (the sweep).
- apt-get install PKG...: installs nothing; each package must be installed
  (dpkg-query), as scripts/lab checks.
- meson setup/test build-tsan: a ThreadSanitizer build takes minutes;
  scripts/sanitize builds and runs it in CI.
- scripts/lab fleet without --dry-run: --dry-run added (submitting needs a
  Slurm cluster; the fleet's own test runs a one-node one); off a login
  node, a minimal slurm.conf lets scontrol expand --nodelist host lists.
The compare.py command gets a/ and b/results.json from two quick runs.
Last, the catalogue table must name only families `bouncelab list` names,
and every one whose file is committed.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

readme, build, source = sys.argv[1:4]
text = open(readme, encoding="utf-8").read()
blocks = re.findall(r"^```sh\n(.*?)^```", text, re.M | re.S)
commands = []
for block in blocks:
    joined = re.sub(r"\\\n\s*", " ", block)
    for line in joined.splitlines():
        line = re.sub(r"\s+#\s.*$", "", line).strip()
        if line and not line.startswith("#"):
            commands.append(line)

QUICK_RUN = " --quick --threads 1 --filter '^has_pinned/nop$'"
RULES = [
    (r"^scripts/lab test\b", None, "this test runs inside scripts/lab test: running it would recurse"),
    (r"^meson (setup|test)\b.*build-tsan", None,
     "a ThreadSanitizer build takes minutes; scripts/sanitize builds and runs it in CI"),
]


def adapt(cmd):
    """(command to run, or None to leave out; why it differs from the README)."""
    for pattern, _, why in RULES:
        if re.search(pattern, cmd):
            return None, why
    why = []
    if re.match(r"^scripts/lab run\b", cmd):
        cmd += QUICK_RUN
        why.append("quick settings: the default suite takes a minute")
    if "--repetitions 9" in cmd:
        cmd = cmd.replace("--repetitions 9", "--repetitions 3")
        why.append("3 repetitions instead of 9")
    if "already_set=0,25,50,75,90,100" in cmd:
        cmd = cmd.replace("already_set=0,25,50,75,90,100", "already_set=0,100") + " --quick"
        why.append("two points of the sweep, --quick")
    if re.match(r"^scripts/lab fleet\b", cmd) and "--dry-run" not in cmd:
        cmd += " --dry-run"
        why.append("--dry-run: submitting needs a Slurm cluster")
    m = re.match(r"^(sudo )?apt-get install (.*)$", cmd)
    if m:
        pkgs = [p for p in shlex.split(m.group(2)) if not p.startswith("-")]
        cmd = " && ".join("dpkg-query -W -f='${Status}\\n' %s | grep -q 'install ok installed'" %
                          shlex.quote(p) for p in pkgs)
        why.append("checks the packages are installed instead of installing them")
    return cmd, "; ".join(why)


work = tempfile.mkdtemp(prefix="bouncelab-readme.")
os.symlink(os.path.abspath(build), os.path.join(work, "build"))
os.symlink(os.path.join(os.path.abspath(source), "scripts"), os.path.join(work, "scripts"))
env = dict(os.environ, PATH=os.environ.get("PATH", ""))
# scontrol expands a --nodelist host list only with a cluster's
# configuration; off a login node, a minimal one stands in.
if not env.get("SLURM_CONF") and not os.path.exists("/etc/slurm/slurm.conf"):
    conf = os.path.join(work, "slurm.conf")
    with open(conf, "w") as fp:
        fp.write("ClusterName=readme\nSlurmctldHost=localhost\n"
                 "NodeName=localhost CPUs=1 State=UNKNOWN\nPartitionName=compute Nodes=localhost Default=YES\n")
    env["SLURM_CONF"] = conf
    print("SLURM_CONF: a minimal configuration, so that scontrol can expand host lists")
# compare.py's inputs: two quick runs of the same case.
for d in ("a", "b"):
    subprocess.run(["build/bouncelab", "run", "--quick", "--threads", "1", "--filter", "^has_pinned/nop$",
                    "--out", "%s/results.json" % d], cwd=work, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

failures = ran = 0
for cmd in commands:
    run, why = adapt(cmd)
    if run is None:
        print("LEFT OUT: %s (%s)" % (cmd, why))
        continue
    if why:
        print("CHANGED: %s -> %s (%s)" % (cmd, run, why))
    r = subprocess.run(["bash", "-c", "set -o pipefail; " + run], cwd=work, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    ran += 1
    if r.returncode:
        failures += 1
        print("FAIL (exit %d): %s\n%s" % (r.returncode, run, r.stdout.decode(errors="replace")[-2000:]))
    else:
        print("ok: %s" % run)
subprocess.run(["rm", "-rf", work])
print("%d README commands run, %d failed" % (ran, failures))

# The catalogue table names only families `bouncelab list` knows, and every
# one the tree has committed; a family file not yet committed (one being
# written, e.g. by scripts/new-family) may wait for its row.
section = re.search(r"^## The catalogue\n(.*?)^## ", text, re.M | re.S)
table = set(re.findall(r"^\| `(\w+)` \|", section.group(1), re.M)) if section else set()
listed = subprocess.run([os.path.join(build, "bouncelab"), "list"], capture_output=True,
                        text=True, check=True).stdout
families = set(re.findall(r"^(\w+): ", listed, re.M))
top = os.path.dirname(os.path.abspath(readme))
tracked = subprocess.run(["git", "-C", top, "ls-files", "kernels"], capture_output=True, text=True)
committed = {f for f in families if tracked.returncode != 0 or
             ("kernels/%s.c" % f) in tracked.stdout.split() or f == "gup"}
if not families or not table <= families or not committed <= table:
    failures += 1
    print("FAIL: the README's catalogue table has %s; bouncelab list has %s, of them committed %s" %
          (sorted(table), sorted(families), sorted(committed)))
else:
    print("ok: the README's catalogue table names the %d committed families of bouncelab list%s" %
          (len(committed), "" if committed == families else
           " (not yet: %s)" % ", ".join(sorted(families - committed))))
if ran == 0:
    print("FAIL: no sh block found in %s" % readme)
    sys.exit(1)
sys.exit(1 if failures else 0)
