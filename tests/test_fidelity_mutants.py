#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""
Mutants that fake a kernel's work, and the check that catches each.

Each mutant edits one family file in a temporary directory (the tree is
never touched) so that the variant does less than the kernel code it
stands for while its final state still looks right: the false_sharing
loop collapsed into one add, the has_pinned flag stored once before the
loop, the seqcount reads dropped or replaced by the value they would
read, the CMA check skipped where no pageblock is CMA. For each, the
family file is compiled alone, its object is linked with
tests/insn_decls.c and goes through check_disasm.py against the
declarations it carries,
and tests/mutant_driver.c runs the variant and its verify. A mutant must
fail at least one of the two, and the one the table names; the unmutated
file must pass both, so that the test can tell them apart.

usage: test_fidelity_mutants.py CHECK_DISASM OBJDUMP SOURCE_ROOT CC...
Exit 77 where the disassembly table does not cover the target.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

# has_pinned's two seqcount reads replaced by the value they read at rest.
SEQCOUNT_READS_AT_REST = [
    ("seq = atomic_load_explicit(&mm->write_protect_seq, memory_order_acquire);",
     "seq = SEQ_AT_REST;"),
    ("again = atomic_load_explicit(&mm->write_protect_seq, memory_order_acquire);",
     "again = SEQ_AT_REST;"),
    ("enum { PARAM_PIN_WORK,", "#define SEQ_AT_REST 2\nenum { PARAM_PIN_WORK,"),
]

# name, file, variant, driver params, [(old, new)], which check must fail
MUTANTS = [
    ("false_sharing loop collapsed into one add", "false_sharing.c", "padded_128", [],
     [("""	for (uint64_t i = 0; i < nr_ops; i++)
		atomic_store_explicit(mine, atomic_load_explicit(mine, memory_order_relaxed) + 1,
				      memory_order_relaxed);""",
       """	atomic_store_explicit(mine, atomic_load_explicit(mine, memory_order_relaxed) + nr_ops,
			      memory_order_relaxed);""")],
     "disasm"),
    ("has_pinned flag stored once, before the loop", "has_pinned.c", "store_always", [],
     [("""	for (uint64_t i = 0; i < nr_ops; i++) {
		struct mm_model *mm = mm_of_call(s, &cur, i);

		atomic_store_explicit(has_pinned_of(s, mm), 1, memory_order_relaxed);
		pin_call_work(s, mm, slot);
	}""",
       """	atomic_store_explicit(has_pinned_of(s, &s->mm), 1, memory_order_relaxed);
	for (uint64_t i = 0; i < nr_ops; i++) {
		struct mm_model *mm = mm_of_call(s, &cur, i);

		pin_call_work(s, mm, slot);
	}""")],
     "disasm"),
    ("has_pinned seqcount reads dropped", "has_pinned.c", "read_then_set", [],
     [("seq = atomic_load_explicit(&mm->write_protect_seq, memory_order_acquire);",
       "seq = 0;"),
      ("again = atomic_load_explicit(&mm->write_protect_seq, memory_order_acquire);",
       "again = 0;")],
     "verify"),
    ("has_pinned seqcount reads replaced by the value they read", "has_pinned.c",
     "test_then_set_bit", [],
     SEQCOUNT_READS_AT_REST,
     "disasm"),
    ("store_always's seqcount reads replaced by the value they read", "has_pinned.c",
     "store_always", [],
     SEQCOUNT_READS_AT_REST,
     "disasm"),
    ("store_always's atomic_set() made an xchg", "has_pinned.c", "store_always", [],
     [("""		struct mm_model *mm = mm_of_call(s, &cur, i);

		atomic_store_explicit(has_pinned_of(s, mm), 1, memory_order_relaxed);
		pin_call_work(s, mm, slot);""",
       """		struct mm_model *mm = mm_of_call(s, &cur, i);

		atomic_store_explicit(has_pinned_of(s, mm), 1, memory_order_seq_cst);
		pin_call_work(s, mm, slot);""")],
     "disasm"),
    ("counter shared_atomic's locked add made a plain increment", "counter.c",
     "shared_atomic", [],
     [("atomic_fetch_add_explicit(&s->shared, 1, memory_order_relaxed);",
       "local_inc(&s->shared);")],
     "disasm"),
    ("counter percpu_padded's plain increment made a locked add", "counter.c",
     "percpu_padded", [],
     [("local_inc(&slot->count);",
       "atomic_fetch_add_explicit(&slot->count, 1, memory_order_relaxed);")],
     "disasm"),
    ("longterm_check CMA check skipped in the walk at cma_percent=0", "longterm_check.c",
     "check_in_walk", ["cma_percent=0", "buffer_pages=4096"],
     [("if (check_longterm && !page_is_longterm_pinnable(s, th, page, &checks))",
       "if (check_longterm && s->block_is_cma[pfn_of(th, page) >> PAGEBLOCK_ORDER] &&\n"
       "\t\t    !page_is_longterm_pinnable(s, th, page, &checks))")],
     "verify"),
    ("longterm_check second pass skipped at cma_percent=0", "longterm_check.c",
     "second_pass", ["cma_percent=0", "buffer_pages=4096"],
     [("if (!page_is_longterm_pinnable(s, th, pages[i], &checks)) {",
       "if (s->block_is_cma[pfn_of(th, pages[i]) >> PAGEBLOCK_ORDER] &&\n"
       "\t\t    !page_is_longterm_pinnable(s, th, pages[i], &checks)) {")],
     "verify"),
]

