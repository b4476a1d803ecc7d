// SPDX-License-Identifier: GPL-2.0-only
#include "console.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Google Benchmark's colours: names green, times yellow, iterations cyan. */
#define GREEN "\033[32m"
#define YELLOW "\033[33m"
#define CYAN "\033[36m"
#define RED "\033[31m"
#define RESET "\033[m"

/* Columns of a row that are not counters. */
static const char *const not_counters[] = {
	"name", "family_index", "per_family_instance_index", "run_name", "run_type",
	"repetitions", "repetition_index", "threads", "aggregate_name", "aggregate_unit",
	"error_occurred", "error_message", "iterations", "real_time", "cpu_time",
	"time_unit", "label", "bouncelab",
};

static bool is_counter(const char *key)
{
	for (size_t i = 0; i < sizeof(not_counters) / sizeof(not_counters[0]); i++)
		if (!strcmp(key, not_counters[i]))
			return false;
	return true;
}

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
	const char *name = json_string_value(json_object_get(row, "name"));
	const char *key;
	json_t *value;

	if (!con->header_shown)
		header(con);
	fprintf(con->out, "%s%-*s%s", colour(con, GREEN), con->name_width, name,
		colour(con, RESET));
	if (json_is_true(json_object_get(row, "error_occurred"))) {
		fprintf(con->out, " %sERROR: %s%s\n", colour(con, RED),
			json_string_value(json_object_get(row, "error_message")),
			colour(con, RESET));
		fflush(con->out);
		return;
	}
	fprintf(con->out, " %s%10.2f ns%s", colour(con, YELLOW),
		json_number_value(json_object_get(row, "real_time")), colour(con, RESET));
	fprintf(con->out, " %s%12lld%s", colour(con, CYAN),
		(long long)json_integer_value(json_object_get(row, "iterations")),
		colour(con, RESET));
	json_object_foreach((json_t *)row, key, value)
		if (is_counter(key))
			fprintf(con->out, " %s=%g", key, json_number_value(value));
	fputc('\n', con->out);
	fflush(con->out);
}
