// SPDX-License-Identifier: GPL-2.0-only
/*
 * A setting's one owner: its spellings and the questions asked of it
 * (setting.h). Everything that reads a setting from text or writes one
 * comes here, so that "pin_work=3" in a claim, "/pin_work:3" in a case
 * name and "--param has_pinned.pin_work=3" in the report's reproduce
 * line are one value.
 */
#include <stdio.h>
#include <string.h>

#include "catalog.h"
#include "setting.h"

void setting_init(struct setting *s, const struct kernel_family *family)
{
	memset(s, 0, sizeof(*s));
	s->family = family;
	for (unsigned int p = 0; family && p < family->nr_params; p++)
		s->value[p] = family->params[p].def;
}

void setting_of_config(struct setting *s, const struct kernel_family *family,
		       const struct kernel_config *cfg)
{
	setting_init(s, family);
	for (unsigned int p = 0; p < family->nr_params; p++) {
		s->value[p] = cfg->param[p];
		s->named |= 1u << p;
	}
}

void setting_to_config(const struct setting *s, struct kernel_config *cfg)
{
	for (unsigned int p = 0; s->family && p < s->family->nr_params; p++)
		cfg->param[p] = s->value[p];
}

int setting_set(struct setting *s, const char *name, const char *text,
		char *err, size_t errlen)
{
	int p = s->family ? kernel_param_index(s->family, name) : -1;

	if (p < 0) {
		snprintf(err, errlen, "family %s has no parameter '%s' (see 'bouncelab list')",
			 s->family ? s->family->name : "(none)", name);
		return -1;
	}
	if (kernel_param_parse(&s->family->params[p], text, &s->value[p], err, errlen))
		return -1;
	s->named |= 1u << p;
	return 0;
}

void setting_take(struct setting *s, const char *name, const char *text)
{
	int p = s->family ? kernel_param_index(s->family, name) : -1;
	char err[160];

	if (p < 0) {
		s->foreign = true;
		return;
	}
	s->named |= 1u << p;
	if (!text || kernel_param_parse(&s->family->params[p], text, &s->value[p],
					err, sizeof(err))) {
		s->value[p] = s->family->params[p].def;
		s->unreadable |= 1u << p;
	}
}

int setting_parse(struct setting *s, const struct kernel_family *family,
		  const char *text, char *err, size_t errlen)
{
	setting_init(s, family);
	for (const char *t = text ? text : ""; *t;) {
		size_t len = strcspn(t, ",");
		const char *eq = memchr(t, '=', len);
		char name[64], value[64];

		if (!eq || eq == t || (size_t)(eq - t) >= sizeof(name) ||
		    len - (size_t)(eq - t) - 1 >= sizeof(value)) {
			snprintf(err, errlen, "setting '%s': expected NAME=VALUE[,NAME=VALUE...]",
				 text);
			return -1;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(eq - t), t);
		snprintf(value, sizeof(value), "%.*s", (int)(len - (size_t)(eq - t) - 1), eq + 1);
		if (setting_set(s, name, value, err, errlen))
			return -1;
		t += len;
		while (*t == ',' || *t == ' ')
			t++;
	}
	return 0;
}

bool setting_param_is_default(const struct setting *s, unsigned int p)
{
	return !(s->unreadable & (1u << p)) && s->value[p] == s->family->params[p].def;
}

bool setting_is_default(const struct setting *s)
{
	for (unsigned int p = 0; s->family && p < s->family->nr_params; p++)
		if (!setting_param_is_default(s, p))
			return false;
	return true;
}

bool setting_matches(const struct setting *want, const struct setting *have)
{
	if (want->family != have->family)
		return false;
	for (unsigned int p = 0; want->family && p < want->family->nr_params; p++) {
		uint32_t bit = 1u << p;

		if (have->unreadable & bit)
			return false;
		if ((want->named & bit) && want->value[p] != have->value[p])
			return false;
	}
	return true;
}

const char *param_value_text(const struct kernel_param *param, long value,
			     char *buf, size_t len)
{
	const char *choice = kernel_param_choice(param, value);

	if (choice)
		snprintf(buf, len, "%s", choice);
	else
		snprintf(buf, len, "%ld", value);
	return buf;
}

