#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Turns a family's lesson file (kernels/lessons/NAME.md) into C.

Usage: gen_lessons.py OUTDIR NAME.md...

Writes OUTDIR/NAME_lesson.h for each file: one string macro per section,
which the family's file (kernels/NAME.c) puts in its struct kernel_family.
The structure is kernels/lessons/README.md's. A bad file stops the build
with one line naming the file, the line and what was expected, so that a
lesson cannot reach the report half-read.
"""
import os
import re
import sys

# heading -> (macro, kind): prose joins its lines with spaces, code is one
# fenced block taken line for line. In file order, as the README lists them.
SECTIONS = {
    "lesson": ("LESSON", "prose"),
    "one-line": ("LESSON_LINE", "prose"),
    "exercise": ("LESSON_EXERCISE_QUESTION", "prose"),
    "command": ("LESSON_EXERCISE_COMMAND", "code"),
    "reading": ("LESSON_EXERCISE_READING", "prose"),
    "source": ("LESSON_SOURCE", "prose"),
    "before": ("LESSON_BEFORE", "code"),
    "after": ("LESSON_AFTER", "code"),
}

# The placeholders report/lesson_text.c fills in from the run: its
# lesson_placeholder_parse() is the grammar, written again here only to
# refuse a misspelt one at build time instead of printing it as text.
NAME = r"[a-z0-9_]{1,63}"
PLACEHOLDER = re.compile(r"\{(?:ratio:%s/%s|ns:%s)@[1-9][0-9]*(?::[a-z0-9_=,]{1,127})?\}"
                         % (NAME, NAME, NAME))
PLACEHOLDER_FORMS = "{ratio:A/B@THREADS[:SETTING]} or {ns:A@THREADS[:SETTING]}"

# What a generated string may hold: lines of printable ASCII, tabs in code.
BAD_CHAR = re.compile(r"[^\t\x20-\x7e]")


class LessonError(Exception):
    def __init__(self, line, message):
        super().__init__(message)
        self.line = line


def check_placeholders(text, first_line):
    """Every '{' of a prose line opens a placeholder the report knows."""
    for i, line in enumerate(text, first_line):
        for m in re.finditer(r"\{", line):
            if not PLACEHOLDER.match(line, m.start()):
                bad = line[m.start():].split("}")[0] + ("}" if "}" in line[m.start():] else "")
                raise LessonError(i, "unknown placeholder '%s': expected %s"
                                  % (bad, PLACEHOLDER_FORMS))


def prose(lines, first_line):
    """Paragraph lines joined by spaces; paragraphs by a blank line."""
    check_placeholders(lines, first_line)
    paragraphs, cur = [], []
    for line in lines:
        if line.strip():
            cur.append(line.strip())
        elif cur:
            paragraphs.append(" ".join(cur))
            cur = []
    if cur:
        paragraphs.append(" ".join(cur))
    if not paragraphs:
        raise LessonError(first_line - 1, "empty section: expected text")
    return "\n\n".join(paragraphs)


def code(lines, first_line):
    """The one fenced block of the section, line for line."""
    body = [(i, l) for i, l in enumerate(lines, first_line) if l.strip()]
    if not body or not body[0][1].startswith("```"):
        where = body[0][0] if body else first_line - 1
        raise LessonError(where, "expected a fenced code block (```) and nothing else")
    start = body[0][0] - first_line
    end = next((j for j in range(start + 1, len(lines)) if lines[j].rstrip() == "```"), None)
    if end is None:
        raise LessonError(body[0][0], "code block not closed: expected a line ```")
    for j in range(end + 1, len(lines)):
        if lines[j].strip():
            raise LessonError(first_line + j,
                              "text after the code block: expected the next ## heading")
    block = lines[start + 1:end]
    if not block:
        raise LessonError(body[0][0], "empty code block: expected code")
    return "\n".join(block)


def parse(path):
    """The sections of one lesson file: {heading: text}."""
    family = os.path.basename(path)[:-len(".md")]
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or lines[0] != "# " + family:
        raise LessonError(1, "expected the first line '# %s', the family's name" % family)
    for i, line in enumerate(lines, 1):
        m = BAD_CHAR.search(line)
        if m:
            raise LessonError(i, "character %r: expected printable ASCII" % m.group())
    heads = []
    for i, line in enumerate(lines, 1):
        if line.startswith("## "):
            heads.append((i, line[3:].strip()))
        elif line.startswith("#") and i > 1 and not in_code(lines, i):
            raise LessonError(i, "heading '%s': expected '## SECTION'" % line)
    found = {}
    for k, (i, head) in enumerate(heads):
        if head not in SECTIONS:
            raise LessonError(i, "unknown section '%s': expected one of %s"
                              % (head, ", ".join(SECTIONS)))
        if head in found:
            raise LessonError(i, "section '%s' again: expected it once" % head)
        end = heads[k + 1][0] - 1 if k + 1 < len(heads) else len(lines)
        body = lines[i:end]
        kind = SECTIONS[head][1]
        found[head] = prose(body, i + 1) if kind == "prose" else code(body, i + 1)
    before_first = lines[1:heads[0][0] - 1] if heads else lines[1:]
    for j, line in enumerate(before_first, 2):
        if line.strip():
            raise LessonError(j, "text before the first section: expected '## lesson'")
    for head in SECTIONS:
        if head not in found:
            raise LessonError(len(lines), "no '## %s' section: expected all of %s"
                              % (head, ", ".join(SECTIONS)))
    return found


def in_code(lines, n):
    """Whether line n (from 1) lies inside a fenced block."""
    return sum(1 for l in lines[:n - 1] if l.startswith("```")) % 2 == 1


def c_literal(text):
    """text as C string literals of about 72 characters, cut after a space or a newline."""
    escapes = {"\\": "\\\\", '"': '\\"', "\t": "\\t", "\n": "\\n"}
    pieces, cur, prev = [], [], ""
    for ch in text:
        # "??" would start a trigraph in strict C11
        cur.append("\\?" if ch == "?" and prev == "?" else escapes.get(ch, ch))
        prev = ch
        if ch == "\n" or (ch == " " and sum(map(len, cur)) >= 64):
            pieces.append("".join(cur))
            cur = []
    if cur:
        pieces.append("".join(cur))
    return " \\\n\t".join('"%s"' % p for p in pieces) if pieces else '""'


def header(path, sections):
    family = os.path.basename(path)[:-len(".md")]
    guard = "BOUNCELAB_%s_LESSON_H" % family.upper()
    out = ["/* Generated from kernels/lessons/%s.md by kernels/lessons/gen_lessons.py:"
           " edit the .md. */" % family,
           "#ifndef " + guard, "#define " + guard, ""]
    for head, (macro, _) in SECTIONS.items():
        out.append("#define %s \\\n\t%s" % (macro, c_literal(sections[head])))
        out.append("")
    out.append("#endif")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) < 3:
        print("usage: gen_lessons.py OUTDIR NAME.md...", file=sys.stderr)
        return 2
    for path in argv[2:]:
        try:
            sections = parse(path)
        except LessonError as e:
            print("%s:%d: %s" % (path, e.line, e), file=sys.stderr)
            return 1
        except OSError as e:
            print("%s: %s" % (path, e.strerror), file=sys.stderr)
            return 1
        family = os.path.basename(path)[:-len(".md")]
        out = os.path.join(argv[1], family + "_lesson.h")
        tmp = out + ".tmp"
        with open(tmp, "w", encoding="ascii") as f:
            f.write(header(path, sections))
        os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
