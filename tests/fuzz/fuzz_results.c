// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzzes the results reader through the report's public entry point:
 * each input is a results file, reported into a scratch directory. Any
 * input must give a report or an error, never a crash, a leak or
 * undefined behaviour.
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "report.h"
#include "scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char results[PATH_MAX], outdir[PATH_MAX], err[1024];
	const char *files[] = { results };

	scratch_write("results.json", data, size);
	scratch_path(results, "results.json");
	scratch_path(outdir, "report");
	report_generate(files, 1, outdir, err, sizeof(err));
	scratch_clean();
	return 0;
}
