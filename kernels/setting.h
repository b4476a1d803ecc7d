/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A setting: the values of one family's parameters. This file owns every
 * spelling a setting has and every question asked of one, so that the
 * suite, the results reader, the report, the claims and `bouncelab model`
 * cannot disagree on them:
 *
 *   read from   a results row's params (resultfile/ hands each value over
 *               as text), a claim's or a lesson's text
 *               ("update=locked,pin_work=0"), a --param option
 *               ("has_pinned.pin_work=0,1");
 *   written as  a case name's parts ("/pin_work:3"), a short form
 *               ("pin_work=3, flag_line=shared"), the options that
 *               reproduce it ("--param has_pinned.pin_work=3");
 *   asked       is it the default? does it match what a claim names?
 *
 * Placement and home are not parameters: the suite and the table key add
 * them beside the setting.
 */
#ifndef BOUNCELAB_SETTING_H
#define BOUNCELAB_SETTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

struct setting {
	const struct kernel_family *family;	/* NULL: no family known */
	/* every parameter's value: its default where none was named */
	long value[KERNEL_MAX_PARAMS];
	uint32_t named;		/* bit p: a value was named for parameter p */
	/*
	 * bit p: a value was named that parameter p does not take (a file
	 * written by hand or by another version): such a setting is never
	 * the default and matches nothing.
	 */
	uint32_t unreadable;
	/* a parameter this catalogue does not know was named */
	bool foreign;
};

/* Every parameter of family at its default, none named. */
void setting_init(struct setting *s, const struct kernel_family *family);

/* A setting of a configuration: every parameter named. */
void setting_of_config(struct setting *s, const struct kernel_family *family,
		       const struct kernel_config *cfg);

/* The configuration of a setting (variant and threads left as they are). */
void setting_to_config(const struct setting *s, struct kernel_config *cfg);

/*
 * Names one parameter's value as text ("64", or a choice's name).
 * Returns 0; -1 with err for a name the family lacks or a value it does
 * not take. The reader, which must keep going, records the same cases in
 * foreign and unreadable instead: setting_take(), where a NULL text is a
 * value of a type no parameter takes.
 */
int setting_set(struct setting *s, const char *name, const char *text,
		char *err, size_t errlen);
void setting_take(struct setting *s, const char *name, const char *text);

/*
 * A setting's text: "name=value" items separated by ',' (a claim's, a
 * lesson's), spaces after a comma allowed. Returns 0, or -1 with err.
 */
int setting_parse(struct setting *s, const struct kernel_family *family,
		  const char *text, char *err, size_t errlen);

/* Whether parameter p is at the catalogue's default (and readable). */
bool setting_param_is_default(const struct setting *s, unsigned int p);

/* Whether every parameter is at the catalogue's default. */
bool setting_is_default(const struct setting *s);

/*
 * Whether have gives each parameter want names the value want gives it
 * (the others are free): a claim's setting against a table's.
 */
bool setting_matches(const struct setting *want, const struct setting *have);

/* A parameter's value as the catalogue spells it: "64" or "shared". */
const char *param_value_text(const struct kernel_param *param, long value,
			     char *buf, size_t len);
const char *setting_value_text(const struct setting *s, unsigned int p,
			       char *buf, size_t len);

enum setting_spelling {
	/* "/pin_work:3/flag_line:shared": what differs from the default */
	SETTING_CASE_NAME,
	/* "pin_work=3, flag_line=shared": what differs, "" at the defaults */
	SETTING_CHANGES,
	/*
	 * "--param has_pinned.pin_work=3 --param ...": each parameter named,
	 * as run takes it (a claim's setting, to add to a run that lacks it)
	 */
	SETTING_OPTIONS,
};

/*
 * Writes the setting into buf in that spelling (truncated to len, always
 * terminated) and returns the length it needed.
 */
size_t setting_format(const struct setting *s, enum setting_spelling how,
		      char *buf, size_t len);

/* --param FAMILY.NAME=VALUE[,VALUE...]: one parameter and its values */
#define PARAM_OPTION_MAX_VALUES 64

struct param_option {
	const struct kernel_family *family;
	int param;
	unsigned int nr_values;
	long values[PARAM_OPTION_MAX_VALUES];
};

/*
 * Parses one --param option taking at most max_values values (1: a single
 * setting, as `bouncelab model` predicts one). Returns 0, or -1 with err
 * the whole message: "--param 'TEXT': ..." naming what was expected.
 */
int param_option_parse(const char *text, unsigned int max_values,
		       struct param_option *o, char *err, size_t errlen);

#endif
