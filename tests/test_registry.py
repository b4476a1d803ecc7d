#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""
Every family the build compiles is in the catalogue, once, in the order
the suite and the report present them.

A family registers itself (KERNEL_FAMILY_REGISTER, a linker section); a
file the linker dropped, or one registered twice, would leave the suite
without it or with it twice while every test of the others passes. The
names the build compiles are the family files kernels/list_families.py
finds (the build's own rule, and kernels/gup/), the catalogue's from
`bouncelab list`. The
linker gathers the families in link order (gup, in kernels/gup/, last);
the catalogue must be in reading_order, read here from each family's
source, with the families that set none after the others, by name.

usage: test_registry.py BOUNCELAB SOURCE_ROOT
"""
import os
import re
import subprocess
import sys
import group_kill  # noqa: F401 (a timed-out test takes its children with it)


def reading_order(root, name):
    """The family's .reading_order as its source writes it; 0 if none."""
    path = os.path.join(root, "kernels", "gup", "gup_family.c") if name == "gup" \
        else os.path.join(root, "kernels", name + ".c")
    with open(path) as f:
        m = re.search(r"^\t\.reading_order = (\d+),$", f.read(), re.M)
    return int(m.group(1)) if m else 0


def main():
    bouncelab, root = sys.argv[1], sys.argv[2]
    sys.path.insert(0, os.path.join(root, "kernels"))
    from list_families import families
    built = families(os.path.join(root, "kernels")) + ["gup"]
    listed = subprocess.run([bouncelab, "list"], capture_output=True, text=True,
                            check=True).stdout
    names = re.findall(r"^(\w+): ", listed, re.M)
    failures = 0
    for name in sorted(set(built) | set(names)):
        if names.count(name) != 1 or name not in built:
            failures += 1
            print("FAIL: %s is in the catalogue %d times and %s built%s" %
                  (name, names.count(name), "is" if name in built else "is not",
                   " (a family file added since meson configured: meson setup "
                   "--reconfigure build)" if name in built and name not in names else ""))
    if not failures:
        print("ok: the %d families built are the catalogue's, each once" % len(built))
        ranks = {name: reading_order(root, name) or float("inf") for name in built}
        want = sorted(built, key=lambda name: (ranks[name], name))
        if names != want:
            failures += 1
            print("FAIL: the catalogue's order is %s, expected %s" % (names, want))
        else:
            print("ok: in reading order: %s" % " ".join(names))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
