#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The man page and the bash completion, made from the program's own --help.

    help2doc.py man BOUNCELAB OUT.1
    help2doc.py bash BOUNCELAB OUT

Both are built from what `bouncelab --help` and `bouncelab COMMAND --help`
print, so that neither can say something the program does not: a new
command or option appears in them at the next build. The help texts keep
one layout, which is all this reads: a "usage:" line (and lines under it
that start with "bouncelab"), paragraphs, option lines that start with two
spaces and a dash, their descriptions indented under them, and headings
that end with a colon.
"""

import re
import subprocess
import sys

OPTION = re.compile(r"^  (-\S.*?)(?: {2,}(\S.*))?$")
# "--out FILE", "-o, --output DIR": the option words, then what they take
OPTION_WORD = re.compile(r"^--?[A-Za-z0-9][\w-]*$")


def help_text(bouncelab, *args):
    done = subprocess.run([bouncelab, *args, "--help"], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0 or not done.stdout.startswith("usage: "):
        sys.exit(f"help2doc: '{bouncelab} {' '.join(args)} --help' exited {done.returncode}: "
                 "expected a help text that starts with 'usage: '")
    return done.stdout


def commands_of(top_help):
    """[(name, summary)] from the "Commands:" block of bouncelab --help."""
    out, inside = [], False
    for line in top_help.splitlines():
        if line == "Commands:":
            inside = True
        elif inside and line.startswith("  "):
            name, summary = line.strip().split(None, 1)
            out.append((name, summary))
        elif inside:
            break
    if not out:
        sys.exit("help2doc: 'bouncelab --help' lists no commands under 'Commands:'")
    return out


def parse(text):
    """The help as blocks: ("usage", [lines]), ("para", [lines]),
    ("heading", text), ("literal", [lines]), ("option", spec, [description])."""
    lines = text.rstrip("\n").splitlines()
    blocks = []
    usage = [lines[0][len("usage: "):]]
    i = 1
    while i < len(lines) and lines[i].strip().startswith("bouncelab "):
        usage.append(lines[i].strip())
        i += 1
    blocks.append(("usage", usage))
    while i < len(lines):
        line = lines[i]
        m = OPTION.match(line)
        if not line.strip():
            i += 1
        elif m:
            spec, desc = m.group(1).rstrip(), [m.group(2)] if m.group(2) else []
            i += 1
            # the description's further lines sit under it, indented more
            while i < len(lines) and lines[i].startswith("    ") and not OPTION.match(lines[i]):
                desc.append(lines[i].strip())
                i += 1
            blocks.append(("option", spec, desc))
        elif line.startswith("  "):
            literal = []
            while i < len(lines) and lines[i].startswith("  ") and not OPTION.match(lines[i]):
                literal.append(lines[i].strip())
                i += 1
            blocks.append(("literal", literal))
        elif line.endswith(":") and (i + 1 == len(lines) or lines[i + 1].startswith("  ")):
            blocks.append(("heading", line))
            i += 1
        else:
            para = []
            while i < len(lines) and lines[i].strip() and not lines[i].startswith("  "):
                para.append(lines[i])
                i += 1
            blocks.append(("para", para))
    return blocks


def option_words(spec):
    """[(option, takes_value, value name)] of an option line's spec or a usage line."""
    # brackets kept as words: "[--json] [FAMILY...]" closes --json's group
    # before FAMILY, which is then no value of it
    words = spec.replace("[", " [ ").replace("]", " ] ").split()
    out = []
    for k, w in enumerate(words):
        w = w.rstrip(",")
        if not OPTION_WORD.match(w):
            continue
        # a value: "FILE", "N", "local|remote"; not "-T" of "-t, -T" nor "|"
        nxt = words[k + 1] if k + 1 < len(words) and not words[k].endswith(",") else ""
        takes = bool(nxt) and not nxt.startswith(("-", "|", "[", "]")) and \
            (nxt[0].isupper() or "|" in nxt)
        out.append((w, takes, nxt if takes else ""))
    return out


def command_options(blocks):
    """{option: value name or ""} of one command's help, usage lines included."""
    found = {}
    for b in blocks:
        specs = b[1] if b[0] == "usage" else [b[1]] if b[0] == "option" else []
        for spec in specs:
            for w, takes, value in option_words(spec):
                if w not in found or takes:
                    found[w] = value if takes else ""
    return found


# roff -------------------------------------------------------------------

def roff_text(s):
    s = s.replace("\\", "\\e")
    # dashes of options and ranges: ASCII hyphen-minus in every output
    s = s.replace("-", "\\-")
    if s.startswith((".", "'")):
        s = "\\&" + s
    return s


def roff_spec(spec):
    parts = []
    for w in spec.split(" "):
        core = w.rstrip(",")
        tail = w[len(core):]
        font = "B" if OPTION_WORD.match(core) else "I"
        parts.append(f"\\f{font}{roff_text(core)}\\fR{tail}" if core else w)
    return " ".join(parts)


