// SPDX-License-Identifier: GPL-2.0-only
/*
 * The lessons' texts quote no number the run does not produce.
 *
 * Every text a reader is taught by (title, lesson, lesson line, exercise)
 * of every family in the catalogue is read for a measured number: digits
 * followed by "x", "ns", "%", "per cent" or "times", or "N in M". Such a
 * number is either a placeholder the report fills in from the run
 * (report/lesson_text.h), or it names where it came from: a seed's
 * figure in a sentence that names the seed (its benchmark, as
 * report/seeds.c lists them, or "seed"), or a machine and the year it was
 * measured ("on a Zen 5 guest in 2026"). Numbers that are no measurement
 * ("128 bytes", "64 updates") do not match.
 *
 * The placeholders name the family's variants and parameters, and expand
 * to the numbers the report's tables print: checked on
 * tests/data/results-fixed.json against tests/data/report-expected.tsv,
 * which numpy and scipy computed from the same file (tests/oracles/).
 *
 * Usage: test_lessons SOURCE_DIR/tests
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis.h"
#include "cases.h"
#include "catalog.h"
#include "lesson_text.h"
#include "results_read.h"
#include "seeds.h"

static const char *tests_dir;

struct text_field {
	const char *name;
	const char *text;
};

/* The texts of f a reader is taught by; returns how many (a NULL text is skipped). */
static size_t lesson_texts(const struct kernel_family *f, struct text_field *out)
{
	const struct text_field all[] = {
		{ "title", f->title },
		{ "lesson", f->lesson },
		{ "lesson_line", f->lesson_line },
		{ "exercise_question", f->exercise_question },
		{ "exercise_reading", f->exercise_reading },
	};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i].text)
			out[n++] = all[i];
	return n;
}

static bool word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Length of the measured number at s (a digit not inside a word), or 0. */
static size_t measured_number(const char *start, const char *s)
{
	const char *p = s, *unit;

	if (!isdigit((unsigned char)*s) || (s > start && (word_char(s[-1]) || s[-1] == '.')))
		return 0;
	while (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1])))
		p++;
	unit = p + (*p == ' ');
	if ((*unit == 'x' && !word_char(unit[1])) || *unit == '%' ||
	    (!strncmp(unit, "ns", 2) && !word_char(unit[2])) ||
	    !strncmp(unit, "per cent", 8) ||
	    (!strncmp(unit, "times", 5) && !word_char(unit[5])) ||
	    (!strncmp(unit, "in ", 3) && isdigit((unsigned char)unit[3])))
		return (size_t)(p - s) + 1;
	return 0;
}

/* Whether a sentence names a seed: the word "seed", or a seed figure's benchmark. */
static bool names_seed(const char *sentence)
{
	for (const char *p = strstr(sentence, "seed"); p; p = strstr(p + 1, "seed"))
		if ((p == sentence || !word_char(p[-1])) && !word_char(p[4]) && p[4] != 's')
			return true;
	for (const struct seed_figure *sf = catalog_next_seed(NULL); sf; sf = catalog_next_seed(sf)) {
		const char *b = sf->benchmark;

		/* its tool names: "gup_test", "will-it-scale", "pin_fast" */
		for (const char *w = b; *w; w += strspn(w, " ,()")) {
			size_t len = strcspn(w, " ,()");
			char name[64];

			snprintf(name, sizeof(name), "%.*s", (int)len, w);
			if (isalpha((unsigned char)name[0]) && strpbrk(name, "_-") &&
			    strstr(sentence, name))
				return true;
			w += len;
		}
	}
	return false;
}

/* Whether a sentence names a machine and the year it was measured. */
static bool names_machine(const char *sentence)
{
	static const char *const machines[] = { "guest", "machine", "host", "VM" };
	bool year = false;

	for (const char *p = sentence; *p; p++)
		if ((p == sentence || !word_char(p[-1])) && !strncmp(p, "20", 2) &&
		    isdigit((unsigned char)p[2]) && isdigit((unsigned char)p[3]) && !word_char(p[4]))
			year = true;
	for (size_t i = 0; year && i < sizeof(machines) / sizeof(machines[0]); i++)
		if (strstr(sentence, machines[i]))
			return true;
	return false;
}

