// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CPU identity (topo/cpu_id.h) against signatures decoded by hand
 * from the vendors' documents, this machine's against the kernel's own
 * decoding in /proc/cpuinfo, and its reading back from a results file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cases.h"
#include "cpu_id.h"
#include "results_read.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Leaf 1 EAX: stepping [3:0], model [7:4], family [11:8], extended model
 * [19:16], extended family [27:20]. Each row decoded by hand: e.g.
 * 0x00A00F11 is extended family 0xA, base family 0xF (so 0xF + 0xA = 0x19),
 * extended model 0, model 1, stepping 1.
 */
static const struct {
	uint32_t eax;
	int family, model, stepping;
	const char *vendor, *microarchitecture, *part;
} signatures[] = {
	/* AMD revision guides: the CPUID Fn0000_0001_EAX of each part */
	{ 0x00800F12, 0x17, 0x01, 2, "AuthenticAMD", "Zen", "EPYC 7001 Naples B2" },
	{ 0x00800F82, 0x17, 0x08, 2, "AuthenticAMD", "Zen+", "Ryzen 2000 Pinnacle Ridge B2" },
	{ 0x00830F10, 0x17, 0x31, 0, "AuthenticAMD", "Zen 2", "EPYC 7002 Rome B0" },
	{ 0x00A00F11, 0x19, 0x01, 1, "AuthenticAMD", "Zen 3", "EPYC 7003 Milan B1" },
	{ 0x00A10F11, 0x19, 0x11, 1, "AuthenticAMD", "Zen 4", "EPYC 9004 Genoa B1" },
	{ 0x00B00F21, 0x1A, 0x02, 1, "AuthenticAMD", "Zen 5", "EPYC 9005 Turin" },
	/* family 0xF: the model is extended even with extended family 0 */
	{ 0x00020F12, 0x0F, 0x21, 2, "AuthenticAMD", "unknown", "Opteron 2xx (K8) E6" },
	{ 0x00000F29, 0x0F, 0x02, 9, "GenuineIntel", "unknown", "Pentium 4 Northwood D1" },
	/* Intel specification updates: the processor signature of each part */
	{ 0x000306F2, 6, 0x3F, 2, "GenuineIntel", "Haswell-E/EP/EX", "Xeon E5 v3 M1/R2" },
	{ 0x000406F1, 6, 0x4F, 1, "GenuineIntel", "Broadwell-E/EP/EX", "Xeon E5 v4 B0/M0/R0" },
	{ 0x00050654, 6, 0x55, 4, "GenuineIntel", "Skylake-SP", "Xeon Scalable H0/M0/U0" },
	{ 0x00050657, 6, 0x55, 7, "GenuineIntel", "Cascade Lake", "2nd gen Xeon Scalable B1/L1" },
	{ 0x000606A6, 6, 0x6A, 6, "GenuineIntel", "Ice Lake-SP", "3rd gen Xeon Scalable D2" },
	{ 0x000806F8, 6, 0x8F, 8, "GenuineIntel", "Sapphire Rapids", "4th gen Xeon Scalable E5" },
	{ 0x000C06F2, 6, 0xCF, 2, "GenuineIntel", "Emerald Rapids", "5th gen Xeon Scalable" },
	{ 0x000906EA, 6, 0x9E, 10, "GenuineIntel", "Coffee Lake", "Core 8th gen U0" },
	{ 0x00000633, 6, 0x03, 3, "GenuineIntel", "unknown", "Pentium II Klamath" },
	/*
	 * Not parts: the SDM's rules on bits a family ignores. The extended
	 * family counts only for base family 0xF, the extended model only
	 * for families 6 and 0xF.
	 */
	{ 0x00F00633, 6, 0x03, 3, "GenuineIntel", "unknown", "extended family set, family 6" },
	{ 0x00010543, 5, 0x04, 3, "GenuineIntel", "unknown", "extended model set, family 5" },
};

static void test_signatures_decode_as_the_vendors_document(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(signatures); i++) {
		struct cpu_id id = { .family = -1 };

		cpu_id_decode_signature(signatures[i].eax, &id);
		print_message("0x%08X (%s)\n", signatures[i].eax, signatures[i].part);
		assert_int_equal(id.family, signatures[i].family);
		assert_int_equal(id.model, signatures[i].model);
		assert_int_equal(id.stepping, signatures[i].stepping);
		assert_int_equal(id.signature, signatures[i].eax);
	}
}