def roff_blocks(blocks, out, command):
    for b in blocks:
        kind = b[0]
        if kind == "usage":
            out.append(".nf")
            for u in b[1]:
                words = u.split(" ", 2 if command else 1)
                head = " ".join(words[:2 if command else 1])
                rest = u[len(head):]
                out.append(f"\\fB{roff_text(head)}\\fR{roff_text(rest)}")
            out.append(".fi")
        elif kind == "para":
            out.append(".PP")
            out.extend(roff_text(line) for line in b[1])
        elif kind == "heading":
            out.append(".PP")
            out.append(f"\\fI{roff_text(b[1])}\\fR")
        elif kind == "literal":
            out.extend([".PP", ".RS", ".nf"])
            out.extend(roff_text(line) for line in b[1])
            out.extend([".fi", ".RE"])
        elif kind == "option":
            out.append(".TP")
            out.append(roff_spec(b[1]))
            out.extend(roff_text(line) for line in b[2])


def man_page(bouncelab):
    top = help_text(bouncelab)
    version = subprocess.run([bouncelab, "--version"], capture_output=True, text=True,
                             check=False).stdout.split()
    version = version[1] if len(version) > 1 else "unknown"
    out = [".\\\" Made by scripts/help2doc.py from bouncelab's --help: edit the help texts.",
           f'.TH BOUNCELAB 1 "" "bouncelab {roff_text(version)}" "User Commands"',
           # no hyphenation: an option name is never broken across lines
           ".nh", ".ad l",
           ".SH NAME", "bouncelab \\- a lab for cache\\-line contention",
           ".SH SYNOPSIS"]
    commands = commands_of(top)
    top_blocks = parse(top)
    roff_blocks(top_blocks[:1], out, None)
    out.append(".SH DESCRIPTION")
    # the "Commands:" heading and its list are the COMMANDS section below
    in_list = top_blocks.index(("heading", "Commands:")) + 1
    roff_blocks([b for k, b in enumerate(top_blocks[1:], 1) if k not in (in_list - 1, in_list)],
                out, None)
    out.append(".SH COMMANDS")
    for name, summary in commands:
        out += [".TP", f"\\fB{roff_text(name)}\\fR", roff_text(summary)]
    for name, _ in commands:
        out.append(f'.SS "bouncelab {name}"')
        roff_blocks(parse(help_text(bouncelab, name)), out, name)
    out += [".SH ENVIRONMENT", ".TP", "\\fBBOUNCELAB_DATADIR\\fR",
            "The data directory (with \\fIprofiles/\\fR in it) to read instead of the one"
            " installed beside the program.",
            ".TP", "\\fBNO_COLOR\\fR", "No colour in \\fBrun \\-\\-console\\fR's table.",
            ".SH FILES", ".TP", "\\fI/usr/share/bouncelab/profiles/\\fR",
            "The machine profiles \\fBmodel \\-\\-profile\\fR NAME and the report's seed"
            " predictions read (under the prefix it was installed with).",
            ".SH \"EXIT STATUS\"",
            "0 done; 1 failed at run time; 2 bad usage or input (nothing run or written);"
            " 3 a run finished with some repetitions failed; 128 + N stopped by signal N.",
            ".SH \"SEE ALSO\"", "\\fBgup_test\\fR (tools/testing/selftests/mm in Linux),"
            " \\fBlstopo\\fR(1)"]
    return "\n".join(out) + "\n"


# bash -------------------------------------------------------------------

# Options whose value is a path: file names complete after them.
PATH_VALUE = re.compile(r"FILE|DIR|\.json")


def bash_words(words):
    return " ".join(sorted(words))


def completion(bouncelab):
    top = help_text(bouncelab)
    commands = commands_of(top)
    top_options = command_options(parse(top))
    out = ["# bash completion for bouncelab: made by scripts/help2doc.py from",
           "# bouncelab's --help texts at build time (edit those, not this).",
           "_bouncelab()", "{",
           "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}",
           "\tlocal options='' valued='' paths=''", "",
           "\tCOMPREPLY=()",
           "\tif [ \"$COMP_CWORD\" -eq 1 ]; then",
           f"\t\tCOMPREPLY=($(compgen -W '{bash_words([c for c, _ in commands] + list(top_options))}'"
           " -- \"$cur\"))",
           "\t\treturn 0", "\tfi",
           "\tcase ${COMP_WORDS[1]} in"]
    for name, _ in commands:
        opts = command_options(parse(help_text(bouncelab, name)))
        valued = [o for o, v in opts.items() if v]
        paths = [o for o, v in opts.items() if v and PATH_VALUE.search(v)]
        out += [f"\t{name})",
                f"\t\toptions='{bash_words(opts)}'",
                f"\t\tvalued='{bash_words(valued)}'",
                f"\t\tpaths='{bash_words(paths)}'",
                "\t\t;;"]
    out += ["\t*) return 0 ;;", "\tesac",
            "\t# after an option that takes a value: a path, or nothing to offer",
            "\tif [[ \" $valued \" == *\" $prev \"* ]]; then",
            "\t\t[[ \" $paths \" == *\" $prev \"* ]] && COMPREPLY=($(compgen -f -- \"$cur\"))",
            "\t\treturn 0", "\tfi",
            "\tif [[ $cur == -* ]]; then",
            "\t\tCOMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))",
            "\telse",
            "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))",
            "\tfi", "\treturn 0", "}",
            "complete -o filenames -F _bouncelab bouncelab"]
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("man", "bash"):
        sys.exit("usage: help2doc.py man|bash BOUNCELAB OUT")
    text = man_page(sys.argv[2]) if sys.argv[1] == "man" else completion(sys.argv[2])
    with open(sys.argv[3], "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
