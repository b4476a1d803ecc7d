// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "results_json.h"

/*
 * Deeper than any results file (a row nests 4 levels); jansson, which
 * takes over past it, allows 2048.
 */
#define PLAIN_MAX_DEPTH 64
/* Longer numbers than any double needs are left to jansson. */
#define PLAIN_MAX_NUMBER 64

struct plain {
	const char *p, *end;
	unsigned int depth;
};

static json_t *plain_value(struct plain *s);

static void plain_skip_space(struct plain *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' ||
				 *s->p == '\t' || *s->p == '\r'))
		s->p++;
}

/*
 * A string of printable ASCII without escapes, after its opening quote:
 * its start and length, or false. Escapes, control bytes and UTF-8 are
 * jansson's to decode and check.
 */
static bool plain_string(struct plain *s, const char **start, size_t *len)
{
	const char *p = s->p;

	while (p < s->end) {
		unsigned char c = (unsigned char)*p;

		if (c == '"') {
			*start = s->p;
			*len = (size_t)(p - s->p);
			s->p = p + 1;
			return true;
		}
		if (c < 0x20 || c >= 0x80 || c == '\\')
			return false;
		p++;
	}
	return false;
}

static size_t plain_digits(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && *q >= '0' && *q <= '9')
		q++;
	return (size_t)(q - p);
}

/* RFC 8259's number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static json_t *plain_number(struct plain *s)
{
	const char *p = s->p, *end = s->end;
	char text[PLAIN_MAX_NUMBER + 1], *stop;
	bool integer = true;
	size_t n, len;

	if (p < end && *p == '-')
		p++;
	n = plain_digits(p, end);
	if (!n || (*p == '0' && n > 1))
		return NULL;
	p += n;
	if (p < end && *p == '.') {
		n = plain_digits(++p, end);
		if (!n)
			return NULL;
		p += n;
		integer = false;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		n = plain_digits(p, end);
		if (!n)
			return NULL;
		p += n;
		integer = false;
	}
	len = (size_t)(p - s->p);
	if (len > PLAIN_MAX_NUMBER)
		return NULL;
	memcpy(text, s->p, len);
	text[len] = '\0';
	s->p = p;
	/*
	 * bouncelab never calls setlocale(), so strtod() reads '.' as the
	 * decimal point. Out of range either way is jansson's to judge.
	 */
	errno = 0;
	if (integer) {
		long long v = strtoll(text, &stop, 10);

		return errno || *stop ? NULL : json_integer(v);
	} else {
		double v = strtod(text, &stop);

		return errno || *stop ? NULL : json_real(v);
	}
}

static bool plain_literal(struct plain *s, const char *word)
{
	size_t len = strlen(word);

	if ((size_t)(s->end - s->p) < len || memcmp(s->p, word, len))
		return false;
	s->p += len;
	return true;
}

static json_t *plain_object(struct plain *s)
{
	json_t *obj = json_object(), *value;
	const char *key;
	size_t len, size;

	if (!obj)
		return NULL;
	plain_skip_space(s);
	if (s->p < s->end && *s->p == '}') {
		s->p++;
		return obj;
	}
	for (;;) {
		if (s->p >= s->end || *s->p != '"')
			goto decline;
		s->p++;
		if (!plain_string(s, &key, &len))
			goto decline;
		plain_skip_space(s);
		if (s->p >= s->end || *s->p != ':')
			goto decline;
		s->p++;
		value = plain_value(s);
		size = json_object_size(obj);
		if (!value || json_object_setn_new_nocheck(obj, key, len, value))
			goto decline;
		/*
		 * A repeated key replaced the first one rather than adding one:
		 * an error, and jansson says so (one hash lookup, not two).
		 */
		if (json_object_size(obj) != size + 1)
			goto decline;
		plain_skip_space(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			plain_skip_space(s);
			continue;
		}
		if (s->p < s->end && *s->p == '}') {
			s->p++;
			return obj;
		}
		goto decline;
	}
decline:
	json_decref(obj);
	return NULL;
}

static json_t *plain_array(struct plain *s)
{
	json_t *array = json_array(), *value;

	if (!array)
		return NULL;
	plain_skip_space(s);
	if (s->p < s->end && *s->p == ']') {
		s->p++;
		return array;
	}
	for (;;) {
		value = plain_value(s);
		if (!value || json_array_append_new(array, value))
			goto decline;
		plain_skip_space(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			continue;
		}
		if (s->p < s->end && *s->p == ']') {
			s->p++;
			return array;
		}
		goto decline;
	}
decline:
	json_decref(array);
	return NULL;
}

static json_t *plain_value(struct plain *s)
{
	const char *start;
	json_t *value;
	size_t len;

	plain_skip_space(s);
	if (s->p >= s->end)
		return NULL;
	switch (*s->p) {
	case '{':
	case '[':
		if (++s->depth > PLAIN_MAX_DEPTH)
			return NULL;
		s->p++;
		value = s->p[-1] == '{' ? plain_object(s) : plain_array(s);
		s->depth--;
		return value;
	case '"':
		s->p++;
		return plain_string(s, &start, &len) ?
			json_stringn_nocheck(start, len) : NULL;
	case 't':
		return plain_literal(s, "true") ? json_true() : NULL;
	case 'f':
		return plain_literal(s, "false") ? json_false() : NULL;
	case 'n':
		return plain_literal(s, "null") ? json_null() : NULL;
	default:
		return plain_number(s);
	}
}

json_t *results_json_parse_plain(const char *text, size_t len)
{
	struct plain s = { text, text + len, 0 };
	json_t *doc;

	/* jansson takes an object or an array at the top, nothing else. */
	plain_skip_space(&s);
	if (s.p >= s.end || (*s.p != '{' && *s.p != '['))
		return NULL;
	doc = plain_value(&s);
	if (!doc)
		return NULL;
	plain_skip_space(&s);
	if (s.p != s.end) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}
