// SPDX-License-Identifier: GPL-2.0-only
/*
 * Runs one variant of one family (FAMILY, given at build time) on one
 * thread and prints what its verify says: the fidelity mutant test links
 * it with a mutated family file, to show whether verify notices.
 *
 * usage: mutant_driver VARIANT [PARAM=VALUE...]
 * Exit 0: verify passed; 1: verify failed; 2: bad usage or setup.
 */
#include <stdio.h>
#include <string.h>

#include "kernel.h"

extern const struct kernel_family FAMILY;

int main(int argc, char **argv)
{
	const struct kernel_family *f = &FAMILY;
	struct kernel_metrics metrics = { 0 };
	struct kernel_config cfg;
	uint64_t ops[1] = { 20000 };
	char err[256], msg[320];
	void *state;
	int i;

	if (argc < 2)
		return 2;
	kernel_config_defaults(f, &cfg);
	cfg.nr_threads = 1;
	for (cfg.variant = 0; cfg.variant < f->nr_variants; cfg.variant++)
		if (!strcmp(f->variants[cfg.variant].name, argv[1]))
			break;
	if (cfg.variant == f->nr_variants) {
		fprintf(stderr, "no variant '%s' in %s\n", argv[1], f->name);
		return 2;
	}
	for (i = 2; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		int k;

		if (!eq)
			return 2;
		*eq = '\0';
		k = kernel_param_index(f, argv[i]);
		if (k < 0 || kernel_param_parse(&f->params[k], eq + 1, &cfg.param[k],
						err, sizeof(err))) {
			fprintf(stderr, "bad parameter '%s'\n", argv[i]);
			return 2;
		}
	}
	state = f->create(&cfg, err, sizeof(err));
	if (!state) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	f->variants[cfg.variant].run(state, 0, ops[0]);
	if (f->verify(state, &cfg, ops, &metrics, msg, sizeof(msg))) {
		printf("verify failed: %s\n", msg);
		f->destroy(state);
		return 1;
	}
	printf("verify passed\n");
	f->destroy(state);
	return 0;
}
