// SPDX-License-Identifier: GPL-2.0-only
/* bouncelab report FILE... -o DIR */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "report.h"

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *outdir = NULL;
	char err[1024];
	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			outdir = optarg;
			break;
		case 'h':
			printf("usage: bouncelab report RESULTS.json... -o DIR\n\n"
			       "Writes DIR/report.md from one or more results files.\n");
			return 0;
		default:
			return bad_option(argv, "report");
		}
	}
	if (optind == argc)
		return usage_error("report: expected at least one results file");
	if (!outdir)
		return usage_error("report: expected an output directory: -o DIR");
	ret = report_generate((const char *const *)argv + optind,
			      (unsigned int)(argc - optind), outdir, err, sizeof(err));
	if (ret)
		return ret == 2 ? usage_error("%s", err) : runtime_error("%s", err);
	printf("%s/report.md\n", outdir);
	return 0;
}
