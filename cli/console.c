// SPDX-License-Identifier: GPL-2.0-only
#include "console.h"
#include "results.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Google Benchmark's colours: names green, times yellow, iterations cyan. */
#define GREEN "\033[32m"
#define YELLOW "\033[33m"
#define CYAN "\033[36m"
#define RED "\033[31m"
#define RESET "\033[m"

/* no-color.org: NO_COLOR present and not empty turns colour off. */
static bool no_color(void)
{
	const char *v = getenv("NO_COLOR");

	return v && *v;
}

void console_init(struct console *con, FILE *out, const struct suite *suite)
{
	con->out = out;
	con->tty = isatty(fileno(out));
	con->colour = con->tty && !no_color();
	con->header_shown = false;
	/* The row names: the case name and "/real_time/threads:N". */
	con->name_width = (int)strlen("Benchmark");
	for (unsigned int i = 0; i < suite->nr_cases; i++) {
		int w = (int)strlen(suite->cases[i].name) + (int)strlen("/real_time/threads:") +
			snprintf(NULL, 0, "%u", suite->cases[i].cfg.nr_threads);

		if (w > con->name_width)
			con->name_width = w;
	}
}

static const char *colour(const struct console *con, const char *code)
{
	return con->colour ? code : "";
}

static void header(struct console *con)
{
	fprintf(con->out, "%-*s %13s %12s  counters\n", con->name_width, "Benchmark",
		"ns/op", "Iterations");
	for (int i = 0; i < con->name_width + 37; i++)
		fputc('-', con->out);
	fputc('\n', con->out);
	con->header_shown = true;
}

void console_row(struct console *con, const json_t *row)
{
	struct results_row_view v;

	/* without memory for the counters, the row is shown without them */
	results_row_view(row, &v);
	if (!con->header_shown)
		header(con);
	fprintf(con->out, "%s%-*s%s", colour(con, GREEN), con->name_width, v.name,
		colour(con, RESET));
	if (v.failed) {
		fprintf(con->out, " %sERROR: %s%s\n", colour(con, RED), v.error_message,
			colour(con, RESET));
		fflush(con->out);
		results_row_view_free(&v);
		return;
	}
	fprintf(con->out, " %s%10.2f ns%s", colour(con, YELLOW), v.real_time,
		colour(con, RESET));
	fprintf(con->out, " %s%12lld%s", colour(con, CYAN), v.iterations, colour(con, RESET));
	for (size_t i = 0; i < v.nr_counters; i++)
		fprintf(con->out, " %s=%g", v.counters[i].name, v.counters[i].value);
	fputc('\n', con->out);
	fflush(con->out);
	results_row_view_free(&v);
}
