#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The families of a kernels/ directory, one name a line, sorted.

usage: list_families.py KERNELS_DIR

A family is a file NAME.c directly in KERNELS_DIR that registers itself
(a line starting KERNEL_FAMILY_REGISTER(): kernels/meson.build compiles
every such file, so adding a family is its file and its lesson and no
line elsewhere. kernels/gup/ is a directory of its own and not listed.
"""
import os
import re
import sys

REGISTERS = re.compile(r"^KERNEL_FAMILY_REGISTER\(", re.M)


def families(directory):
    names = []
    for entry in sorted(os.listdir(directory)):
        name, ext = os.path.splitext(entry)
        path = os.path.join(directory, entry)
        if ext != ".c" or not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            if REGISTERS.search(f.read()):
                names.append(name)
    return names


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: list_families.py KERNELS_DIR", file=sys.stderr)
        sys.exit(2)
    print("\n".join(families(sys.argv[1])))
