// SPDX-License-Identifier: GPL-2.0-only
/*
 * kernels/setting.c, the one owner of a setting, against values written
 * out by hand from the catalogue's declarations: has_pinned's parameters
 * are pin_work (default 1, 0 to 64), flag_line (shared|alone, default
 * shared) and already_set (a percentage, default 100), in that
 * order; false_sharing's one is update (plain|locked, default locked).
 * Each spelling, each refusal's words, "is it the default?" and both
 * kinds of match, so that a setting read from a claim, a results row or
 * --param is the value the suite ran.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "catalog.h"
#include "seeds.h"
#include "setting.h"

static const struct kernel_family *family(const char *name)
{
	const struct kernel_family *f = catalog_find(name);

	assert_non_null(f);
	return f;
}

static unsigned int param(const struct kernel_family *f, const char *name)
{
	int p = kernel_param_index(f, name);

	assert_true(p >= 0);
	return (unsigned int)p;
}

/* The declarations this file's expectations were written from. */
static void test_catalogue_as_written_here(void **state)
{
	const struct kernel_family *hp = family("has_pinned");
	const struct kernel_family *fs = family("false_sharing");

	(void)state;
	assert_int_equal(hp->nr_params, 3);
	assert_string_equal(hp->params[0].name, "pin_work");
	assert_int_equal(hp->params[0].def, 1);
	assert_int_equal(hp->params[0].max, 64);
	assert_string_equal(hp->params[1].name, "flag_line");
	assert_string_equal(kernel_param_choice(&hp->params[1], hp->params[1].def), "shared");
	assert_string_equal(hp->params[2].name, "already_set");
	assert_int_equal(hp->params[2].def, 100);
	assert_int_equal(fs->nr_params, 1);
	assert_string_equal(kernel_param_choice(&fs->params[0], fs->params[0].def), "locked");
}

static void test_parse_and_spell(void **state)
{
	const struct kernel_family *hp = family("has_pinned");
	struct setting s;
	char buf[256], err[160];

	(void)state;
	/* a claim's text, with and without spaces; only what it names is named */
	assert_int_equal(setting_parse(&s, hp, "already_set=60, pin_work=3", err, sizeof(err)), 0);
	assert_int_equal(s.value[param(hp, "pin_work")], 3);
	assert_int_equal(s.value[param(hp, "already_set")], 60);
	assert_int_equal(s.value[param(hp, "flag_line")], 0);
	assert_int_equal(s.named, (1u << 0) | (1u << 2));
	assert_false(setting_is_default(&s));
	assert_false(setting_param_is_default(&s, 0));
	assert_true(setting_param_is_default(&s, 1));
	/* each spelling, in catalogue order, whatever order the text had */
	assert_int_equal(setting_format(&s, SETTING_CASE_NAME, buf, sizeof(buf)),
			 strlen("/pin_work:3/already_set:60"));
	assert_string_equal(buf, "/pin_work:3/already_set:60");
	setting_format(&s, SETTING_CHANGES, buf, sizeof(buf));
	assert_string_equal(buf, "pin_work=3, already_set=60");
	setting_format(&s, SETTING_OPTIONS, buf, sizeof(buf));
	assert_string_equal(buf, "--param has_pinned.pin_work=3 --param has_pinned.already_set=60");
	/* a choice by its name; a default named is still the default */
	assert_int_equal(setting_parse(&s, hp, "flag_line=shared,pin_work=1", err, sizeof(err)), 0);
	assert_true(setting_is_default(&s));
	setting_format(&s, SETTING_CHANGES, buf, sizeof(buf));
	assert_string_equal(buf, "");
	setting_format(&s, SETTING_OPTIONS, buf, sizeof(buf));
	assert_string_equal(buf, "--param has_pinned.pin_work=1 --param has_pinned.flag_line=shared");
	/* the empty text: the defaults, nothing named */
	assert_int_equal(setting_parse(&s, hp, "", err, sizeof(err)), 0);
	assert_int_equal(s.named, 0);
	assert_true(setting_is_default(&s));
	assert_int_equal(setting_format(&s, SETTING_CASE_NAME, buf, sizeof(buf)), 0);
	/* truncated, but terminated, and the length it needed */
	assert_int_equal(setting_parse(&s, hp, "pin_work=64", err, sizeof(err)), 0);
	assert_int_equal(setting_format(&s, SETTING_CASE_NAME, buf, 6), strlen("/pin_work:64"));
	assert_string_equal(buf, "/pin_");
}

