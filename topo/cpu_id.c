// SPDX-License-Identifier: GPL-2.0-only
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "cpu_id.h"

/* A run of models (and steppings) of one x86 family, and its name. */
struct x86_part {
	const char *vendor;
	int family, model_lo, model_hi, stepping_lo, stepping_hi;
	const char *name;
};

#define AMD "AuthenticAMD"
#define INTEL "GenuineIntel"
#define ANY_STEPPING 0, 15

/*
 * AMD: the model ranges of Linux's X86_FEATURE_ZEN1..ZEN5 (arch/x86/
 * kernel/cpu/amd.c), which counts Zen+ as Zen 1; Zen+ is family 0x17
 * models 0x08 (Pinnacle Ridge, Colfax) and 0x18 (Picasso), listed first.
 * Intel: family 6 models of Linux's arch/x86/include/asm/intel-family.h;
 * model 0x55 is three generations told apart by stepping (Skylake-SP 0-4,
 * Cascade Lake 5-7, Cooper Lake 10-11), model 0x9E two (Kaby Lake 9,
 * Coffee Lake 10-13). The first entry that matches wins.
 */
static const struct x86_part x86_parts[] = {
	{ AMD, 0x17, 0x08, 0x08, ANY_STEPPING, "Zen+" },
	{ AMD, 0x17, 0x18, 0x18, ANY_STEPPING, "Zen+" },
	{ AMD, 0x17, 0x00, 0x2f, ANY_STEPPING, "Zen" },
	{ AMD, 0x17, 0x50, 0x5f, ANY_STEPPING, "Zen" },
	{ AMD, 0x17, 0x30, 0x4f, ANY_STEPPING, "Zen 2" },
	{ AMD, 0x17, 0x60, 0x7f, ANY_STEPPING, "Zen 2" },
	{ AMD, 0x17, 0x90, 0x91, ANY_STEPPING, "Zen 2" },
	{ AMD, 0x17, 0xa0, 0xaf, ANY_STEPPING, "Zen 2" },
	{ AMD, 0x19, 0x00, 0x0f, ANY_STEPPING, "Zen 3" },
	{ AMD, 0x19, 0x20, 0x5f, ANY_STEPPING, "Zen 3" },
	{ AMD, 0x19, 0x10, 0x1f, ANY_STEPPING, "Zen 4" },
	{ AMD, 0x19, 0x60, 0xaf, ANY_STEPPING, "Zen 4" },
	{ AMD, 0x1a, 0x00, 0x2f, ANY_STEPPING, "Zen 5" },
	{ AMD, 0x1a, 0x40, 0x4f, ANY_STEPPING, "Zen 5" },
	{ AMD, 0x1a, 0x60, 0x7f, ANY_STEPPING, "Zen 5" },
	/* Intel servers */
	{ INTEL, 6, 0x2d, 0x2d, ANY_STEPPING, "Sandy Bridge-E/EP" },
	{ INTEL, 6, 0x3e, 0x3e, ANY_STEPPING, "Ivy Bridge-E/EP/EX" },
	{ INTEL, 6, 0x3f, 0x3f, ANY_STEPPING, "Haswell-E/EP/EX" },
	{ INTEL, 6, 0x4f, 0x4f, ANY_STEPPING, "Broadwell-E/EP/EX" },
	{ INTEL, 6, 0x56, 0x56, ANY_STEPPING, "Broadwell-DE" },
	{ INTEL, 6, 0x55, 0x55, 0, 4, "Skylake-SP" },
	{ INTEL, 6, 0x55, 0x55, 5, 7, "Cascade Lake" },
	{ INTEL, 6, 0x55, 0x55, 10, 11, "Cooper Lake" },
	{ INTEL, 6, 0x6a, 0x6a, ANY_STEPPING, "Ice Lake-SP" },
	{ INTEL, 6, 0x6c, 0x6c, ANY_STEPPING, "Ice Lake-D" },
	{ INTEL, 6, 0x8f, 0x8f, ANY_STEPPING, "Sapphire Rapids" },
	{ INTEL, 6, 0xcf, 0xcf, ANY_STEPPING, "Emerald Rapids" },
	{ INTEL, 6, 0xad, 0xad, ANY_STEPPING, "Granite Rapids" },
	{ INTEL, 6, 0xaf, 0xaf, ANY_STEPPING, "Sierra Forest" },
	/* Intel clients */
	{ INTEL, 6, 0x2a, 0x2a, ANY_STEPPING, "Sandy Bridge" },
	{ INTEL, 6, 0x3a, 0x3a, ANY_STEPPING, "Ivy Bridge" },
	{ INTEL, 6, 0x3c, 0x3c, ANY_STEPPING, "Haswell" },
	{ INTEL, 6, 0x45, 0x46, ANY_STEPPING, "Haswell" },
	{ INTEL, 6, 0x3d, 0x3d, ANY_STEPPING, "Broadwell" },
	{ INTEL, 6, 0x47, 0x47, ANY_STEPPING, "Broadwell" },
	{ INTEL, 6, 0x4e, 0x4e, ANY_STEPPING, "Skylake" },
	{ INTEL, 6, 0x5e, 0x5e, ANY_STEPPING, "Skylake" },
	{ INTEL, 6, 0x9e, 0x9e, 9, 9, "Kaby Lake" },
	{ INTEL, 6, 0x9e, 0x9e, 10, 13, "Coffee Lake" },
	{ INTEL, 6, 0xa5, 0xa6, ANY_STEPPING, "Comet Lake" },
	{ INTEL, 6, 0x7d, 0x7e, ANY_STEPPING, "Ice Lake" },
	{ INTEL, 6, 0x8c, 0x8d, ANY_STEPPING, "Tiger Lake" },
	{ INTEL, 6, 0xa7, 0xa7, ANY_STEPPING, "Rocket Lake" },
	{ INTEL, 6, 0x97, 0x97, ANY_STEPPING, "Alder Lake" },
	{ INTEL, 6, 0x9a, 0x9a, ANY_STEPPING, "Alder Lake" },
	{ INTEL, 6, 0xb7, 0xb7, ANY_STEPPING, "Raptor Lake" },
	{ INTEL, 6, 0xba, 0xba, ANY_STEPPING, "Raptor Lake" },
	{ INTEL, 6, 0xbf, 0xbf, ANY_STEPPING, "Raptor Lake" },
	{ INTEL, 6, 0xaa, 0xaa, ANY_STEPPING, "Meteor Lake" },
};

