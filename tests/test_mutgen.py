#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""scripts/mutgen.py's mutants of small C functions, written out by hand:
which tokens it mutates, into what, and which it leaves alone (unary
operators, pointer stars, array sizes, case labels, strings, comments,
what lies outside a function). A generator that silently stops mutating
a kind makes every kill rate a lie, so each kind is checked here.

usage: test_mutgen.py SOURCE_ROOT
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(sys.argv[1], "scripts"))
import mutgen  # noqa: E402

bad = []


def mutants_of(source):
    """(kind, original text, replacement) of every mutant of source."""
    with tempfile.TemporaryDirectory() as top:
        with open(os.path.join(top, "f.c"), "w") as f:
            f.write(source)
        out = []
        for m in mutgen.generate(top, ["f.c"]):
            orig = source[m["offset"]:m["offset"] + m["length"]]
            out.append((m["kind"], orig, m["into"]))
            # each mutant changes exactly the text it names
            mutated = mutgen.apply(source, m)
            if mutated == source or (not m.get("prefix") and
                                     mutated != source[:m["offset"]] + m["into"] +
                                     source[m["offset"] + m["length"]:]):
                bad.append(f"{m['title']}: not applied as named")
        return out


def expect(what, source, want, kinds=None):
    got = [m for m in mutants_of(source) if kinds is None or m[0] in kinds]
    if sorted(got) != sorted(want):
        extra = [m for m in got if m not in want]
        missing = [m for m in want if m not in got]
        bad.append(f"{what}: unexpected {extra}, missing {missing}")


def main():
    expect("relational and logical",
           "int f(int a, int b) { return a < b && a != 3; }",
           [("relational", "<", "<="), ("relational", "<", ">="),
            ("relational", "!=", "=="), ("logical", "&&", "||"),
            ("constant", "3", "4"), ("constant", "3", "2"), ("constant", "3", "6"),
            ("constant", "3", "1")])
    expect("a ratio swapped, its operands a member chain and a call",
           "double f(struct s *p, double x) { return p->a.b / g(x, 2); }",
           [("swapped", "p->a.b / g(x, 2)", "g(x, 2) / p->a.b")], {"swapped"})
    expect("a cast goes with its operand; a group is one operand",
           "double f(long n, double t) { return (double)n / (t + 1); }",
           [("swapped", "(double)n / (t + 1)", "(t + 1) / (double)n")], {"swapped"})
    expect("an index chain on the left",
           "double f(double *v, int i, double d) { return v[i + 1] / d; }",
           [("swapped", "v[i + 1] / d", "d / v[i + 1]")], {"swapped"})
    expect("no swap of a unary operand, nor of a / a",
           "double f(double a, double b) { return -a / b + a / a; }",
           [], {"swapped"})
    expect("a term dropped, its tighter neighbour kept",
           "int f(int a, int b, int c) { return a + b - c * 2; }",
           [("dropped", "+ b", "")], {"dropped"})
    expect("no term dropped from a unary minus, nor a number's, nor an array size",
           "int f(int a) { char buf[8 + a]; int b = -a; buf[0] = 0; return b + 1 + buf[0]; }",
           [("dropped", "+ buf[0]", "")], {"dropped"})
    expect("nothing outside a function, in a string, a comment or a case label",
           'static int t[2] = { 1 + 1, 2 };\n'
           'int f(int x) { switch (x) { case 3: return 0; } /* a < b */ return g("1 + 2"); }',
           [("constant", "0", "1")])
    expect("a pointer's star is no product",
           "void f(const struct s *p) { struct s *q = 0; (void)p; (void)q; }",
           [("constant", "0", "1")], {"arithmetic", "constant"})
    expect("min and max, and a median to its extremes",
           "double f(double *v, unsigned n, double a) "
           "{ return fmin(a, stats_median(v, n)); }",
           [("extreme", "fmin", "fmax"),
            ("extreme", "stats_median(v, n)", "mutant_extreme_(v, n, 0)"),
            ("extreme", "stats_median(v, n)", "mutant_extreme_(v, n, 1)")], {"extreme"})
    if bad:
        print("\n".join(bad))
        return 1
    print("every kind of mutant as written out here")
    return 0


if __name__ == "__main__":
    sys.exit(main())
