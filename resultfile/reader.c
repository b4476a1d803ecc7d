// SPDX-License-Identifier: GPL-2.0-only
/*
 * The checks reader.h declares, which both readers of a results file use:
 * the rows' (results_read.c and its parts) and the context's
 * (run_context_read.c). Each reads one field, typed and within its range,
 * or names it: the file, the row and the field in one line, from the
 * reader's place in the document (struct reader), so that every message
 * has the same shape wherever the field is.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "reader.h"

/* A short description of what a value is, for error messages. */
static void describe(const json_t *v, char *buf, size_t len)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		snprintf(buf, len, "an object");
		break;
	case JSON_ARRAY:
		snprintf(buf, len, "an array");
		break;
	case JSON_STRING:
		snprintf(buf, len, "the string \"%.40s%s\"", json_string_value(v),
			 strlen(json_string_value(v)) > 40 ? "..." : "");
		break;
	case JSON_INTEGER:
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_REAL:
		snprintf(buf, len, "%g", json_real_value(v));
		break;
	case JSON_TRUE:
		snprintf(buf, len, "true");
		break;
	case JSON_FALSE:
		snprintf(buf, len, "false");
		break;
	default:
		snprintf(buf, len, "null");
		break;
	}
}

int reader_out_of_memory(struct reader *r)
{
	snprintf(r->err, r->errlen, "out of memory reading %s", r->path);
	r->out_of_memory = true;
	return -1;
}

/* "FILE: benchmarks[3] (name): FIELD: MESSAGE, found VALUE"; returns -1. */
int reader_bad(struct reader *r, const char *field, const json_t *found,
	       const char *fmt, ...)
{
	char where[160] = "", what[256], value[80] = "nothing";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (found)
		describe(found, value, sizeof(value));
	if (r->row_name)
		snprintf(where, sizeof(where), "%s[%zu] (%.100s): ",
			 r->array, r->index, r->row_name);
	else if (r->index != (size_t)-1)
		snprintf(where, sizeof(where), "%s[%zu]: ", r->array, r->index);
	snprintf(r->err, r->errlen, "%s: %s%s%s%s%s, found %s", r->path, where,
		 r->prefix ? r->prefix : "", field, *field ? ": " : "", what, value);
	return -1;
}

int reader_string(struct reader *r, json_t *obj, const char *key,
		  bool required, const char **out)
{
	json_t *v = json_object_get(obj, key);

	if (!v && !required)
		return 0;
	if (!json_is_string(v) || (required && !*json_string_value(v)))
		return reader_bad(r, key, v, "expected a%s string", required ? " non-empty" : "");
	if (out)
		*out = json_string_value(v);
	return 0;
}

int reader_bool(struct reader *r, json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	if (v && !json_is_boolean(v))
		return reader_bad(r, key, v, "expected true or false");
	return 0;
}

int reader_integer(struct reader *r, json_t *obj, const char *key,
		   long min, long max, bool required, long *out)
{
	json_t *v = json_object_get(obj, key);

	if (!v && !required)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < min ||
	    json_integer_value(v) > max)
		return reader_bad(r, key, v, "expected an integer from %ld to %ld", min, max);
	if (out)
		*out = (long)json_integer_value(v);
	return 0;
}

int reader_number(struct reader *r, json_t *obj, const char *key,
		  double min, double max, bool required, double *out)
{
	json_t *v = json_object_get(obj, key);
	double d;

	if (!v && !required)
		return 0;
	d = json_number_value(v);
	if (!json_is_number(v) || !isfinite(d) || d < min || d > max)
		return reader_bad(r, key, v, "expected a number from %g to %g", min, max);
	if (out)
		*out = d;
	return 0;
}