static void test_each_part_has_its_microarchitecture(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(signatures); i++) {
		struct cpu_id id = { .implementer = -1 };

		snprintf(id.vendor, sizeof(id.vendor), "%s", signatures[i].vendor);
		cpu_id_decode_signature(signatures[i].eax, &id);
		print_message("%s\n", signatures[i].part);
		assert_string_equal(cpu_id_microarchitecture(&id),
				    signatures[i].microarchitecture);
	}
}

/* A part the table lacks is unknown, never its nearest neighbour. */
static void test_unlisted_parts_are_unknown(void **state)
{
	static const struct {
		const char *vendor;
		int family, model, stepping;
	} unlisted[] = {
		{ "GenuineIntel", 6, 0x55, 8 },		/* between Cascade and Cooper Lake */
		{ "GenuineIntel", 6, 0x8E, 10 },	/* a client model left out */
		{ "GenuineIntel", 0x19, 0x01, 1 },	/* AMD's family, Intel's vendor */
		{ "AuthenticAMD", 0x19, 0xF0, 0 },	/* beyond Linux's Zen 4 ranges */
		{ "AuthenticAMD", 0x1A, 0x30, 0 },	/* a gap in the Zen 5 ranges */
		{ "AuthenticAMD", 0x1B, 0x00, 0 },
		{ "HygonGenuine", 0x18, 0x00, 1 },
	};

	(void)state;
	for (size_t i = 0; i < N(unlisted); i++) {
		struct cpu_id id = { .family = unlisted[i].family, .model = unlisted[i].model,
				     .stepping = unlisted[i].stepping, .implementer = -1 };

		snprintf(id.vendor, sizeof(id.vendor), "%s", unlisted[i].vendor);
		assert_string_equal(cpu_id_microarchitecture(&id), "unknown");
	}
}

/* Two CPUs of an AWS Graviton2 (Neoverse N1), as Linux prints them. */
static const char graviton2[] =
	"processor\t: 0\nBogoMIPS\t: 243.75\n"
	"Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid\n"
	"CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\n"
	"CPU part\t: 0xd0c\nCPU revision\t: 1\n\n"
	"processor\t: 1\nBogoMIPS\t: 243.75\n"
	"CPU implementer\t: 0x48\nCPU architecture: 8\nCPU variant\t: 0x1\n"
	"CPU part\t: 0xd01\nCPU revision\t: 0\n\n";

static int parse_text(const char *text, struct cpu_id *id)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	assert_non_null(f);
	ret = cpu_id_parse_arm_cpuinfo(f, id);
	fclose(f);
	return ret;
}

static void test_arm_cpuinfo_gives_the_first_cpus_part(void **state)
{
	struct cpu_id id;

	(void)state;
	assert_int_equal(parse_text(graviton2, &id), 0);
	assert_string_equal(id.vendor, "ARM");
	assert_int_equal(id.implementer, 0x41);
	assert_int_equal(id.part, 0xd0c);
	assert_int_equal(id.variant, 3);
	assert_int_equal(id.revision, 1);
	assert_int_equal(id.family, -1);
	assert_string_equal(id.microarchitecture, "Neoverse N1");

	assert_int_equal(parse_text("CPU implementer\t: 0x99\nCPU part\t: 0x123\n", &id), 0);
	assert_string_equal(id.vendor, "0x99");
	assert_string_equal(id.microarchitecture, "unknown");

	/* x86's /proc/cpuinfo names no implementer */
	assert_int_equal(parse_text("vendor_id\t: AuthenticAMD\ncpu family\t: 25\n", &id), -1);
	assert_string_equal(id.microarchitecture, "unknown");
}

/* A /proc/cpuinfo field of the first CPU, or NULL. */
static char *cpuinfo_field(const char *key, char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	char *found = NULL;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon || strncmp(line, key, strlen(key)) ||
		    strspn(line + strlen(key), " \t") != (size_t)(colon - line) - strlen(key))
			continue;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon + 2);
		found = buf;
	}
	fclose(f);
	return found;
}

/* The kernel decodes the same leaf in its own code (arch/x86/kernel/cpu). */
static void test_this_cpu_matches_the_kernels_cpuinfo(void **state)
{
	char vendor[64], family[16], model[16], stepping[16];
	struct cpu_id id;

	(void)state;
#if defined(__x86_64__) || defined(__i386__)
	assert_int_equal(cpu_id_read(&id), 0);
	assert_non_null(cpuinfo_field("vendor_id", vendor, sizeof(vendor)));
	assert_non_null(cpuinfo_field("cpu family", family, sizeof(family)));
	assert_non_null(cpuinfo_field("model", model, sizeof(model)));
	assert_non_null(cpuinfo_field("stepping", stepping, sizeof(stepping)));
	assert_string_equal(id.vendor, vendor);
	assert_int_equal(id.family, atoi(family));
	assert_int_equal(id.model, atoi(model));
	assert_int_equal(id.stepping, atoi(stepping));
#else
	(void)id; (void)vendor; (void)family; (void)model; (void)stepping;
	skip_because("not x86: no cpuid leaf to compare with /proc/cpuinfo");
#endif
}

