// SPDX-License-Identifier: GPL-2.0-only
/*
 * Prints the instruction declarations of every variant in the catalogue
 * (kernel.h, struct insn_rule), one tab-separated line each, for
 * tests/check_disasm.py: the declarations stay in C beside the variants,
 * and the check disassembles this very program, which holds their code.
 *
 *   main	ADDRESS				where main() was loaded
 *   variant	FAMILY	VARIANT	ADDRESS		its run function
 *   rule	FAMILY	VARIANT	CLASS	WHERE	FUNCTION	CALLEE	WHAT
 *
 * FUNCTION and CALLEE are "-" when not given. Built with -DFAMILY=symbol
 * it prints that one family (the fidelity mutants link it with a mutated
 * family file).
 *
 * usage: insn_decls [--clear FAMILY/VARIANT]
 * --clear prints that variant from a copy of its entry with the
 * declarations cleared, as a variant added without them would be: the
 * check must then fail and say what to add.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernel.h"

#ifdef FAMILY
extern const struct kernel_family FAMILY;
static const struct kernel_family *const families[] = { &FAMILY };
#define NR_FAMILIES 1
#else
#include "catalog.h"
#define families catalog
#define NR_FAMILIES catalog_size
#endif

/* The names check_disasm.py knows the classes by. */
static const char *const insn_class_names[] = {
	[INSN_END] = "end",
	[INSN_STORE_ONE] = "store_one",
	[INSN_PLAIN_STORE] = "plain_store",
	[INSN_PLAIN_INC] = "plain_inc",
	[INSN_LOCK_ADD] = "lock_add",
	[INSN_LOCK_SUB] = "lock_sub",
	[INSN_LOCK_LONG_ADD] = "lock_long_add",
	[INSN_LOCK_OR] = "lock_or",
	[INSN_LOCK_BTS] = "lock_bts",
	[INSN_CMPXCHG] = "cmpxchg",
	[INSN_XCHG] = "xchg",
	[INSN_LOCKED] = "locked",
	[INSN_SEQ_PAIR] = "seq_pair",
	[INSN_STORE_SEQ_PIN_SEQ] = "store_seq_pin_seq",
	[INSN_CALL] = "call",
};
_Static_assert(sizeof(insn_class_names) / sizeof(insn_class_names[0]) == NR_INSN_CLASSES,
	       "a name for every instruction class");

static const char *const insn_where_names[] = {
	[INSN_IN_LOOP] = "in_loop",
	[INSN_ANYWHERE] = "anywhere",
	[INSN_NOT_IN_LOOP] = "not_in_loop",
	[INSN_NOWHERE] = "nowhere",
};

static const char *or_dash(const char *s)
{
	return s ? s : "-";
}

static void print_variant(const struct kernel_family *f,
			  const struct kernel_variant *v)
{
	printf("variant\t%s\t%s\t%#lx\n", f->name, v->name,
	       (unsigned long)(uintptr_t)v->run);
	for (unsigned int i = 0; i < KERNEL_MAX_INSNS; i++) {
		const struct insn_rule *r = &v->instructions[i];

		if (r->insn == INSN_END)
			break;
		printf("rule\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", f->name, v->name,
		       r->insn < NR_INSN_CLASSES ? insn_class_names[r->insn] : "unknown",
		       insn_where_names[r->where], or_dash(r->function),
		       or_dash(r->callee), or_dash(r->what));
	}
}

int main(int argc, char **argv)
{
	const char *clear = NULL;
	bool cleared = false;

	if (argc == 3 && !strcmp(argv[1], "--clear")) {
		clear = argv[2];
	} else if (argc != 1) {
		fprintf(stderr, "usage: insn_decls [--clear FAMILY/VARIANT]\n");
		return 2;
	}
	printf("main\t%#lx\n", (unsigned long)(uintptr_t)&main);
	for (unsigned int i = 0; i < NR_FAMILIES; i++) {
		const struct kernel_family *f = families[i];
		size_t len = strlen(f->name);

		for (unsigned int k = 0; k < f->nr_variants; k++) {
			struct kernel_variant copy = f->variants[k];

			if (clear && !strncmp(clear, f->name, len) && clear[len] == '/' &&
			    !strcmp(clear + len + 1, copy.name)) {
				memset(copy.instructions, 0, sizeof(copy.instructions));
				cleared = true;
			}
			print_variant(f, &copy);
		}
	}
	if (clear && !cleared) {
		fprintf(stderr, "insn_decls: no variant '%s', expected FAMILY/VARIANT\n", clear);
		return 2;
	}
	return 0;
}