FAMILY_SYMBOL = {
    "counter.c": "counter_family",
    "false_sharing.c": "false_sharing_family",
    "has_pinned.c": "has_pinned_family",
    "longterm_check.c": "longterm_check_family",
}

CFLAGS = ["-std=c11", "-O3", "-D_GNU_SOURCE", "-pthread"]


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def build_and_check(cc, check, objdump, root, tmp, name, source, variant, params):
    """(disasm passed, verify passed, what they said) for one family source."""
    kernels = os.path.join(root, "kernels")
    # lib/splitmix64.h, header-only, which the kernels include
    lib = ["-I", os.path.join(root, "lib")]
    # the family's NAME_lesson.h, which the build generates from kernels/lessons/
    generated = ["-I", os.environ["BOUNCELAB_LESSON_HEADERS"]] \
        if "BOUNCELAB_LESSON_HEADERS" in os.environ else []
    obj = os.path.join(tmp, name.replace(".c", ".c.o"))
    src = os.path.join(tmp, name)
    with open(src, "w") as f:
        f.write(source)
    r = run(cc + CFLAGS + ["-I", kernels] + lib + generated + ["-c", src, "-o", obj])
    if r.returncode:
        raise RuntimeError(f"{name} does not compile: {r.stderr[:500]}")
    decls = os.path.join(tmp, "insn_decls")
    r = run(cc + CFLAGS + ["-I", kernels] + lib + [f"-DFAMILY={FAMILY_SYMBOL[name]}",
                           os.path.join(root, "tests", "insn_decls.c"),
                           os.path.join(kernels, "kernel.c"), obj, "-o", decls])
    if r.returncode:
        raise RuntimeError(f"insn_decls does not link: {r.stderr[:500]}")
    d = run([sys.executable, check, objdump, decls])
    if d.returncode not in (0, 1):
        raise RuntimeError(f"check_disasm.py: {d.stdout}{d.stderr}")
    drv = os.path.join(tmp, "driver")
    r = run(cc + CFLAGS + ["-I", kernels] + lib + [f"-DFAMILY={FAMILY_SYMBOL[name]}",
                           os.path.join(root, "tests", "mutant_driver.c"),
                           os.path.join(kernels, "kernel.c"), obj, "-o", drv])
    if r.returncode:
        raise RuntimeError(f"driver does not link: {r.stderr[:500]}")
    v = run([drv, variant] + params, timeout=60)
    if v.returncode not in (0, 1):
        raise RuntimeError(f"driver {variant}: status {v.returncode}: {v.stdout}{v.stderr}")
    return d.returncode == 0, v.returncode == 0, (d.stdout + v.stdout).strip()


def main():
    if len(sys.argv) < 5:
        print("usage: test_fidelity_mutants.py CHECK_DISASM OBJDUMP SOURCE_ROOT CC...")
        return 2
    check, objdump, root, cc = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    arch = run(cc + ["-dumpmachine"]).stdout.strip()
    if not arch.startswith("x86_64"):
        print(f"skip: the disassembly table covers x86-64 only; the compiler targets {arch}")
        return 77
    failures = 0
    tmp = tempfile.mkdtemp(prefix="bouncelab-mutants-")
    try:
        for title, name, variant, params, edits, catcher in MUTANTS:
            with open(os.path.join(root, "kernels", name)) as f:
                original = f.read()
            ok_d, ok_v, said = build_and_check(cc, check, objdump, root, tmp, name,
                                               original, variant, params)
            if not (ok_d and ok_v):
                print(f"FAIL: {title}: the unmutated {name} does not pass: {said}")
                failures += 1
                continue
            mutant = original
            for old, new in edits:
                if mutant.count(old) != 1:
                    print(f"FAIL: {title}: the text to mutate is not in {name} exactly once "
                          f"(the code moved on: refresh the mutant): {old[:60]!r}")
                    failures += 1
                    break
                mutant = mutant.replace(old, new)
            else:
                ok_d, ok_v, said = build_and_check(cc, check, objdump, root, tmp, name,
                                                   mutant, variant, params)
                caught = {"disasm": not ok_d, "verify": not ok_v}
                status = "caught" if caught[catcher] else "SURVIVED"
                print(f"{status}: {title} ({variant}): disassembly "
                      f"{'fails' if caught['disasm'] else 'passes'}, verify "
                      f"{'fails' if caught['verify'] else 'passes'}")
                for line in said.splitlines():
                    if line.startswith(("FAIL", "verify failed")):
                        print("    " + line)
                if not caught[catcher]:
                    failures += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(MUTANTS) - failures} of {len(MUTANTS)} mutants caught")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
