/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Several machines in one report (scripts/lab fleet): which results
 * files are one machine, and the section that compares machines family by
 * family, with a before/after figure per family.
 *
 * A machine is a host with a build of bouncelab: files whose context has
 * the same host_name, cpu_model, num_cpus, bouncelab_version, compiler,
 * build_type and gbench_version. Two such files (two array tasks that
 * Slurm placed on one node, or two runs on a laptop) are repetitions of
 * one machine, not two machines, and the report pools their rows. A file
 * without a host name is a machine of its own.
 */
#ifndef BOUNCELAB_FLEET_H
#define BOUNCELAB_FLEET_H

#include <stdio.h>

#include "analysis.h"
#include "markdown.h"
#include "output.h"
#include "results_read.h"

/*
 * The machine of each file, as the index of its first file: out[f] <= f,
 * out[f] == f for the first file of a machine. out holds nr_files.
 */
void fleet_machines(const struct results *set, unsigned int *out);

/*
 * Pools the rows and failures of each file into its machine's first
 * file, so that every table of the report counts them as repetitions.
 * Call before result_cases_build(). Returns 0, or -1 without memory.
 */
int fleet_pool(struct results *set);

struct machine_profile;

/*
 * The machine behind results file `file` (its first file, after
 * fleet_pool()), as the fleet table and `bouncelab model --results` model
 * it: machine_profile_of_run() of the whole machine, with each class's
 * one-way transfer from the machine's ping-pong floor, the cold miss
 * at each, and the run's tenure and cold shares. Returns 0, or -1 with
 * why (a shape the context does not pin down, or no ping-pong); close
 * it with machine_profile_close().
 */
int fleet_machine(const struct report_input *in, unsigned int file,
		  struct machine_profile *m, char *why, size_t len);

/*
 * "## Fleet" when the report has several results files: which files were
 * pooled, then per family a table of machines (CPU and topology, the fix
 * at each machine's most threads and at the thread counts all share, the
 * one-way latency floor per distance class) and its figure.
 */
void fleet_write(FILE *out, const struct report_input *in);

/* plots/fleet-FAMILY.svg for each family that fleet_write() shows. */
int fleet_add_plots(struct output_batch *batch, const char *outdir,
		    const struct analysis *a);

#endif
