// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzzes the results reader through the report's public entry point:
 * each input is a results file, reported into a scratch directory. Any
 * input must give a report or an error, never a crash, a leak or
 * undefined behaviour. The fast parser (results_json.h) is checked against
 * jansson on the way: what it takes, jansson takes as the same value.
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "report.h"
#include "results_json.h"
#include "scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char results[PATH_MAX], outdir[PATH_MAX], err[1024];
	const char *files[] = { results };
	json_t *plain = results_json_parse_plain((const char *)data, size), *ref;

	if (plain) {
		ref = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
		if (!ref || !json_equal(plain, ref))
			abort();
		json_decref(ref);
		json_decref(plain);
	}
	scratch_write("results.json", data, size);
	scratch_path(results, "results.json");
	scratch_path(outdir, "report");
	report_generate(files, 1, outdir, err, sizeof(err));
	scratch_clean();
	return 0;
}
