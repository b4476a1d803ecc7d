#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""
Checks the compiled timed loops of the kernels against the instructions
each variant declares beside itself (kernel.h, struct insn_rule): a
variant's loop must hold the instructions its lesson names (a plain store
of the flag, a lock-prefixed RMW, lock bts, cmpxchg, the two seqcount
loads, the call to the pageblock lookup), and must not hold the ones it
declares absent. A compiler (or a careless edit) that hoists, merges or
drops the operation fails here even when verify cannot tell. The rules
are the catalogue's, printed by tests/insn_decls.c; this file only knows
what each instruction class looks like on x86-64.

usage: check_disasm.py OBJDUMP INSN_DECLS [--expect-undeclared FAMILY/VARIANT]

INSN_DECLS is the program that prints the declarations; its own code is
what gets disassembled. With --expect-undeclared the program prints that
variant with its declarations cleared, and the check passes only if it
fails on exactly that variant, naming what to add.

Exit 0: every rule holds; 1: a rule failed (or a variant declares none);
77: the program is not x86-64 (the classes are spelt for x86-64 only).

"In a loop" means inside the range [target, jump] of a backward jump of
the function, or of a function it calls or tail-calls (a static helper,
a .constprop clone, the model's walker) where that call itself sits in a
loop. Calls are followed, so the check holds whether the compiler inlined
a helper (-O3) or called it (-O2, debugoptimized). An absent instruction
is looked for only in code the variant does not share with a variant of
its family that declares it present: at -O2 no_check and second_pass
call one walker whose CMA lookup only runs for the latter, and no
disassembly can tell which path a shared function takes.
"""
import os
import re
import subprocess
import sys
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

# What each class looks like in objdump's AT&T text (mnemonic and operands).
PATTERNS = {
    "store_one": r"^movl\s+\$0x1,\S*\(",            # atomic_set(.., 1): a plain store
    "lock_or": r"^lock\s+or[bwlq]?\s",               # set_bit(), SetPageReferenced()
    "lock_bts": r"^lock\s+bts[wlq]?\s",              # test_and_set_bit() using the old bit
    "lock_add": r"^lock\s+(add|inc|xadd)[bwlq]?\s",  # atomic_inc/add, page_ref_add()
    "lock_sub": r"^lock\s+(sub|dec|xadd|add)[bwlq]?\s",  # put_page(): a decrement
    "cmpxchg": r"^lock\s+cmpxchg[bwlq]?\s",          # add-unless-zero, cmpxchg()
    "lock_long_add": r"^lock\s+addq?\s+%r(?:[a-z]{2}|\d{1,2}),",  # atomic_long_add()
    # xchg() with memory: implicitly locked (xchg %ax,%ax is a 2-byte nop)
    "xchg": r"^xchg[bwlq]?\s.*\(",
    "locked": r"^(lock\s|xchg[bwlq]?\s.*\()",       # any locked RMW
}
# Classes matched by code below rather than by one instruction.
STRUCTURAL = {"seq_pair", "store_seq_pin_seq", "plain_inc", "plain_store", "call"}

HEADER = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
INSN = re.compile(r"^\s*([0-9a-f]+):\s+(.*?)\s*$")
JUMP = re.compile(r"^(j[a-z]+|loop\w*)\s+([0-9a-f]+)\s+<([^>+]+)")
CALL = re.compile(r"^call\s+([0-9a-f]+)\s+<([^>+]+)>")
# a tail call: a jump to the start of another function
TAIL_CALL = re.compile(r"^jmp\s+([0-9a-f]+)\s+<([^>+]+)>$")
MEM = r"(\S*\(%\w+(?:,%\w+)?(?:,\d)?\))"
LOAD32 = re.compile(r"^mov\s+" + MEM + r",(%e\w+|%r\d+d)$")
LOAD64 = re.compile(r"^mov\s+" + MEM + r",(%r\w+)$")
STORE = re.compile(r"^mov[bwlq]?\s+(%\w+)," + MEM + "$")
STACK = re.compile(r"\(%[re]?(sp|bp)[),]")

UNDECLARED = "declares no instructions"


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def read_declarations(program, extra):
    """(main's address, [variant dict]) as the program prints them."""
    out = run([program] + extra)
    if out.returncode:
        print(f"FAIL: {program} {' '.join(extra)}: status {out.returncode}: "
              f"{out.stderr.strip()}")
        sys.exit(1)
    main, variants = None, []
    for line in out.stdout.splitlines():
        f = line.split("\t")
        if f[0] == "main":
            main = int(f[1], 16)
        elif f[0] == "variant":
            variants.append({"family": f[1], "name": f[2], "run": int(f[3], 16),
                             "rules": []})
        elif f[0] == "rule":
            variants[-1]["rules"].append({
                "insn": f[3], "where": f[4],
                "function": None if f[5] == "-" else f[5],
                "callee": None if f[6] == "-" else f[6], "what": f[7]})
    return main, variants


def disassemble(objdump, path):
    """({address: (name, [(addr, text)])}, architectures seen)."""
    out = run([objdump, "-d", "--no-show-raw-insn", path])
    if out.returncode:
        print(f"skip: {objdump} -d {path} failed: {out.stderr.strip()[:200]}")
        sys.exit(77)
    funcs, arch, cur = {}, set(), None
    for line in out.stdout.splitlines():
        m = re.search(r"file format (\S+)", line)
        if m:
            arch.add(m.group(1))
            continue
        m = HEADER.match(line)
        if m:
            cur = int(m.group(1), 16)
            funcs[cur] = (m.group(2), [])
            continue
        m = INSN.match(line)
        if m and cur is not None:
            text = re.sub(r"\s+#.*$", "", m.group(2))
            funcs[cur][1].append((int(m.group(1), 16), text))
    return funcs, arch


def loop_ranges(insns):
    """Backward jumps within the function: a jump to a .cold part is no loop."""
    ranges = []
    start = insns[0][0] if insns else 0
    for addr, text in insns:
        m = JUMP.match(text)
        if m and start <= int(m.group(2), 16) <= addr:
            ranges.append((int(m.group(2), 16), addr))
    return ranges


def in_loop(addr, ranges):
    return any(lo <= addr <= hi for lo, hi in ranges)


def closure(funcs, root):
    """[(function address, called in a loop)] for root and what it calls."""
    seen, todo, result = {root}, [(root, False)], []
    while todo:
        fn, called_in_loop = todo.pop()
        insns = funcs[fn][1]
        ranges = loop_ranges(insns)
        result.append((fn, called_in_loop))
        for addr, text in insns:
            m = CALL.match(text) or TAIL_CALL.match(text)
            if not m:
                continue
            target = int(m.group(1), 16)
            if target in funcs and target not in seen and "@" not in funcs[target][0]:
                seen.add(target)
                todo.append((target, called_in_loop or in_loop(addr, ranges)))
    return result


def matches(rule, insns, need_loop, loop_context):
    """Addresses where the rule's class shows (in a loop, if asked)."""
    kind = rule["insn"]
    ranges = loop_ranges(insns)

    def ok(addr):
        return not need_loop or loop_context or in_loop(addr, ranges)

    if kind == "seq_pair":
        seen = {}
        for addr, text in insns:
            m = LOAD32.match(text)
            if m and ok(addr):
                seen.setdefault(m.group(1), []).append(addr)
        return [a[0] for a in seen.values() if len(a) >= 2]
    if kind == "store_seq_pin_seq":
        hits = []
        for lo, hi in ranges if not loop_context else [(0, float("inf"))]:
            hits += store_seq_pin_seq([(a, t) for a, t in insns if lo <= a <= hi])
        return hits
    if kind == "plain_inc":
        loads, hits = {}, []
        for addr, text in insns:
            m = LOAD64.match(text)
            if m and ok(addr):
                loads[m.group(1)] = addr
            m = STORE.match(text)
            if m and ok(addr) and m.group(2) in loads:
                hits.append(addr)
        return hits
    if kind == "plain_store":
        return [addr for addr, text in insns
                if STORE.match(text) and not STACK.search(text) and ok(addr)]
    if kind == "call":
        callee = re.compile(r"^(call|jmp)\s+[0-9a-f]+\s+<" + re.escape(rule["callee"])
                            + r"(\.\w+)*>$")
        return [addr for addr, text in insns if callee.match(text) and ok(addr)]
    return [addr for addr, text in insns if re.search(PATTERNS[kind], text) and ok(addr)]


def store_seq_pin_seq(body):
    """Addresses of flag stores followed, in body's order, by load X, lock add, load X."""
    hits = []
    for i, (addr, text) in enumerate(body):
        if not re.search(PATTERNS["store_one"], text):
            continue
        first, pinned = {}, set()
        for _, later in body[i + 1:]:
            m = LOAD32.match(later)
            if m:
                if m.group(1) in pinned:
                    hits.append(addr)
                    break
                first.setdefault(m.group(1), True)
            elif re.search(PATTERNS["lock_add"], later):
                pinned |= set(first)
    return hits


def root_of(rule, variant, by_name, bias):
    """The function a rule looks in, or a message saying why there is none."""
    if rule["function"]:
        found = by_name.get(rule["function"], [])
        if len(found) != 1:
            return None, (f"{len(found)} functions named {rule['function']} "
                          "(inlined away, renamed, or static in two files?)")
        return found[0], None
    return variant["run"] - bias, None


def check(funcs, main, variants):
    by_name = {}
    for addr, (name, _) in funcs.items():
        by_name.setdefault(name, []).append(addr)
    if len(by_name.get("main", [])) != 1:
        return ["no main() in the disassembly"], 0
    bias = main - by_name["main"][0]

    # The functions reached by the variants that declare each class present.
    present_in = {}
    for v in variants:
        for r in v["rules"]:
            root, _ = root_of(r, v, by_name, bias)
            if r["where"] in ("in_loop", "anywhere") and root in funcs:
                key = (v["family"], r["insn"], r["callee"])
                present_in.setdefault(key, set()).update(
                    fn for fn, _ in closure(funcs, root))

    failures, checked = [], 0
    for v in variants:
        name = f"{v['family']}/{v['name']}"
        if not v["rules"]:
            failures.append(
                f"{name} {UNDECLARED}: add .instructions = {{ INSN_HAS(INSN_..., \"what "
                f"its lesson names\"), INSN_LACKS(...) }} beside it in the family's file "
                f"(kernel.h, enum insn_class)")
            continue
        if v["run"] - bias not in funcs:
            failures.append(f"{name}: its run function is not in the disassembly")
            continue
        for r in v["rules"]:
            checked += 1
            root, why_not = root_of(r, v, by_name, bias)
            where = f" of {r['function']}" if r["function"] else ""
            if root is None:
                failures.append(f"{name}: {why_not}")
                continue
            if r["insn"] not in PATTERNS and r["insn"] not in STRUCTURAL:
                failures.append(f"{name}: no x86-64 pattern for class {r['insn']}")
                continue
            present = r["where"] in ("in_loop", "anywhere")
            need_loop = r["where"] in ("in_loop", "not_in_loop")
            shared = set() if present else \
                present_in.get((v["family"], r["insn"], r["callee"]), set()) - {root}
            found = []
            for fn, called_in_loop in closure(funcs, root):
                if fn in shared:
                    continue
                found += [(funcs[fn][0], a, fn) for a in
                          matches(r, funcs[fn][1], need_loop, called_in_loop)]
            label = r["insn"] + (f" {r['callee']}" if r["callee"] else "")
            loop = " in a loop" if need_loop else ""
            if present and not found:
                failures.append(f"{name}: no {label}{loop}{where}: {r['what']}")
            elif not present and found:
                failures.append(f"{name}: has {label}{loop}{where} at "
                                f"{found[0][0]}+{found[0][1] - found[0][2]:#x}: {r['what']}")
    return failures, checked


def main():
    args = sys.argv[1:]
    expect = None
    if len(args) == 4 and args[2] == "--expect-undeclared":
        expect = args[3]
        args = args[:2]
    if len(args) != 2:
        print("usage: check_disasm.py OBJDUMP INSN_DECLS [--expect-undeclared FAMILY/VARIANT]",
              file=sys.stderr)
        return 2
    objdump, program = args
    funcs, arch = disassemble(objdump, program)
    if arch != {"elf64-x86-64"}:
        print(f"skip: the instruction classes are spelt for x86-64 only; "
              f"{program} is {sorted(arch)}")
        return 77
    # Inlining shapes the patterns (the flag store, the seqcount reads and
    # the pins in one loop): they hold at -O2 (debugoptimized) and -O3
    # (release, the build the suite times); -O0, -O1 and -Os split them
    # over calls in ways a pattern cannot follow.
    level = os.environ.get("BOUNCELAB_OPTIMIZATION", "3")
    if level not in ("2", "3"):
        print(f"skip: the classes are matched at -O2 and -O3; this build is "
              f"optimization={level} (meson setup --buildtype=release or debugoptimized)")
        return 77
    main_addr, variants = read_declarations(program, ["--clear", expect] if expect else [])
    if not variants:
        print(f"FAIL: {program} printed no variants: is the catalogue linked whole?")
        return 1
    failures, checked = check(funcs, main_addr, variants)
    for f in failures:
        print("FAIL:", f)
    print(f"{checked - len(failures)} of {checked} instruction rules hold "
          f"over {len(variants)} variants")
    if expect:
        wanted = [f for f in failures if f.startswith(f"{expect} {UNDECLARED}")]
        if wanted and len(failures) == 1:
            print(f"as expected: a variant without declarations fails, naming {expect}")
            return 0
        print(f"FAIL: with {expect}'s declarations cleared the check should fail on it "
              f"alone, saying what to add")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