const char *setting_value_text(const struct setting *s, unsigned int p,
			       char *buf, size_t len)
{
	return param_value_text(&s->family->params[p], s->value[p], buf, len);
}

size_t setting_format(const struct setting *s, enum setting_spelling how,
		      char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned int p = 0; s->family && p < s->family->nr_params; p++) {
		const char *name = s->family->params[p].name;
		char value[64];
		int n;

		if (how == SETTING_OPTIONS ? !(s->named & (1u << p)) :
					     setting_param_is_default(s, p))
			continue;
		setting_value_text(s, p, value, sizeof(value));
		if (how == SETTING_CASE_NAME)
			n = snprintf(buf + used, used < len ? len - used : 0, "/%s:%s",
				     name, value);
		else if (how == SETTING_CHANGES)
			n = snprintf(buf + used, used < len ? len - used : 0, "%s%s=%s",
				     used ? ", " : "", name, value);
		else
			n = snprintf(buf + used, used < len ? len - used : 0, "%s--param %s.%s=%s",
				     used ? " " : "", s->family->name, name, value);
		used += (size_t)n;
	}
	return used;
}

int param_option_parse(const char *text, unsigned int max_values,
		       struct param_option *o, char *err, size_t errlen)
{
	const char *dot = strchr(text, '.'), *eq = strchr(text, '=');
	const char *expected = max_values > 1 ? "FAMILY.NAME=VALUE[,VALUE...]" :
				"FAMILY.NAME=VALUE";
	char family[64], name[64], values[512], msg[256];
	char *item, *rest = values;

	memset(o, 0, sizeof(*o));
	if (max_values > PARAM_OPTION_MAX_VALUES)
		max_values = PARAM_OPTION_MAX_VALUES;
	if (!dot || !eq || eq < dot || (size_t)(dot - text) >= sizeof(family)) {
		snprintf(err, errlen, "--param '%s': expected %s", text, expected);
		return -1;
	}
	snprintf(family, sizeof(family), "%.*s", (int)(dot - text), text);
	o->family = catalog_find(family);
	if (!o->family) {
		snprintf(err, errlen, "--param '%s': unknown family '%s' (see 'bouncelab list')",
			 text, family);
		return -1;
	}
	if ((size_t)(eq - dot - 1) >= sizeof(name)) {
		snprintf(err, errlen,
			 "--param '%.80s': a parameter name of %d characters: expected at most %zu (see 'bouncelab list')",
			 text, (int)(eq - dot - 1), sizeof(name) - 1);
		return -1;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(eq - dot - 1), dot + 1);
	o->param = kernel_param_index(o->family, name);
	if (o->param < 0) {
		snprintf(err, errlen, "--param '%s': family %s has no parameter '%s' (see 'bouncelab list')",
			 text, o->family->name, name);
		return -1;
	}
	if (strlen(eq + 1) >= sizeof(values)) {
		snprintf(err, errlen, "--param '%.40s...': a value list of %zu characters: expected at most %zu",
			 text, strlen(eq + 1), sizeof(values) - 1);
		return -1;
	}
	snprintf(values, sizeof(values), "%s", eq + 1);
	if (!*values) {
		snprintf(err, errlen, "--param '%s': expected at least one value", text);
		return -1;
	}
	/* strsep, not strtok: "0,,1" has an empty value, which is an error. */
	while ((item = strsep(&rest, ","))) {
		if (!*item) {
			snprintf(err, errlen, "--param '%s': expected a value between commas", text);
			return -1;
		}
		if (o->nr_values == max_values) {
			snprintf(err, errlen, "--param '%s': at most %u value%s", text,
				 max_values, max_values == 1 ? "" : "s");
			return -1;
		}
		if (kernel_param_parse(&o->family->params[o->param], item,
				       &o->values[o->nr_values], msg, sizeof(msg))) {
			snprintf(err, errlen, "--param %s.%s", o->family->name, msg);
			return -1;
		}
		/* Two equal cases would share a name, and so each other's rows. */
		for (unsigned int i = 0; i < o->nr_values; i++) {
			if (o->values[i] == o->values[o->nr_values]) {
				snprintf(err, errlen, "--param '%s': '%s' is listed twice: expected each value once",
					 text, item);
				return -1;
			}
		}
		o->nr_values++;
	}
	return 0;
}