/* Arm: MIDR implementer codes and parts (Arm's TRMs; Linux's cputype.h). */
static const struct {
	int code;
	const char *name;
} arm_implementers[] = {
	{ 0x41, "ARM" }, { 0x42, "Broadcom" }, { 0x43, "Cavium" },
	{ 0x46, "Fujitsu" }, { 0x48, "HiSilicon" }, { 0x4e, "NVIDIA" },
	{ 0x51, "Qualcomm" }, { 0x61, "Apple" }, { 0xc0, "Ampere" },
};

static const struct {
	int implementer, part;
	const char *name;
} arm_parts[] = {
	{ 0x41, 0xd03, "Cortex-A53" }, { 0x41, 0xd07, "Cortex-A57" },
	{ 0x41, 0xd08, "Cortex-A72" }, { 0x41, 0xd0b, "Cortex-A76" },
	{ 0x41, 0xd0c, "Neoverse N1" }, { 0x41, 0xd40, "Neoverse V1" },
	{ 0x41, 0xd49, "Neoverse N2" }, { 0x41, 0xd4f, "Neoverse V2" },
	{ 0x48, 0xd01, "TaiShan v110" }, { 0xc0, 0xac3, "AmpereOne" },
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static void cpu_id_init(struct cpu_id *id)
{
	memset(id, 0, sizeof(*id));
	id->family = id->model = id->stepping = -1;
	id->implementer = id->part = id->variant = id->revision = -1;
	id->microarchitecture = "unknown";
}

/*
 * The extended family counts only when the base family is 0xF; the
 * extended model extends the model of families 6 and 0xF (Intel's rule,
 * which AMD's family 0xF and later also follow).
 */
void cpu_id_decode_signature(uint32_t eax, struct cpu_id *id)
{
	unsigned int base_family = (eax >> 8) & 0xf, base_model = (eax >> 4) & 0xf;

	id->signature = eax;
	id->stepping = (int)(eax & 0xf);
	id->family = (int)base_family;
	if (base_family == 0xf)
		id->family += (int)((eax >> 20) & 0xff);
	id->model = (int)base_model;
	if (base_family == 6 || base_family == 0xf)
		id->model += (int)(((eax >> 16) & 0xf) << 4);
}

static const char *x86_microarchitecture(const struct cpu_id *id)
{
	for (size_t i = 0; i < ARRAY_LEN(x86_parts); i++) {
		const struct x86_part *p = &x86_parts[i];

		if (!strcmp(p->vendor, id->vendor) && p->family == id->family &&
		    id->model >= p->model_lo && id->model <= p->model_hi &&
		    id->stepping >= p->stepping_lo && id->stepping <= p->stepping_hi)
			return p->name;
	}
	return "unknown";
}

const char *cpu_id_microarchitecture(const struct cpu_id *id)
{
	if (id->family >= 0)
		return x86_microarchitecture(id);
	for (size_t i = 0; i < ARRAY_LEN(arm_parts); i++)
		if (arm_parts[i].implementer == id->implementer &&
		    arm_parts[i].part == id->part)
			return arm_parts[i].name;
	return "unknown";
}

/* "CPU part\t: 0xd0c" -> 0xd0c for key "CPU part"; -1 if line is another key. */
static int cpuinfo_number(const char *line, const char *key)
{
	size_t len = strlen(key);
	const char *colon;

	if (strncmp(line, key, len) || (line[len] != ' ' && line[len] != '\t'))
		return -1;
	colon = strchr(line + len, ':');
	return colon ? (int)strtol(colon + 1, NULL, 0) : -1;
}

static void arm_vendor(struct cpu_id *id)
{
	snprintf(id->vendor, sizeof(id->vendor), "0x%02x", id->implementer);
	for (size_t i = 0; i < ARRAY_LEN(arm_implementers); i++)
		if (arm_implementers[i].code == id->implementer)
			snprintf(id->vendor, sizeof(id->vendor), "%s", arm_implementers[i].name);
}

int cpu_id_parse_arm_cpuinfo(FILE *cpuinfo, struct cpu_id *id)
{
	char line[512];
	int v;

	cpu_id_init(id);
	/* The first CPU's block ends at its blank line. */
	while (fgets(line, sizeof(line), cpuinfo) && !(line[0] == '\n' && id->part >= 0)) {
		if ((v = cpuinfo_number(line, "CPU implementer")) >= 0)
			id->implementer = v;
		else if ((v = cpuinfo_number(line, "CPU variant")) >= 0)
			id->variant = v;
		else if ((v = cpuinfo_number(line, "CPU part")) >= 0)
			id->part = v;
		else if ((v = cpuinfo_number(line, "CPU revision")) >= 0)
			id->revision = v;
	}
	if (id->implementer < 0 || id->part < 0) {
		cpu_id_init(id);
		return -1;
	}
	arm_vendor(id);
	id->microarchitecture = cpu_id_microarchitecture(id);
	return 0;
}

#if defined(__x86_64__) || defined(__i386__)
int cpu_id_read(struct cpu_id *id)
{
	unsigned int max, eax, ebx, ecx, edx;

	cpu_id_init(id);
	if (!__get_cpuid(0, &max, &ebx, &ecx, &edx) || max < 1)
		return -1;
	/* The vendor string is EBX, EDX, ECX in that order. */
	memcpy(id->vendor, &ebx, 4);
	memcpy(id->vendor + 4, &edx, 4);
	memcpy(id->vendor + 8, &ecx, 4);
	if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
		return -1;
	cpu_id_decode_signature(eax, id);
	id->microarchitecture = cpu_id_microarchitecture(id);
	return 0;
}
#elif defined(__aarch64__) || defined(__arm__)
int cpu_id_read(struct cpu_id *id)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	int ret;

	if (!f) {
		cpu_id_init(id);
		return -1;
	}
	ret = cpu_id_parse_arm_cpuinfo(f, id);
	fclose(f);
	return ret;
}
#else
int cpu_id_read(struct cpu_id *id)
{
	cpu_id_init(id);
	return -1;
}
#endif
