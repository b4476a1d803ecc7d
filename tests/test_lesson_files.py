#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""
kernels/lessons/gen_lessons.py: a lesson file becomes the C strings it
says, and a bad one stops the build naming its file and line.

The strings are read back by the C compiler (a program that prints the
generated macros), against texts written out here by hand: the generator's
joining and escaping are checked by a reader that shares none of its code.

usage: test_lesson_files.py GEN_LESSONS CC...
"""
import os
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

GOOD = """# demo

## lesson

A "quoted" word, a back\\slash and (two marks??)
joined with spaces: {ratio:a_1/b@2} and {ns:a_1@16:update=locked,pin_work=0}.

A second paragraph.

## one-line

One line.

## exercise

Predict.

## command

```sh
bouncelab run --filter '^demo/' --out d.json
```

## reading

Read it.

## source

seed 042

## after

```c
if (!x)
\tx = 1;
```

## before

```c
x = 1;
```
"""

# What the C compiler must read back: written out, not computed.
EXPECTED = {
    "LESSON": 'A "quoted" word, a back\\slash and (two marks??) joined with spaces: '
              '{ratio:a_1/b@2} and {ns:a_1@16:update=locked,pin_work=0}.\n\nA second paragraph.',
    "LESSON_LINE": "One line.",
    "LESSON_EXERCISE_QUESTION": "Predict.",
    "LESSON_EXERCISE_COMMAND": "bouncelab run --filter '^demo/' --out d.json",
    "LESSON_EXERCISE_READING": "Read it.",
    "LESSON_SOURCE": "seed 042",
    "LESSON_BEFORE": "x = 1;",
    "LESSON_AFTER": "if (!x)\n\tx = 1;",
}

# (what is wrong, edit of GOOD, the line the message must name, words it must say)
BAD = [
    ("a misspelt placeholder", ("{ns:a_1@16:", "{ns:a_1:16:"), 6, "unknown placeholder"),
    ("a placeholder of no known kind", ("{ratio:a_1/b@2}", "{pct:a_1@2}"), 6,
     "unknown placeholder '{pct:a_1@2}'"),
    ("a placeholder without its threads", ("{ratio:a_1/b@2}", "{ratio:a_1/b}"), 6,
     "unknown placeholder"),
    ("a placeholder at 0 threads", ("{ratio:a_1/b@2}", "{ratio:a_1/b@0}"), 6,
     "unknown placeholder"),
    ("a variant named in capitals", ("{ratio:a_1/b@2}", "{ratio:A_1/b@2}"), 6,
     "unknown placeholder"),
    ("a missing section", ("## reading\n\nRead it.\n\n", ""), 39, "no '## reading' section"),
    ("an unknown section", ("## one-line", "## oneline"), 10, "unknown section 'oneline'"),
    ("a section twice", ("## after", "## lesson"), 32, "section 'lesson' again"),
    ("an unclosed code block", ("\nx = 1;\n```\n", "\nx = 1;\n"), 41, "not closed"),
    ("prose where code belongs", ("```c\nx = 1;\n```", "x = 1;"), 41, "fenced code block"),
    ("another family's name", ("# demo", "# other"), 1, "'# demo'"),
    ("a character beyond ASCII", ("Read it.", "Read it\u2026"), 26, "printable ASCII"),
]


def generate(gen, outdir, text):
    md = os.path.join(outdir, "demo.md")
    with open(md, "w", encoding="utf-8") as f:
        f.write(text)
    return md, subprocess.run([sys.executable, gen, outdir, md], capture_output=True, text=True)


def main():
    gen, cc = sys.argv[1], sys.argv[2:]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        md, r = generate(gen, tmp, GOOD)
        if r.returncode:
            print("FAIL: the good file was refused: %s" % r.stderr)
            return 1
        prog = os.path.join(tmp, "print.c")
        with open(prog, "w") as f:
            f.write('#include <stdio.h>\n#include "demo_lesson.h"\nint main(void)\n{\n')
            for macro in EXPECTED:
                f.write('\tfputs(%s, stdout);\n\tputchar(0);\n' % macro)
            f.write("\treturn 0;\n}\n")
        exe = os.path.join(tmp, "print")
        c = subprocess.run(cc + ["-std=c11", "-pedantic", "-Werror", "-Wall", "-I", tmp, prog,
                                 "-o", exe], capture_output=True, text=True)
        if c.returncode:
            print("FAIL: the generated header does not compile:\n%s" % c.stderr)
            return 1
        got = subprocess.run([exe], capture_output=True).stdout.decode().split("\0")[:-1]
        for (macro, want), have in zip(EXPECTED.items(), got):
            if have != want:
                failures += 1
                print("FAIL: %s is %r, expected %r" % (macro, have, want))
            else:
                print("ok: %s" % macro)
        for what, (old, new), line, words in BAD:
            assert old in GOOD, what
            if os.path.exists(os.path.join(tmp, "demo_lesson.h")):
                os.unlink(os.path.join(tmp, "demo_lesson.h"))
            md, r = generate(gen, tmp, GOOD.replace(old, new, 1))
            first = r.stderr.strip().split("\n")
            want = "%s:%d: " % (md, line)
            if (r.returncode == 0 or len(first) != 1 or not first[0].startswith(want)
                    or words not in first[0]):
                failures += 1
                print("FAIL: %s: status %d, said %r; expected one line starting %r and "
                      "saying %r" % (what, r.returncode, r.stderr, want, words))
            elif os.path.exists(os.path.join(tmp, "demo_lesson.h")):
                failures += 1
                print("FAIL: %s: a header was written all the same" % what)
            else:
                print("ok: %s: %s" % (what, first[0]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
