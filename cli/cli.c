// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CLI's shared helpers: one-line errors and number parsing. They live
 * outside main.c so that tests and fuzz targets can call the subcommands
 * in-process.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/*
 * Messages quote the user's values: a control byte in one (an escape
 * sequence, a newline) is shown as \xNN, never sent to the terminal.
 */
static void vreport(const char *fmt, va_list ap)
{
	char line[2048];

	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "bouncelab: %s\n", printable(line));
}

const char *printable_into(char *buf, size_t len, const char *text)
{
	size_t used = 0;

	for (const unsigned char *p = (const unsigned char *)text;
	     *p && used + 5 < len; p++) {
		if (*p < 0x20 || *p == 0x7f)
			used += (size_t)snprintf(buf + used, len - used, "\\x%02x", *p);
		else
			buf[used++] = (char)*p;
	}
	buf[used] = '\0';
	return buf;
}

const char *printable(const char *text)
{
	static char buf[4 * 2048 + 1];

	return printable_into(buf, sizeof(buf), text);
}

int print_json(json_t *doc, size_t flags)
{
	int ret = 0;

	if (!doc || json_dumpf(doc, stdout, flags) || fputc('\n', stdout) == EOF ||
	    fflush(stdout))
		ret = runtime_error("cannot write the JSON to standard output");
	json_decref(doc);
	return ret;
}

int close_stdout(int status)
{
	int failed = fflush(stdout) != 0 || ferror(stdout);
	int saved = errno;

	if (fclose(stdout) && !failed) {
		failed = 1;
		saved = errno;
	}
	if (!failed)
		return status;
	fprintf(stderr, "bouncelab: write error on standard output: %s\n",
		saved ? strerror(saved) : "unknown error");
	return status ? status : EXIT_RUNTIME;
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

int runtime_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	return EXIT_RUNTIME;
}

/*
 * getopt_long() leaves optopt at the option's value when a known option
 * lacks its value or has one it does not take, and at 0 for an unknown
 * long option; argv[optind - 1] is the word it stopped at.
 */
int bad_option(char **argv, const char *command)
{
	const char *word = optind > 0 ? argv[optind - 1] : NULL;

	if (word && !strncmp(word, "--", 2)) {
		int len = (int)strcspn(word, "=");

		if (!optopt)
			return usage_error("%s: option '%.*s' is unknown or ambiguous: see 'bouncelab %s --help'",
					   command, len, word, command);
		if (word[len] == '=')
			return usage_error("%s: option '%.*s' takes no value: see 'bouncelab %s --help'",
					   command, len, word, command);
		return usage_error("%s: option '%s' needs a value: see 'bouncelab %s --help'",
				   command, word, command);
	}
	if (optopt && optopt != '?')
		return usage_error("%s: option '-%c' is unknown or needs a value: see 'bouncelab %s --help'",
				   command, optopt, command);
	return usage_error("%s: option '%s' is unknown: see 'bouncelab %s --help'",
			   command, word ? word : "?", command);
}

double parse_seconds(const char *text)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (errno || end == text || *end || !isfinite(v) || v <= 0 || v > 3600)
		return -1;
	return v;
}

int parse_long(const char *text, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

void default_output_path(const char *name, char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	char stamp[32];

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "results/%s-%ld/%s", stamp, (long)getpid(), name);
}
