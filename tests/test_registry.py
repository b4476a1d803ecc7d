#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""
Every family the build compiles is in the catalogue, once.

A family registers itself (KERNEL_FAMILY_REGISTER, a linker section); a
file the linker dropped, or one registered twice, would leave the suite
without it or with it twice while every test of the others passes. The
names the build compiles are read from kernels/meson.build's families
list (and kernels/gup/), the catalogue's from `bouncelab list`.

usage: test_registry.py BOUNCELAB SOURCE_ROOT
"""
import re
import subprocess
import sys


def main():
    bouncelab, root = sys.argv[1], sys.argv[2]
    with open(root + "/kernels/meson.build") as f:
        m = re.search(r"^families = \[\n(.*?)^\]", f.read(), re.M | re.S)
    built = re.findall(r"'(\w+)'", m.group(1)) + ["gup"]
    listed = subprocess.run([bouncelab, "list"], capture_output=True, text=True,
                            check=True).stdout
    names = re.findall(r"^(\w+): ", listed, re.M)
    failures = 0
    for name in sorted(set(built) | set(names)):
        if names.count(name) != 1 or name not in built:
            failures += 1
            print("FAIL: %s is in the catalogue %d times and %s built" %
                  (name, names.count(name), "is" if name in built else "is not"))
    if not failures:
        print("ok: the %d families built are the catalogue's, each once" % len(built))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
