/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which CPU this is, by what the CPU says of itself rather than by its
 * brand string: a claim whose mechanism differs by microarchitecture is
 * checked per microarchitecture, and a corpus run names its machine.
 *
 * x86: the cpuid vendor string and leaf 1's signature, decoded into the
 * display family, model and stepping (Intel SDM vol. 2A, CPUID, "Version
 * Information"; AMD APM vol. 3, CPUID Fn0000_0001_EAX). Arm: the MIDR
 * fields Linux prints in /proc/cpuinfo. Elsewhere nothing is known.
 */
#ifndef BOUNCELAB_CPU_ID_H
#define BOUNCELAB_CPU_ID_H

#include <stdint.h>
#include <stdio.h>

struct cpu_id {
	/* x86: "AuthenticAMD", "GenuineIntel", ...; Arm: the implementer's name */
	char vendor[16];
	/* x86 only; -1 elsewhere */
	int family, model, stepping;
	uint32_t signature;	/* leaf 1 EAX as read, 0 when not x86 */
	/* Arm only (MIDR_EL1 fields); -1 elsewhere */
	int implementer, part, variant, revision;
	/* from a table of the parts we can name; "unknown" otherwise */
	const char *microarchitecture;
};

/* Leaf 1 EAX into id's display family, model and stepping. */
void cpu_id_decode_signature(uint32_t eax, struct cpu_id *id);

/*
 * The microarchitecture of a decoded x86 or Arm identity, or "unknown"
 * for one the table lacks: never the nearest known one.
 */
const char *cpu_id_microarchitecture(const struct cpu_id *id);

/*
 * An Arm identity from /proc/cpuinfo's text (the first CPU's "CPU
 * implementer", "CPU variant", "CPU part" and "CPU revision").
 * Returns 0, or -1 when the text has no implementer and part.
 */
int cpu_id_parse_arm_cpuinfo(FILE *cpuinfo, struct cpu_id *id);

/* This machine's CPU. Returns 0, or -1 when nothing is known here. */
int cpu_id_read(struct cpu_id *id);

#endif