static void test_refusals(void **state)
{
	const struct kernel_family *hp = family("has_pinned");
	const struct kernel_family *fs = family("false_sharing");
	struct setting s;
	char err[160];

	(void)state;
	assert_int_equal(setting_parse(&s, hp, "pin_work=65", err, sizeof(err)), -1);
	assert_string_equal(err, "pin_work='65': expected an integer from 0 to 64");
	assert_int_equal(setting_parse(&s, hp, "pin_work=-1", err, sizeof(err)), -1);
	assert_int_equal(setting_parse(&s, hp, "pin_work=0x3", err, sizeof(err)), -1);
	assert_int_equal(setting_parse(&s, hp, "nosuch=1", err, sizeof(err)), -1);
	assert_string_equal(err, "family has_pinned has no parameter 'nosuch' (see 'bouncelab list')");
	assert_int_equal(setting_parse(&s, hp, "pin_work", err, sizeof(err)), -1);
	assert_string_equal(err, "setting 'pin_work': expected NAME=VALUE[,NAME=VALUE...]");
	assert_int_equal(setting_parse(&s, hp, "=3", err, sizeof(err)), -1);
	assert_int_equal(setting_parse(&s, fs, "update=sideways", err, sizeof(err)), -1);
	assert_string_equal(err, "update='sideways': expected one of plain|locked");
	/* the boundaries are taken */
	assert_int_equal(setting_parse(&s, hp, "pin_work=0,already_set=0", err, sizeof(err)), 0);
	assert_int_equal(setting_parse(&s, hp, "pin_work=64,already_set=100", err, sizeof(err)), 0);
	/*
	 * A value or a name fills at most 63 characters of its 64: 62 zeros
	 * and a 7 (63 characters) are pin_work=7; 63 zeros and a 7 are
	 * refused whole, not cut to 63 zeros and read as 0. A name of 63 is
	 * looked up, of 64 refused.
	 */
	{
		char text[160], name[70];

		snprintf(text, sizeof(text), "pin_work=%063d", 7);
		assert_int_equal(setting_parse(&s, hp, text, err, sizeof(err)), 0);
		assert_int_equal(s.value[0], 7);
		snprintf(text, sizeof(text), "pin_work=%064d", 7);
		assert_int_equal(setting_parse(&s, hp, text, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "': expected NAME=VALUE[,NAME=VALUE...]"));
		memset(name, 'n', 63);
		name[63] = '\0';
		snprintf(text, sizeof(text), "%s=1", name);
		assert_int_equal(setting_parse(&s, hp, text, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "family has_pinned has no parameter 'nnn"));
		snprintf(text, sizeof(text), "%sn=1", name);
		assert_int_equal(setting_parse(&s, hp, text, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "': expected NAME=VALUE[,NAME=VALUE...]"));
	}
}

/* What the reader takes from a row: a known name, an unknown one, a bad value. */
static void test_taken_from_a_file(void **state)
{
	const struct kernel_family *hp = family("has_pinned");
	struct setting s, want;
	char buf[128], err[160];

	(void)state;
	setting_init(&s, hp);
	setting_take(&s, "pin_work", "0");
	setting_take(&s, "flag_line", "shared");
	setting_take(&s, "already_set", "100");
	assert_false(s.foreign);
	assert_int_equal(s.unreadable, 0);
	assert_int_equal(s.named, 7);
	assert_false(setting_is_default(&s));
	setting_format(&s, SETTING_CHANGES, buf, sizeof(buf));
	assert_string_equal(buf, "pin_work=0");
	/* a claim naming pin_work=0 finds it; one naming 2 does not */
	assert_int_equal(setting_parse(&want, hp, "pin_work=0", err, sizeof(err)), 0);
	assert_true(setting_matches(&want, &s));
	assert_int_equal(setting_parse(&want, hp, "pin_work=2", err, sizeof(err)), 0);
	assert_false(setting_matches(&want, &s));
	/* named-only matching leaves the others free: already_set=60 matches too */
	s.value[2] = 60;
	assert_int_equal(setting_parse(&want, hp, "pin_work=0", err, sizeof(err)), 0);
	assert_true(setting_matches(&want, &s));
	/* ... unless the want names every parameter (defaults where unnamed) */
	want.named = ~0u;
	assert_false(setting_matches(&want, &s));
	s.value[2] = 100;
	assert_true(setting_matches(&want, &s));
	/* another family never matches */
	setting_init(&want, family("false_sharing"));
	assert_false(setting_matches(&want, &s));

	/* a parameter of another version: foreign, the others still read */
	setting_take(&s, "future_knob", "7");
	assert_true(s.foreign);
	assert_int_equal(s.value[0], 0);
	/* a value the catalogue does not take (or a type: NULL): never default */
	setting_init(&s, hp);
	setting_take(&s, "flag_line", "sideways");
	assert_int_equal(s.unreadable, 1u << 1);
	assert_false(setting_param_is_default(&s, 1));
	assert_false(setting_is_default(&s));
	setting_init(&want, hp);
	assert_false(setting_matches(&want, &s));
	setting_init(&s, hp);
	setting_take(&s, "already_set", NULL);
	assert_int_equal(s.unreadable, 1u << 2);
	assert_int_equal(s.value[2], 100);
}

static void test_config_round_trip(void **state)
{
	const struct kernel_family *hp = family("has_pinned");
	struct kernel_config cfg, back;
	struct setting s;
	char buf[128];

	(void)state;
	kernel_config_defaults(hp, &cfg);
	cfg.param[0] = 16;
	cfg.param[2] = 20;
	setting_of_config(&s, hp, &cfg);
	assert_int_equal(s.named, 7);
	setting_format(&s, SETTING_CASE_NAME, buf, sizeof(buf));
	assert_string_equal(buf, "/pin_work:16/already_set:20");
	kernel_config_defaults(hp, &back);
	setting_to_config(&s, &back);
	assert_memory_equal(back.param, cfg.param, sizeof(cfg.param));
}

