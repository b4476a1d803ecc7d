// SPDX-License-Identifier: GPL-2.0-only
/* bouncelab report FILE... -o DIR [--latency FILE] */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "interrupt.h"
#include "report.h"

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "latency", required_argument, NULL, 'l' },
		{ "force", no_argument, NULL, 'F' },
		{ "full", no_argument, NULL, 'f' },
		{ "brief", no_argument, NULL, 'b' },
		{ "text", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_options opts = { 0 };
	char err[1024];
	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			opts.outdir = optarg;
			break;
		case 'l':
			opts.latency = optarg;
			break;
		case 'F':
			opts.force = true;
			break;
		case 'f':
			opts.full = true;
			break;
		case 'b':
			opts.brief = true;
			break;
		case 't':
			opts.text = true;
			break;
		case 'h':
			printf("usage: bouncelab report RESULTS.json... -o DIR [--latency FILE] [--force] [--full | --brief] [--text]\n\n"
			       "Writes DIR/report.md, its plots in DIR/plots/ and will-it-scale-style\n"
			       "CSV files in DIR/will-it-scale/ from one or more results files (several\n"
			       "machines' files give one report comparing them).\n\n"
			       "  -o, --output DIR     where the report goes (created if missing)\n"
			       "  --latency FILE       a latency matrix from 'bouncelab topo --latency',\n"
			       "                       drawn as a heatmap\n"
			       "  --force              replace a report already in DIR\n"
			       "  --full               every setting of a family in full (default: the\n"
			       "                       defaults' table in full, other settings a row each)\n"
			       "  --brief              only the summary, the claims and the key figure, in\n"
			       "                       two printed pages; PNG copies with rsvg-convert\n"
			       "  --text               also DIR/report.txt: the brief as plain text for a\n"
			       "                       mailing list (72 columns, no markdown)\n"
			       "  -h, --help           this help\n");
			return 0;
		default:
			return bad_option(argv, "report");
		}
	}
	if (opts.full && opts.brief)
		return usage_error("report: --full and --brief: expected one of them");
	if (optind == argc)
		return usage_error("report: expected at least one results file");
	if (!opts.outdir)
		return usage_error("report: expected an output directory: -o DIR");
	opts.files = (const char *const *)argv + optind;
	opts.nr_files = (unsigned int)(argc - optind);
	/*
	 * SIGTERM's default would end it with its lock and temporary tree
	 * left: caught, the report stops at its next step and cleans up.
	 */
	interrupt_reset();
	if (interrupt_catch("the current step of the report"))
		fprintf(stderr, "bouncelab: cannot catch signals: a Ctrl-C may leave the report's temporary files\n");
	opts.stop_requested = interrupt_signal;
	opts.hold_signals = interrupt_block;
	ret = report_write(&opts, err, sizeof(err));
	/* A signal held back during the moves reaches our handler first. */
	interrupt_block(false);
	interrupt_release();
	if (ret >= 128) {
		fprintf(stderr, "bouncelab: report %s\n", err);
		return ret;
	}
	if (ret)
		return ret == 2 ? usage_error("%s", err) : runtime_error("%s", err);
	printf("%s/report.md\n", opts.outdir);
	if (opts.text)
		printf("%s/report.txt\n", opts.outdir);
	return 0;
}