/* Reads a results file whose context is ctx_json; returns results_read's. */
static int read_context(const char *ctx_json, struct results *set, char *err,
			size_t errlen)
{
	char path[] = "/tmp/test_cpu_id_XXXXXX";
	int fd = mkstemp(path), ret;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	assert_non_null(f);
	fprintf(f, "{\"context\": %s, \"benchmarks\": []}\n", ctx_json);
	fclose(f);
	memset(set, 0, sizeof(*set));
	ret = results_read(set, path, err, errlen);
	unlink(path);
	return ret;
}

static void test_results_files_give_the_identity_or_say_it_is_missing(void **state)
{
	static const char milan[] = "{\"cpu\": {\"vendor\": \"AuthenticAMD\", \"family\": 25, "
		"\"model\": 1, \"stepping\": 1, \"signature\": \"0x00a00f11\", "
		"\"microarchitecture\": \"Zen 3\"}}";
	struct results set;
	char err[512];

	(void)state;
	assert_int_equal(read_context(milan, &set, err, sizeof(err)), 0);
	assert_true(set.files[0].run.cpu.recorded);
	assert_string_equal(set.files[0].run.cpu.vendor, "AuthenticAMD");
	assert_int_equal(set.files[0].run.cpu.family, 25);
	assert_int_equal(set.files[0].run.cpu.model, 1);
	assert_int_equal(set.files[0].run.cpu.stepping, 1);
	assert_int_equal(set.files[0].run.cpu.part, -1);
	assert_string_equal(set.files[0].run.cpu.microarchitecture, "Zen 3");
	results_free(&set);

	/* a file from before context.cpu */
	assert_int_equal(read_context("{\"cpu_model\": \"AMD EPYC\"}", &set, err, sizeof(err)), 0);
	assert_false(set.files[0].run.cpu.recorded);
	assert_null(set.files[0].run.cpu.vendor);
	assert_int_equal(set.files[0].run.cpu.family, -1);
	results_free(&set);

	assert_int_equal(read_context("{\"cpu\": {\"vendor\": \"ARM\", \"implementer\": 65, "
				      "\"part\": 3340, \"variant\": 3, \"revision\": 1}}",
				      &set, err, sizeof(err)), 0);
	assert_int_equal(set.files[0].run.cpu.part, 0xd0c);
	assert_int_equal(set.files[0].run.cpu.family, -1);
	assert_null(set.files[0].run.cpu.microarchitecture);
	results_free(&set);
}

static void test_a_bad_identity_is_refused_by_name(void **state)
{
	static const struct {
		const char *ctx, *says;
	} bad[] = {
		{ "{\"cpu\": \"AMD\"}", "context.cpu: expected an object" },
		{ "{\"cpu\": {\"family\": 25}}",
		  "context.cpu.vendor: expected a non-empty string" },
		{ "{\"cpu\": {\"vendor\": \"AuthenticAMD\", \"family\": \"25\"}}",
		  "context.cpu.family: expected an integer from 0 to 270" },
		{ "{\"cpu\": {\"vendor\": \"AuthenticAMD\", \"stepping\": 16}}",
		  "context.cpu.stepping: expected an integer from 0 to 15, found 16" },
	};
	struct results set;
	char err[512];

	(void)state;
	for (size_t i = 0; i < N(bad); i++) {
		assert_int_equal(read_context(bad[i].ctx, &set, err, sizeof(err)), -1);
		print_message("%s\n", err);
		assert_non_null(strstr(err, bad[i].says));
		results_free(&set);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signatures_decode_as_the_vendors_document),
		cmocka_unit_test(test_each_part_has_its_microarchitecture),
		cmocka_unit_test(test_unlisted_parts_are_unknown),
		cmocka_unit_test(test_arm_cpuinfo_gives_the_first_cpus_part),
		cmocka_unit_test(test_this_cpu_matches_the_kernels_cpuinfo),
		cmocka_unit_test(test_results_files_give_the_identity_or_say_it_is_missing),
		cmocka_unit_test(test_a_bad_identity_is_refused_by_name),
	};

	return run_cases("cpu_id", tests, argc, argv);
}
