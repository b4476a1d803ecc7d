/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BOUNCELAB_CONSOLE_H
#define BOUNCELAB_CONSOLE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "suite.h"

/*
 * run --console: a table of every finished repetition on stdout, read
 * from the results row itself, so that its ns/op is the JSON's real_time
 * (Google Benchmark's own console divides a threaded run's time by the
 * thread count). One header for the whole run.
 */
struct console {
	FILE *out;
	bool colour;		/* a terminal, and NO_COLOR unset or empty */
	bool tty;		/* out is a terminal */
	bool header_shown;
	int name_width;
};

void console_init(struct console *con, FILE *out, const struct suite *suite);
/* One row: name, real_time, iterations, then the run's counters. */
void console_row(struct console *con, const json_t *row);

#endif
