#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The man page says what --help says.

  test_manpage.py BOUNCELAB BOUNCELAB.1

man-db renders the page (as a reader's `man` does, in a UTF-8 locale, with
groff's warnings on: there must be none). Then, read from the program
itself and not from the page's source:

- every command `bouncelab --help` lists is in the page's COMMANDS, with
  a section of its own;
- each command's section holds, word for word and in order, the text of
  `bouncelab COMMAND --help` (less its "usage:"), so every option and
  every line of its description is there: an option line, a description's
  continuation or a paragraph that help2doc.py drops, or text it puts in
  the wrong command's section, fails;
- every option the top-level --help lists is on the page.

Skipped (77) without man or groff.
"""
import os
import re
import shutil
import subprocess
import sys
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

bouncelab, page = sys.argv[1], sys.argv[2]
if not shutil.which("man") or not shutil.which("groff"):
    print("SKIP: no man or groff here (Debian: man-db, groff-base)")
    sys.exit(77)

problems = []


def problem(msg):
    problems.append(msg)
    print("FAIL:", msg)


def run(*args):
    return subprocess.run([bouncelab, *args], capture_output=True, text=True,
                          check=True).stdout


env = dict(os.environ, LC_ALL="C.UTF-8", MANWIDTH="100", MAN_KEEP_FORMATTING="",
           MANPAGER="cat", PAGER="cat")
done = subprocess.run(["man", "--warnings", "-l", page], capture_output=True, text=True,
                      env=env, check=False)
if done.returncode or done.stderr.strip():
    problem(f"man -l exited {done.returncode}: {done.stderr.strip()}")
# man-db prints bold and underline as overstrikes only to a terminal;
# drop any that remain
text = re.sub(".\b", "", done.stdout)

top = run("--help")
commands = []
lines = top.splitlines()
start = lines.index("Commands:") + 1
for line in lines[start:]:
    if not line.startswith("  "):
        break
    commands.append(line.split()[0])
if len(commands) < 8:
    problem(f"bouncelab --help lists {len(commands)} commands, expected at least 8")

# The page's sections: headings at the margin, subsections indented 3.
sections, name = {}, None
for line in text.splitlines():
    m = re.match(r"^(?:([A-Z][A-Z ]+)|   (bouncelab \w+))$", line)
    if m:
        name = m.group(1) or m.group(2)
        sections[name] = []
    elif name:
        sections[name].append(line)

listed = " ".join(sections.get("COMMANDS", [])).split()
for c in commands:
    if c not in listed:
        problem(f"COMMANDS does not name '{c}'")
    if f"bouncelab {c}" not in sections:
        problem(f"no section 'bouncelab {c}' (sections: {sorted(sections)})")
        continue
    want = run(c, "--help").split()
    if want and want[0] == "usage:":
        want = want[1:]
    got = " ".join(sections[f"bouncelab {c}"]).split()
    if got != want:
        at = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        problem(f"'{c}': the page's words differ from --help's at word {at}: "
                f"page {got[at:at + 6]}, --help {want[at:at + 6]}")

# the top-level options, by a parse of the help's text alone
for opt in sorted(set(re.findall(r"(?<![\w./-])(--?[A-Za-z][A-Za-z0-9-]*)", top))):
    if not re.search(r"(?<![\w-])" + re.escape(opt) + r"(?![\w-])", text):
        problem(f"the page lacks '{opt}', which bouncelab --help lists")

if problems:
    sys.exit(1)
print(f"ok: the man page names {len(commands)} commands and holds each --help")
