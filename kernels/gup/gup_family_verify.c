// SPDX-License-Identifier: GPL-2.0-only
/*
 * gup's verify: what a run of the family must leave behind, checked once
 * the writer (writer=on) is stopped. Every thread pinned and unpinned the
 * pages it was asked to, and found each dma-pinned in between
 * (verify_dma_pinned() in the run); the FOLL_LONGTERM check looked up CMA
 * as often as the pages and the calls say (cma_lookups_in_pass(), counted
 * as the run goes); the pins acquired equal the pins released, and the
 * node's and the machine's NR_FOLL_PIN_* counters hold them all; the mm
 * is at rest and its has-pinned flag set. Then the metrics the run
 * reports beside ns_per_op. The family, its variants and its state are
 * gup_family.c's.
 */
#include <errno.h>
#include <stdio.h>

#include "gup_family.h"

static void sum_stats(const struct gup_family_state *s, struct gup_stats *sum)
{
	*sum = (struct gup_stats){ 0 };
	for (unsigned int t = 0; t < s->nr_threads; t++)
		gup_stats_add(sum, &s->threads[t].task.stats);
}

/* Every thread pinned and gave back exactly the pages it was asked to. */
static int verify_threads(struct gup_family_state *s, const uint64_t *ops,
			  char *msg, size_t msglen)
{
	for (unsigned int t = 0; t < s->nr_threads; t++) {
		const struct gup_thread *th = &s->threads[t];

		if (th->error == -EIO) {
			snprintf(msg, msglen, "thread %u: a page it pinned was not dma-pinned (verify_dma_pinned) after %lu pages",
				 t, th->error_after);
			return -1;
		}
		if (th->error) {
			snprintf(msg, msglen, "thread %u: pin_user_pages_fast() returned %ld after %lu pages",
				 t, th->error, th->error_after);
			return -1;
		}
		if (th->task.stats.pages_returned != ops[t] ||
		    th->task.stats.pages_released != ops[t]) {
			snprintf(msg, msglen, "thread %u pinned %llu and unpinned %llu pages, expected %llu",
				 t, (unsigned long long)th->task.stats.pages_returned,
				 (unsigned long long)th->task.stats.pages_released,
				 (unsigned long long)ops[t]);
			return -1;
		}
	}
	return 0;
}

/*
 * The FOLL_LONGTERM check ran where it should: with no CMA memory (the
 * seed's setting) and no writer, every page handed out was looked up
 * exactly once in the second pass, and in the walk every 4K page once
 * and every THP once per call that grabbed it (cma_lookups_in_pass());
 * with CMA or a writer, at least that often. Without FOLL_LONGTERM,
 * never.
 */
static int check_longterm_checks(const struct gup_family_state *s,
				 const struct kernel_config *cfg, uint64_t total,
				 const struct gup_stats *sum, char *msg, size_t msglen)
{
	bool longterm = cfg->param[PARAM_LONGTERM] != LONGTERM_NONE;
	bool exact = cfg->param[PARAM_CMA_PERCENT] == 0 && !cfg->param[PARAM_WRITER];
	uint64_t want = 0;

	for (unsigned int t = 0; t < s->nr_threads; t++)
		want += s->threads[t].cma_lookups_due;

	if (longterm && !exact ? sum->longterm_checks >= want :
	    sum->longterm_checks == want)
		return 0;
	snprintf(msg, msglen, "%llu CMA checks for %llu pages pinned with longterm=%s, expected %s%llu",
		 (unsigned long long)sum->longterm_checks, (unsigned long long)total,
		 longterm_names[cfg->param[PARAM_LONGTERM]],
		 longterm && !exact ? "at least " : "", (unsigned long long)want);
	return -1;
}

/*
 * /proc/vmstat's nr_foll_pin_acquired and nr_foll_pin_released: what the
 * CPUs folded into the shared sums plus what each still holds in its diff
 * is every pin and unpin, on the node's counter and the machine's alike.
 */
static int check_node_stats(const struct gup_family_state *s,
			    const struct gup_stats *sum, char *msg, size_t msglen)
{
	const uint64_t want[GUP_NR_NODE_STATS] = {
		[GUP_NR_FOLL_PIN_ACQUIRED] = sum->pins_acquired,
		[GUP_NR_FOLL_PIN_RELEASED] = sum->pins_released,
	};

	for (unsigned int item = 0; item < GUP_NR_NODE_STATS; item++) {
		long diffs = 0;

		for (unsigned int t = 0; t < s->nr_threads; t++)
			diffs += s->threads[t].task.node_stat_diff[item];
		for (int global = 0; global < 2; global++) {
			long got = gup_mm_node_stat(s->mm, item, global) + diffs;

			if (got == (long)want[item])
				continue;
			snprintf(msg, msglen, "%s %s counter: %ld, expected %llu (the pins counted)",
				 global ? "the machine's" : "the node's",
				 item == GUP_NR_FOLL_PIN_ACQUIRED ? "nr_foll_pin_acquired" :
				 "nr_foll_pin_released", got, (unsigned long long)want[item]);
			return -1;
		}
	}
	return 0;
}

int gup_verify(void *state, const struct kernel_config *cfg,
	       const uint64_t *ops, struct kernel_metrics *metrics,
	       char *msg, size_t msglen)
{
	struct gup_family_state *s = state;
	struct gup_stats sum;
	uint64_t total = 0, get_ns = 0, put_ns = 0;

	if (s->writer_running) {
		s->writer_changes = gup_writer_stop(s->mm);
		s->writer_running = false;
	}
	if (verify_threads(s, ops, msg, msglen))
		return -1;
	for (unsigned int t = 0; t < s->nr_threads; t++) {
		total += ops[t];
		get_ns += s->threads[t].get_ns;
		put_ns += s->threads[t].put_ns;
	}
	sum_stats(s, &sum);
	if (check_longterm_checks(s, cfg, total, &sum, msg, msglen))
		return -1;
	if (sum.pins_acquired != sum.pins_released) {
		snprintf(msg, msglen, "%llu pins acquired but %llu released",
			 (unsigned long long)sum.pins_acquired,
			 (unsigned long long)sum.pins_released);
		return -1;
	}
	if (check_node_stats(s, &sum, msg, msglen) ||
	    gup_mm_check_at_rest(s->mm, msg, msglen))
		return -1;
	if (total && !gup_mm_has_pinned(s->mm)) {
		snprintf(msg, msglen, "the has-pinned flag is not set after %llu pins",
			 (unsigned long long)total);
		return -1;
	}
	if (total) {
		kernel_metric_add(metrics, "get_ns_per_page", (double)get_ns / (double)total);
		kernel_metric_add(metrics, "put_ns_per_page", (double)put_ns / (double)total);
	}
	/* a walk undone and a call that found the seqcount odd: both retried */
	kernel_metric_add(metrics, "seq_retries", (double)(sum.seq_retries + sum.seq_busy));
	kernel_metric_add(metrics, "recheck_failures", (double)sum.recheck_failures);
	kernel_metric_add(metrics, "slow_path_calls", (double)sum.slow_path_calls);
	kernel_metric_add(metrics, "longterm_rejects", (double)sum.longterm_rejects);
	kernel_metric_add(metrics, "longterm_checks", (double)sum.longterm_checks);
	kernel_metric_add(metrics, "longterm_migrations", (double)sum.longterm_migrations);
	kernel_metric_add(metrics, "writer_changes", (double)s->writer_changes);
	return 0;
}
