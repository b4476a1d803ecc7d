// SPDX-License-Identifier: GPL-2.0-only
/* Helpers shared by every family: parameters, metrics, padded memory. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel.h"

atomic_bool kernel_stop_requested;

uint64_t kernel_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void kernel_metric_add(struct kernel_metrics *metrics, const char *name,
		       double value)
{
	if (metrics->nr >= KERNEL_MAX_METRICS)
		return;
	metrics->m[metrics->nr].name = name;
	metrics->m[metrics->nr].value = value;
	metrics->nr++;
}

/*
 * The bytes past the size asked for, up to the rounded end, hold
 * KERNEL_SLACK_BYTE rather than zero: a loop that reads one element past
 * its array then sees garbage that its verify or its metric shows, where
 * a zero would pass for an idle slot in every build.
 */
static void fill_slack(char *p, size_t size, size_t rounded)
{
	memset(p, 0, size);
	memset(p + size, KERNEL_SLACK_BYTE, rounded - size);
}

static bool slack_intact(const char *p, size_t size, size_t rounded)
{
	for (size_t i = size; i < rounded; i++)
		if ((unsigned char)p[i] != KERNEL_SLACK_BYTE)
			return false;
	return true;
}

void *kernel_alloc_padded(size_t size)
{
	void *p;
	size_t rounded;

	/* Rounding up must not wrap a huge size around to a small one. */
	if (size > SIZE_MAX - CACHE_PAD)
		return NULL;
	rounded = (size + CACHE_PAD - 1) / CACHE_PAD * CACHE_PAD;
	if (!rounded)
		rounded = CACHE_PAD;
	p = aligned_alloc(CACHE_PAD, rounded);
	if (p)
		fill_slack(p, size, rounded);
	return p;
}

/*
 * Each allocation starts with one page that remembers its sizes (free
 * needs them, and checks the slack), so that the family's data starts on
 * a page of its own.
 */
#define SHARED_HEADER 4096

struct shared_header {
	size_t total;	/* the header included */
	size_t size;	/* what the family asked for */
};

static const struct kernel_shared_allocator *shared_allocator;
static void *shared_made[KERNEL_MAX_SHARED];
static unsigned int nr_shared_made;
static unsigned int nr_shared_overruns;

void kernel_set_shared_allocator(const struct kernel_shared_allocator *a)
{
	shared_allocator = a;
}

void *kernel_alloc_shared(size_t size)
{
	struct shared_header h = { .size = size };
	char *base;

	if (size > SIZE_MAX - 2 * SHARED_HEADER)
		return NULL;
	h.total = (size + 2 * SHARED_HEADER - 1) / SHARED_HEADER * SHARED_HEADER;
	if (shared_allocator)
		base = shared_allocator->alloc(h.total, shared_allocator->arg);
	else
		base = aligned_alloc(SHARED_HEADER, h.total);
	if (!base)
		return NULL;
	memcpy(base, &h, sizeof(h));
	fill_slack(base + SHARED_HEADER, size, h.total - SHARED_HEADER);
	if (nr_shared_made < KERNEL_MAX_SHARED)
		shared_made[nr_shared_made++] = base + SHARED_HEADER;
	return base + SHARED_HEADER;
}

void kernel_free_shared(void *p)
{
	struct shared_header h;
	char *base;

	if (!p)
		return;
	base = (char *)p - SHARED_HEADER;
	memcpy(&h, base, sizeof(h));
	if (!slack_intact(p, h.size, h.total - SHARED_HEADER))
		nr_shared_overruns++;
	if (shared_allocator)
		shared_allocator->free(base, h.total, shared_allocator->arg);
	else
		free(base);
}

unsigned int kernel_shared_overruns(void)
{
	return nr_shared_overruns;
}

void kernel_shared_begin(void)
{
	nr_shared_made = 0;
}

unsigned int kernel_shared_count(void)
{
	return nr_shared_made;
}

void *kernel_shared_at(unsigned int i)
{
	return i < nr_shared_made ? shared_made[i] : NULL;
}

int kernel_param_index(const struct kernel_family *family, const char *name)
{
	for (unsigned int i = 0; i < family->nr_params; i++)
		if (!strcmp(family->params[i].name, name))
			return (int)i;
	return -1;
}

void kernel_config_defaults(const struct kernel_family *family,
			    struct kernel_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->nr_threads = 1;
	for (unsigned int i = 0; i < family->nr_params; i++)
		cfg->param[i] = family->params[i].def;
}

const char *kernel_param_choice(const struct kernel_param *param, long value)
{
	if (!param->choices || value < 0)
		return NULL;
	for (long i = 0; param->choices[i]; i++)
		if (i == value)
			return param->choices[i];
	return NULL;
}

static void describe_choices(const struct kernel_param *param, char *buf,
			     size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; param->choices[i] && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? "|" : "", param->choices[i]);
}

int kernel_param_parse(const struct kernel_param *param, const char *text,
		       long *value, char *err, size_t errlen)
{
	char expected[256];
	char *end;
	long v;

	if (param->choices) {
		for (long i = 0; param->choices[i]; i++) {
			if (!strcmp(param->choices[i], text)) {
				*value = i;
				return 0;
			}
		}
		describe_choices(param, expected, sizeof(expected));
		snprintf(err, errlen, "%s='%s': expected one of %s",
			 param->name, text, expected);
		return -1;
	}
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text || *end || v < param->min || v > param->max) {
		snprintf(err, errlen, "%s='%s': expected an integer from %ld to %ld",
			 param->name, text, param->min, param->max);
		return -1;
	}
	*value = v;
	return 0;
}

struct line_access *access_add_line(struct access_profile *p, const char *line,
				    enum line_sharing shared_by,
				    unsigned int group_size)
{
	struct line_access *a;

	if (p->nr_lines >= ACCESS_MAX_LINES)
		return &p->lines[ACCESS_MAX_LINES - 1];	/* never: profiles are small */
	a = &p->lines[p->nr_lines++];
	*a = (struct line_access){
		.line = line, .shared_by = shared_by, .group_size = group_size,
	};
	return a;
}