static void test_param_option(void **state)
{
	struct param_option o;
	char err[1024];

	(void)state;
	assert_int_equal(param_option_parse("has_pinned.already_set=0,50,100", 64, &o, err,
					    sizeof(err)), 0);
	assert_ptr_equal(o.family, family("has_pinned"));
	assert_int_equal(o.param, 2);
	assert_int_equal(o.nr_values, 3);
	assert_int_equal(o.values[0], 0);
	assert_int_equal(o.values[1], 50);
	assert_int_equal(o.values[2], 100);
	assert_int_equal(param_option_parse("false_sharing.update=plain", 1, &o, err,
					    sizeof(err)), 0);
	assert_int_equal(o.values[0], 0);
	assert_int_equal(o.nr_values, 1);

	static const struct {
		const char *text;
		unsigned int max;
		const char *says;
	} bad[] = {
		{ "has_pinned", 64, "--param 'has_pinned': expected FAMILY.NAME=VALUE[,VALUE...]" },
		{ "has_pinned.pin_work", 1, "--param 'has_pinned.pin_work': expected FAMILY.NAME=VALUE" },
		{ "x=1.y", 64, "--param 'x=1.y': expected FAMILY.NAME=VALUE[,VALUE...]" },
		{ "nosuch.pin_work=1", 64, "--param 'nosuch.pin_work=1': unknown family 'nosuch' (see 'bouncelab list')" },
		{ "has_pinned.nosuch=1", 64, "--param 'has_pinned.nosuch=1': family has_pinned has no parameter 'nosuch' (see 'bouncelab list')" },
		{ "has_pinned.pin_work=", 64, "--param 'has_pinned.pin_work=': expected at least one value" },
		{ "has_pinned.pin_work=0,,1", 64, "--param 'has_pinned.pin_work=0,,1': expected a value between commas" },
		{ "has_pinned.pin_work=0,1", 1, "--param 'has_pinned.pin_work=0,1': at most 1 value" },
		{ "has_pinned.pin_work=0,1,2", 2, "--param 'has_pinned.pin_work=0,1,2': at most 2 values" },
		{ "has_pinned.pin_work=0,1,0", 64, "--param 'has_pinned.pin_work=0,1,0': '0' is listed twice: expected each value once" },
		{ "has_pinned.pin_work=65", 64, "--param has_pinned.pin_work='65': expected an integer from 0 to 64" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(param_option_parse(bad[i].text, bad[i].max, &o, err, sizeof(err)), -1);
		assert_string_equal(err, bad[i].says);
	}
}

/*
 * The seeds' published settings are catalogue settings: each parses, its
 * variants are its family's, and the value one names reads back. The
 * gup_test figure names mode=shared and 4K pages, pin_fast mode=private.
 */
static void test_seed_settings(void **state)
{
	char text[64];

	(void)state;
	unsigned int n = 0;

	for (const struct seed_figure *f = catalog_next_seed(NULL); f; f = catalog_next_seed(f)) {
		const struct kernel_family *kf = family(f->family->name);
		struct setting s;

		/* attached to its family: found in its family's own table */
		assert_ptr_equal(kf, f->family);
		assert_true(f >= kf->seeds && f < kf->seeds + kf->nr_seeds);
		n++;
		assert_true(seed_setting(f, &s));
		assert_ptr_equal(s.family, kf);
		assert_true(catalog_variant_index(kf, f->before_variant) >= 0);
		assert_true(catalog_variant_index(kf, f->after_variant) >= 0);
		/* a seed's own setting is in itself; the defaults are not, unless it names none */
		assert_true(seed_setting_in(f, &s));
	}
	/* the three seeds: gup_test and pin_fast (gup), gup_benchmark (longterm_check) */
	assert_int_equal(n, 3);
	for (unsigned int i = 0; i < family("gup")->nr_seeds; i++) {
		const struct seed_figure *f = &family("gup")->seeds[i];
		struct setting s, other;
		int p;

		assert_true(seed_setting(f, &s));
		p = kernel_param_index(s.family, "mode");
		assert_true(p >= 0);
		assert_non_null(seed_setting_value(f, "mode", text, sizeof(text)));
		assert_true(!strcmp(text, "shared") || !strcmp(text, "private"));
		assert_null(seed_setting_value(f, "nosuch", text, sizeof(text)));
		/* the other mode is another setting */
		other = s;
		other.value[p] = !s.value[p];
		assert_false(seed_setting_in(f, &other));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalogue_as_written_here),
		cmocka_unit_test(test_parse_and_spell),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_taken_from_a_file),
		cmocka_unit_test(test_config_round_trip),
		cmocka_unit_test(test_param_option),
		cmocka_unit_test(test_seed_settings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