/* text without its placeholders: what is left is the text's own. */
static char *without_placeholders(const char *text)
{
	char *out = malloc(strlen(text) + 1), *o = out;
	struct lesson_placeholder ph;

	assert_non_null(out);
	for (const char *p = text; *p;) {
		if (*p == '{' && !lesson_placeholder_parse(p, &ph)) {
			p += ph.len;
			continue;
		}
		*o++ = *p++;
	}
	*o = '\0';
	return out;
}

/* Whether text holds a measured number that names no source; where, if so. */
static bool bare_number(const char *text, char *where, size_t len)
{
	char *own = without_placeholders(text);
	const char *sentence = own;
	bool found = false;

	while (*sentence && !found) {
		const char *end = strstr(sentence, ". ");
		size_t n = end ? (size_t)(end - sentence) + 1 : strlen(sentence);
		char *s = strndup(sentence, n);

		assert_non_null(s);
		for (const char *p = s; *p && !found; p++) {
			size_t k = measured_number(s, p);

			if (k && !names_seed(s) && !names_machine(s)) {
				snprintf(where, len, "\"%.*s\" in \"%s\"", (int)k, p, s);
				found = true;
			}
		}
		free(s);
		sentence += n;
		sentence += strspn(sentence, " ");
	}
	free(own);
	return found;
}

/* The detector itself, on sentences whose answer is known. */
static void test_detector(void **state)
{
	static const char *const bare[] = {
		"a few per cent of a call, measured 3 per cent",
		"about 1.05x alone",
		"on the AMD guest it was 1.3x to 1.5x at 2 threads",
		"5 to 7 in 100 (retries_per_success)",
		"2 to 4 times slower (AMD), about 1 ns per update",
		"a gap of 22% here",
		"{ns:a@2} or 250 ns",
	};
	static const char *const fine[] = {
		"(pin_fast: 46.6x on 256 CPUs)",
		"gup_benchmark (seed 002) saw about 17% less time",
		"on a Zen 5 guest in 2026 it was 1.05x",
		"padded to 128 bytes, read every 64 updates, on x86 and at nr_pages=1",
		"cmpxchg_loop over xchg at 2 threads: {ratio:cmpxchg_loop/xchg@2}.",
		"Linux 5.14 and 0x7f",
	};
	char where[512];

	(void)state;
	for (size_t i = 0; i < sizeof(bare) / sizeof(bare[0]); i++)
		if (!bare_number(bare[i], where, sizeof(where)))
			fail_msg("not caught: %s", bare[i]);
	for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++)
		if (bare_number(fine[i], where, sizeof(where)))
			fail_msg("caught wrongly: %s", where);
}

/* No lesson text of the catalogue states a number from another machine as a fact. */
static void test_no_bare_numbers(void **state)
{
	unsigned int failures = 0;

	(void)state;
	for (unsigned int i = 0; i < catalog_size; i++) {
		struct text_field texts[8];
		size_t n = lesson_texts(catalog[i], texts);
		char where[1024];

		for (size_t k = 0; k < n; k++) {
			if (!bare_number(texts[k].text, where, sizeof(where)))
				continue;
			print_error("%s: %s quotes a measured number that names no source (use a "
				    "placeholder, or name the seed or the machine and year): %s\n",
				    catalog[i]->name, texts[k].name, where);
			failures++;
		}
	}
	assert_int_equal(failures, 0);
}

/* A setting's items name parameters of f and values they take. */
static bool valid_setting(const struct kernel_family *f, const char *setting, char *why,
			  size_t len)
{
	for (const char *s = setting; *s;) {
		size_t n = strcspn(s, ",");
		char item[128], err[256];
		char *eq;
		long v;
		int p;

		snprintf(item, sizeof(item), "%.*s", (int)n, s);
		eq = strchr(item, '=');
		if (!eq) {
			snprintf(why, len, "setting item '%s' is not name=value", item);
			return false;
		}
		*eq = '\0';
		p = kernel_param_index(f, item);
		if (p < 0 || kernel_param_parse(&f->params[p], eq + 1, &v, err, sizeof(err))) {
			snprintf(why, len, "setting '%s=%s': %s", item, eq + 1,
				 p < 0 ? "no such parameter" : err);
			return false;
		}
		s += n + (s[n] == ',');
	}
	return true;
}

