#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""
Checks the compiled timed loops of the kernels: each variant's loop must
hold the instructions its lesson names (a plain store of the flag, a
lock-prefixed RMW, lock bts, cmpxchg, the two seqcount loads, the call to
the pageblock lookup), and a control must not hold the work it leaves
out. A compiler (or a careless edit) that hoists, merges or drops the
operation fails here even when verify cannot tell.

usage: check_disasm.py OBJDUMP FILE...   (a static library or objects)

Exit 0: every rule holds; 1: a rule failed; 77: the files are not x86-64
(the table covers x86-64 only), with the reason on stdout.

A rule "in a loop" means inside the range [target, jump] of a backward
jump of the function, or of a local function it calls or tail-calls (one
the compiler split off, e.g. a .constprop clone, or the static function
an entry point jumps to), where that call itself sits in a loop.
"""
import os
import re
import subprocess
import sys

# Instruction patterns, on objdump's AT&T text (mnemonic and operands).
STORE_ONE = r"^movl\s+\$0x1,\S*\("            # atomic_set(.., 1): a plain store
LOCK_OR = r"^lock\s+or[bwlq]?\s"               # set_bit(), SetPageReferenced()
LOCK_BTS = r"^lock\s+bts[wlq]?\s"              # test_and_set_bit() using the old bit
LOCK_ADD = r"^lock\s+(add|inc|xadd)[bwlq]?\s"  # atomic_inc/add, page_ref_add()
LOCK_SUB = r"^lock\s+(sub|dec|xadd|add)[bwlq]?\s"  # put_page(): a decrement
CMPXCHG = r"^lock\s+cmpxchg[bwlq]?\s"          # add-unless-zero, cmpxchg()
LONG_LOCK_ADD = r"^lock\s+addq?\s+%r(?:[a-z]{2}|\d{1,2}),"  # atomic_long_add(): a 64-bit register
XCHG = r"^xchg[bwlq]?\s"                       # xchg(): implicitly locked
PFNBLOCK_CALL = r"^call\s.*get_pfnblock_flags_mask"
SEQ_PAIR = "seq_pair"       # two 32-bit loads of one memory operand
# In one loop: the plain store of 1, then a 32-bit load, a locked add (the
# pin work) and a 32-bit load of the same operand: atomic_set(), then
# raw_read_seqcount(), the pins, read_seqcount_retry(), in that order.
STORE_SEQ_PIN_SEQ = "store_seq_pin_seq"
PLAIN_INC = "plain_inc"     # a load and an unlocked store of one operand

# object -> function -> [(kind, pattern, must be in a loop, why)]
# kind: "has" or "lacks".
RULES = {
    "has_pinned.c.o": {
        "store_always": [
            ("has", STORE_ONE, True, "atomic_set(&mm->has_pinned, 1) on every call"),
            ("has", SEQ_PAIR, True, "raw_read_seqcount() and read_seqcount_retry()"),
            ("has", LOCK_ADD, True, "the pin work's locked increments"),
            ("has", STORE_SEQ_PIN_SEQ, True,
             "each call stores the flag, reads the seqcount, pins, reads it again"),
            ("lacks", XCHG, True, "atomic_set() is a plain store, not an xchg"),
            ("lacks", LOCK_OR, True, "no locked or: the flag is stored, not set_bit()"),
            ("lacks", LOCK_BTS, True, "no lock bts in the loop"),
            ("lacks", CMPXCHG, True, "no cmpxchg in the loop"),
        ],
        "read_then_set": [
            ("has", STORE_ONE, True, "the store, taken only when the flag is clear"),
            ("has", SEQ_PAIR, True, "the seqcount reads"),
        ],
        "set_bit_always": [
            ("has", LOCK_OR, True, "set_bit(): a locked or on every call"),
            ("has", SEQ_PAIR, True, "the seqcount reads"),
        ],
        "test_then_set_bit": [
            ("has", LOCK_OR, True, "set_bit() behind test_bit()"),
            ("has", SEQ_PAIR, True, "the seqcount reads"),
        ],
        "test_and_set_bit": [
            ("has", LOCK_BTS, True, "test_and_set_bit(): lock bts on every call"),
            ("has", SEQ_PAIR, True, "the seqcount reads"),
        ],
        "no_flag": [
            ("has", SEQ_PAIR, True, "the seqcount reads of the call skeleton"),
            ("has", LOCK_ADD, True, "the pin work"),
            ("lacks", STORE_ONE, False, "no flag store in the control"),
            ("lacks", LOCK_OR, False, "no set_bit in the control"),
            ("lacks", LOCK_BTS, False, "no test_and_set_bit in the control"),
        ],
    },
    "false_sharing.c.o": {
        "update_own": [
            ("has", PLAIN_INC, True, "update=plain: an unlocked load and store per update"),
            ("has", LOCK_ADD, True, "update=locked: a lock-prefixed add per update"),
        ],
    },
    "longterm_check.c.o": {
        "no_check": [
            ("has", CMPXCHG, True, "page_ref_add_unless(): a cmpxchg per page"),
            ("has", LOCK_OR, True, "SetPageReferenced() per page"),
            ("has", LOCK_SUB, True, "put_page() per page"),
            ("lacks", PFNBLOCK_CALL, False, "no CMA check without FOLL_LONGTERM"),
        ],
        "second_pass": [
            ("has", CMPXCHG, True, "page_ref_add_unless() per page"),
            ("has", LOCK_OR, True, "SetPageReferenced() per page"),
            ("has", PFNBLOCK_CALL, True, "is_migrate_cma_page() per page in reject_cma_pages()"),
        ],
        "check_in_walk": [
            ("has", CMPXCHG, True, "page_ref_add_unless() per page"),
            ("has", LOCK_OR, True, "SetPageReferenced() per page"),
            ("has", PFNBLOCK_CALL, True, "is_migrate_cma_page() per page in gup_pte_range()"),
        ],
    },
    "last_nidpid.c.o": {
        "cmpxchg_loop": [("has", CMPXCHG, True, "page_xchg_last_nidpid()'s cmpxchg retry loop")],
        "xchg": [("has", XCHG, True, "xchg() per update")],
    },
    "gup_fast.c.o": {
        "pin_user_pages_fast": [
            ("has", CMPXCHG, True, "folio_ref_try_add(): add-unless-zero per page"),
            ("has", LOCK_ADD, True, "page_ref_add(refs * (GUP_PIN_COUNTING_BIAS - 1))"),
            ("has", LOCK_OR, True, "SetPageReferenced() per page"),
            ("has", PFNBLOCK_CALL, True, "the CMA check, in the walk and in the second pass"),
            ("has", SEQ_PAIR, False, "raw_read_seqcount() and read_seqcount_retry()"),
            ("has", LONG_LOCK_ADD, True,
             "node_page_state_add(): NR_FOLL_PIN_ACQUIRED folded into the shared counters"),
        ],
        "reject_unpinnable_pages": [
            ("has", PFNBLOCK_CALL, True, "is_migrate_cma_page() per page in reject_cma_pages()"),
        ],
    },
    "gup_page.c.o": {
        "unpin_user_pages": [
            ("has", LOCK_SUB, True,
             "put_compound_head(): hpage_pincount_sub(), page_ref_sub(), put_page() per folio"),
            ("has", LONG_LOCK_ADD, True,
             "node_page_state_add(): NR_FOLL_PIN_RELEASED folded into the shared counters"),
        ],
    },
}

HEADER = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
RELOC = re.compile(r"^\s*[0-9a-f]+:\s+R_\w+\s+([\w.]+)")
INSN = re.compile(r"^\s*([0-9a-f]+):\s+(.*?)\s*$")
JUMP = re.compile(r"^(j[a-z]+|loop\w*)\s+([0-9a-f]+)\s+<([^>+]+)")
CALL = re.compile(r"^call\s+([0-9a-f]+)\s+<([^>+]+)>")
# a tail call: a jump to the start of another function of the object
TAIL_CALL = re.compile(r"^jmp\s+([0-9a-f]+)\s+<([^>+]+)>$")
LOAD32 = re.compile(r"^mov\s+(\S*\(%\w+(?:,%\w+)?(?:,\d)?\)),(%e\w+|%r\d+d)$")
LOAD64 = re.compile(r"^mov\s+(\S*\(%\w+(?:,%\w+)?(?:,\d)?\)),(%r\w+)$")
STORE = re.compile(r"^mov[bwlq]?\s+(%\w+),(\S*\(%\w+(?:,%\w+)?(?:,\d)?\))$")


def disassemble(objdump, path):
    """{object: {function: [(addr, text)]}} and the architecture seen."""
    out = subprocess.run([objdump, "-dr", "--no-show-raw-insn", path],
                         capture_output=True, text=True)
    if out.returncode:
        print(f"skip: {objdump} -d {path} failed: {out.stderr.strip()[:200]}")
        sys.exit(77)
    objects, arch, obj, fn = {}, set(), None, None
    for line in out.stdout.splitlines():
        m = re.search(r"^(?:In archive \S+:\s*)?(\S+):\s+file format (\S+)", line)
        if m:
            obj = m.group(1).rsplit("/", 1)[-1]
            arch.add(m.group(2))
            objects.setdefault(obj, {})
            continue
        m = HEADER.match(line)
        if m and obj:
            fn = m.group(2)
            objects[obj][fn] = []
            continue
        m = RELOC.match(line)
        if m and obj and fn and objects[obj][fn]:
            # a call to another object: name its target, as the linker will
            addr, text = objects[obj][fn][-1]
            objects[obj][fn][-1] = (addr, f"{text} <reloc {m.group(1)}>")
            continue
        m = INSN.match(line)
        if m and obj and fn:
            text = re.sub(r"\s+#.*$", "", m.group(2))
            objects[obj][fn].append((int(m.group(1), 16), text))
    return objects, arch


def loop_ranges(insns):
    ranges = []
    for addr, text in insns:
        m = JUMP.match(text)
        if m and int(m.group(2), 16) <= addr:
            ranges.append((int(m.group(2), 16), addr))
    return ranges


def in_loop(addr, ranges):
    return any(lo <= addr <= hi for lo, hi in ranges)


def closure(funcs, name):
    """(function, the call site's loop flag) for name and the local functions it calls."""
    seen, todo, result = {name}, [(name, False)], []
    while todo:
        fn, called_in_loop = todo.pop()
        insns = funcs[fn]
        ranges = loop_ranges(insns)
        result.append((fn, called_in_loop))
        for addr, text in insns:
            m = CALL.match(text) or TAIL_CALL.match(text)
            if m and m.group(2) in funcs and m.group(2) not in seen:
                seen.add(m.group(2))
                todo.append((m.group(2), called_in_loop or in_loop(addr, ranges)))
    return result


def matches(kind, insns, ranges, need_loop, loop_context):
    """Addresses where the pattern holds (in a loop, if asked)."""
    def ok(addr):
        return not need_loop or loop_context or in_loop(addr, ranges)

    if kind == SEQ_PAIR:
        seen = {}
        for addr, text in insns:
            m = LOAD32.match(text)
            if m and ok(addr):
                seen.setdefault(m.group(1), []).append(addr)
        return [a[0] for a in seen.values() if len(a) >= 2]
    if kind == STORE_SEQ_PIN_SEQ:
        hits = []
        for lo, hi in ranges if not loop_context else [(0, float("inf"))]:
            body = [(a, t) for a, t in insns if lo <= a <= hi]
            hits += store_seq_pin_seq(body)
        return hits
    if kind == PLAIN_INC:
        loads = {}
        hits = []
        for addr, text in insns:
            m = LOAD64.match(text)
            if m and ok(addr):
                loads[m.group(1)] = addr
            m = STORE.match(text)
            if m and ok(addr) and m.group(2) in loads:
                hits.append(addr)
        return hits
    return [addr for addr, text in insns if re.search(kind, text) and ok(addr)]


def store_seq_pin_seq(body):
    """Addresses of flag stores followed, in body's order, by load X, lock add, load X."""
    hits = []
    for i, (addr, text) in enumerate(body):
        if not re.search(STORE_ONE, text):
            continue
        first = {}
        pinned = set()
        for _, later in body[i + 1:]:
            m = LOAD32.match(later)
            if m:
                if m.group(1) in pinned:
                    hits.append(addr)
                    break
                first.setdefault(m.group(1), True)
            elif re.search(LOCK_ADD, later):
                pinned |= set(first)
    return hits


def check(objects):
    failures, checked = [], 0
    for obj, rules in RULES.items():
        funcs = objects.get(obj)
        if funcs is None:
            failures.append(f"{obj}: not in the files given")
            continue
        for fn, fn_rules in rules.items():
            if fn not in funcs:
                failures.append(f"{obj}: no function {fn} (inlined away or renamed?)")
                continue
            parts = closure(funcs, fn)
            for kind, pattern, need_loop, why in fn_rules:
                found = []
                for part, called_in_loop in parts:
                    insns = funcs[part]
                    found += matches(pattern, insns, loop_ranges(insns), need_loop,
                                     called_in_loop)
                checked += 1
                where = " in a loop" if need_loop else ""
                if kind == "has" and not found:
                    failures.append(f"{obj} {fn}: no {pattern}{where}: {why}")
                elif kind == "lacks" and found:
                    failures.append(f"{obj} {fn}: has {pattern} at {found[0]:#x}: {why}")
    return failures, checked


def main():
    if len(sys.argv) < 3:
        print("usage: check_disasm.py OBJDUMP FILE...", file=sys.stderr)
        return 2
    objects, arch = {}, set()
    for path in sys.argv[2:]:
        o, a = disassemble(sys.argv[1], path)
        objects.update(o)
        arch |= a
    if arch != {"elf64-x86-64"}:
        print(f"skip: the instruction table covers x86-64 only; these files are {sorted(arch)}")
        return 77
    # The rules describe the loops -O3 makes (the build the suite times):
    # at -O2 or below GCC inlines less, and no_check calls the lookup.
    level = os.environ.get("BOUNCELAB_OPTIMIZATION", "3")
    if level != "3":
        print(f"skip: the rules hold for the release build's -O3; this build is "
              f"optimization={level} (meson setup --buildtype=release)")
        return 77
    # One object file (a mutant's): only its own rules apply.
    if len(sys.argv) == 3 and sys.argv[2].endswith(".o"):
        for obj in list(RULES):
            if obj not in objects:
                del RULES[obj]
    failures, checked = check(objects)
    for f in failures:
        print("FAIL:", f)
    print(f"{checked - len(failures)} of {checked} instruction rules hold")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