/* Whether f can measure placeholder ph; if not, why. */
static bool valid_placeholder(const struct kernel_family *f,
			      const struct lesson_placeholder *ph, char *why, size_t len)
{
	if (catalog_variant_index(f, ph->a) < 0 ||
	    (ph->what == LESSON_RATIO && catalog_variant_index(f, ph->b) < 0)) {
		snprintf(why, len, "no variant %s", catalog_variant_index(f, ph->a) < 0 ? ph->a : ph->b);
		return false;
	}
	if ((f->min_threads && ph->threads < f->min_threads) ||
	    (f->max_threads && ph->threads > f->max_threads)) {
		snprintf(why, len, "%ld threads: the family runs %u to %u", ph->threads,
			 f->min_threads, f->max_threads);
		return false;
	}
	return valid_setting(f, ph->setting, why, len);
}

/* Every brace in a lesson text opens a placeholder of the family's own cases. */
static void test_placeholders_name_real_cases(void **state)
{
	unsigned int failures = 0, nr = 0;

	(void)state;
	for (unsigned int i = 0; i < catalog_size; i++) {
		struct text_field texts[8];
		size_t n = lesson_texts(catalog[i], texts);

		for (size_t k = 0; k < n; k++) {
			for (const char *p = strchr(texts[k].text, '{'); p; p = strchr(p + 1, '{')) {
				struct lesson_placeholder ph;
				char why[512] = "not a placeholder ({ratio:A/B@T[:SETTING]} or {ns:A@T[:SETTING]})";

				if (!lesson_placeholder_parse(p, &ph) &&
				    valid_placeholder(catalog[i], &ph, why, sizeof(why))) {
					nr++;
					continue;
				}
				print_error("%s: %s: \"%.40s\": %s\n", catalog[i]->name, texts[k].name,
					    p, why);
				failures++;
			}
		}
	}
	assert_int_equal(failures, 0);
	assert_true(nr > 0);
}

/* Malformed placeholders stay text; well-formed ones parse to their parts. */
static void test_parse(void **state)
{
	static const char *const bad[] = {
		"{ratio:a@2}", "{ratio:a/b}", "{ns:a@0}", "{ns:a@2:}", "{ns:A@2}", "{ns:a@2",
		"{mean:a@2}", "{ratio:a/@2}",
	};
	struct lesson_placeholder ph;
	char *words;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!lesson_placeholder_parse(bad[i], &ph))
			fail_msg("parsed: %s", bad[i]);
	assert_int_equal(lesson_placeholder_parse("{ratio:same_line/padded_128@16:update=plain}.",
						  &ph), 0);
	assert_int_equal(ph.what, LESSON_RATIO);
	assert_string_equal(ph.a, "same_line");
	assert_string_equal(ph.b, "padded_128");
	assert_int_equal(ph.threads, 16);
	assert_string_equal(ph.setting, "update=plain");
	assert_int_equal(ph.len, strlen("{ratio:same_line/padded_128@16:update=plain}"));
	words = lesson_in_words("a {ns:x@1} b {ns:x@} c");
	assert_non_null(words);
	assert_string_equal(words, "a (measured in your run) b {ns:x@} c");
	free(words);
}

/* ---- the expansion against the oracle's numbers ---- */

struct fixture {
	struct results set;
	struct result_cases cases;
	struct analysis a;
	const struct family_view *f;
};

static int setup_fixture(void **state)
{
	static struct fixture fx;
	char path[PATH_MAX], err[512];

	memset(&fx, 0, sizeof(fx));
	snprintf(path, sizeof(path), "%s/data/results-fixed.json", tests_dir);
	if (results_read(&fx.set, path, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	if (result_cases_build(&fx.set, &fx.cases) || analysis_build(&fx.set, &fx.cases, &fx.a))
		return -1;
	for (size_t i = 0; i < fx.a.nr_families; i++)
		if (!strcmp(fx.a.families[i].name, "has_pinned"))
			fx.f = &fx.a.families[i];
	*state = &fx;
	return fx.f ? 0 : -1;
}

static int teardown_fixture(void **state)
{
	struct fixture *fx = *state;

	analysis_free(&fx->a);
	result_cases_free(&fx->cases);
	results_free(&fx->set);
	return 0;
}

/*
 * A number from report-expected.tsv: the first line whose leading fields
 * are key (tab-separated), its field at column col (from 0).
 */
static double oracle(const char *key, int col)
{
	char path[PATH_MAX], line[2048];
	double v = NAN;
	FILE *f;

	snprintf(path, sizeof(path), "%s/data/report-expected.tsv", tests_dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (isnan(v) && fgets(line, sizeof(line), f)) {
		char *field = line;

		if (strncmp(line, key, strlen(key)) || line[strlen(key)] != '\t')
			continue;
		for (int i = 0; i < col && field; i++) {
			field = strchr(field, '\t');
			field = field ? field + 1 : NULL;
		}
		assert_non_null(field);
		v = strtod(field, NULL);
	}
	fclose(f);
	assert_false(isnan(v));
	return v;
}

/* The number an expansion wrote, within the rounding of its digits of want. */
static void assert_expands_to(const struct fixture *fx, const char *text, double want,
			      const char *unit)
{
	char *got = lesson_expand(text, &fx->a, fx->f), *end;
	double v;

	assert_non_null(got);
	v = strtod(got, &end);
	if (end == got || strcmp(end, unit) || fabs(v - want) > 0.0051 * fmax(1, want))
		fail_msg("%s expanded to '%s', the table's number is %g%s", text, got, want, unit);
	free(got);
}

#define SETTING_0 "has_pinned\tpin_work=0, flag_line=shared, placement compact"
#define SETTING_1 "has_pinned\tpin_work=1, flag_line=shared, placement compact"

static void test_expansion_gives_the_tables_numbers(void **state)
{
	const struct fixture *fx = *state;
	char *got;

	/* the before-and-after table's gain (column 6 of a gain row) */
	assert_expands_to(fx, "{ratio:store_always/read_then_set@2}",
			  oracle("gain\t" SETTING_1 "\t2\tstore_always\tread_then_set", 6), "x");
	assert_expands_to(fx, "{ratio:store_always/read_then_set@4:pin_work=0}",
			  oracle("gain\t" SETTING_0 "\t4\tstore_always\tread_then_set", 6), "x");
	/* × best (column 14) where b is the best at that thread count */
	assert_expands_to(fx, "{ratio:set_bit_always/read_then_set@2:pin_work=0}",
			  oracle("case\t" SETTING_0 "\t2\tset_bit_always", 14), "x");
	/* the median ns/op (column 6 of a case row) */
	assert_expands_to(fx, "{ns:test_and_set_bit@4}",
			  oracle("case\t" SETTING_1 "\t4\ttest_and_set_bit", 6), " ns");
	assert_expands_to(fx, "{ns:nop@1:pin_work=0}",
			  oracle("case\t" SETTING_0 "\t1\tnop", 6), " ns");

	/* what the run did not measure, and the text around placeholders */
	got = lesson_expand("at 64 threads: {ns:nop@64}; {ratio:nop/no_flag@1}; "
			    "{ns:nop@1:pin_work=7}; {ns:nop@1:already_set=0}.", &fx->a, fx->f);
	assert_non_null(got);
	assert_string_equal(got, "at 64 threads: n/a in this run; n/a in this run; "
			    "n/a in this run; n/a in this run.");
	free(got);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest catalogue[] = {
		cmocka_unit_test(test_detector),
		cmocka_unit_test(test_no_bare_numbers),
		cmocka_unit_test(test_placeholders_name_real_cases),
		cmocka_unit_test(test_parse),
	};
	const struct CMUnitTest expansion[] = {
		cmocka_unit_test(test_expansion_gives_the_tables_numbers),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test_lessons SOURCE_DIR/tests\n");
		return 2;
	}
	tests_dir = argv[1];
	return cmocka_run_group_tests(catalogue, NULL, NULL) |
	       cmocka_run_group_tests(expansion, setup_fixture, teardown_fixture);
}
