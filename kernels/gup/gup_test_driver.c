// SPDX-License-Identifier: GPL-2.0-only
/*
 * The gup_test driver (gup_test_driver.h): __gup_test_ioctl() of
 * mm/gup_test.c on the mini GUP walker, on gup_test's threads.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gup_internal.h"
#include "gup_test_driver.h"

const char *const gup_test_cmd_names[] = {
	[GUP_FAST_BENCHMARK] = "GUP_FAST_BENCHMARK",
	[PIN_FAST_BENCHMARK] = "PIN_FAST_BENCHMARK",
	[PIN_LONGTERM_BENCHMARK] = "PIN_LONGTERM_BENCHMARK",
	[GUP_BASIC_TEST] = "GUP_BASIC_TEST",
	[PIN_BASIC_TEST] = "PIN_BASIC_TEST",
	[DUMP_USER_PAGES_TEST] = "DUMP_USER_PAGES_TEST",
	NULL,
};

/* The get loop's stretches in one repeat: room for pages / GUP_TEST_STRETCH_PAGES + 1. */
struct gup_stretches {
	unsigned int nr;
	double *ns_per_page;
	uint64_t start;
	unsigned long pages;
};

/* One combination of switches: its own mm, tasks and samples. */
struct gup_combo {
	struct gup_test_combo_key key;
	struct gup_mm *mm;
	struct gup_task *tasks;		/* one per thread */
	struct gup_test_sample *samples; /* [repeat][thread] */
	uint64_t writer_changes;
};

struct gup_thread {
	pthread_t tid;
	unsigned int index;
	struct gup_test *test;
	struct gup_page **pages;
	struct gup_stretches stretches;
	bool started;
	/* verify_dma_pinned() found a page it should not have: the first one */
	bool failed;
	char failure[160];
};

struct gup_test {
	struct gup_test_config cfg;
	struct gup_test_ops ops;
	unsigned int repeats;
	struct gup_combo combos[GUP_TEST_MAX_COMBOS];
	struct gup_thread *threads;
	pthread_barrier_t start, done;
	pthread_mutex_t print_lock;
	/* set by the main thread between the barriers */
	unsigned int combo;
	unsigned int repeat;
	bool quit;
	/* set by a failed verify or a failed run: no repeat starts after it */
	atomic_bool stop;
	char failure[256];		/* the run's failure; empty: none */
};

bool gup_test_cmd_is_benchmark(enum gup_test_cmd cmd)
{
	return cmd == GUP_FAST_BENCHMARK || cmd == PIN_FAST_BENCHMARK ||
	       cmd == PIN_LONGTERM_BENCHMARK;
}

/* The commands that pin (put_back_pages() unpins them). */
static bool cmd_pins(const struct gup_test_config *cfg)
{
	return cfg->cmd == PIN_FAST_BENCHMARK || cfg->cmd == PIN_LONGTERM_BENCHMARK ||
	       cfg->cmd == PIN_BASIC_TEST ||
	       (cfg->cmd == DUMP_USER_PAGES_TEST && cfg->dump_use_pin);
}

/* The gup_flags the command passes: PIN_LONGTERM_BENCHMARK adds FOLL_LONGTERM. */
static unsigned int cmd_flags(const struct gup_test_config *cfg)
{
	unsigned int flags = cfg->gup_flags;

	if (cfg->cmd == PIN_LONGTERM_BENCHMARK)
		flags |= FOLL_LONGTERM;
	/*
	 * get_user_pages*() set FOLL_GET themselves and accept it from the
	 * caller; pin_user_pages*() refuse it (-EINVAL), as the walker does.
	 */
	if (!cmd_pins(cfg))
		flags &= ~FOLL_GET;
	return flags;
}

static long gup_call(struct gup_task *task, const struct gup_test_config *cfg,
		     unsigned long addr, unsigned long nr, struct gup_page **pages)
{
	unsigned int flags = cmd_flags(cfg);

	switch (cfg->cmd) {
	case GUP_FAST_BENCHMARK:
		return get_user_pages_fast(task, addr, nr, flags, pages);
	case PIN_FAST_BENCHMARK:
		return pin_user_pages_fast(task, addr, nr, flags, pages);
	case GUP_BASIC_TEST:
		return get_user_pages(task, addr, nr, flags, pages);
	case DUMP_USER_PAGES_TEST:
		if (!cfg->dump_use_pin)
			return get_user_pages(task, addr, nr, flags, pages);
		return pin_user_pages(task, addr, nr, flags, pages);
	default:
		return pin_user_pages(task, addr, nr, flags, pages);
	}
}

static void fail_run(struct gup_test *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The first failure wins; the run stops after the current repeat. */
static void fail_run(struct gup_test *t, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&t->print_lock);
	if (!t->failure[0]) {
		va_start(ap, fmt);
		vsnprintf(t->failure, sizeof(t->failure), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&t->print_lock);
	atomic_store(&t->stop, true);
}

static void fail_thread(struct gup_thread *th, unsigned long i, const char *what)
{
	if (!th->failed)
		snprintf(th->failure, sizeof(th->failure), "pages[%lu] is NOT %s", i, what);
	th->failed = true;
	atomic_store(&th->test->stop, true);
}

/*
 * verify_dma_pinned(), untimed: every page pinned, and pinnable if the
 * pin is long-term (the kernel asks that of PIN_LONGTERM_BENCHMARK; the
 * walker's -l asks it of a fast pin with FOLL_LONGTERM too).
 */
static void verify_pages(struct gup_thread *th, unsigned long nr)
{
	const struct gup_test_config *cfg = &th->test->cfg;

	if (!cmd_pins(cfg) || cfg->cmd == DUMP_USER_PAGES_TEST)
		return;
	for (unsigned long i = 0; i < nr; i++) {
		if (!gup_page_maybe_dma_pinned(th->pages[i])) {
			fail_thread(th, i, "dma-pinned");
			return;
		}
		if ((cmd_flags(cfg) & FOLL_LONGTERM) &&
		    !gup_page_longterm_pinnable(th->pages[i])) {
			fail_thread(th, i, "pinnable but pinned (it sits in CMA)");
			return;
		}
	}
}

/* dump_pages_test(): the pages asked for, while they are still held. */
static void dump_pages(struct gup_thread *th, struct gup_mm *mm,
		       unsigned long start, unsigned long nr)
{
	struct gup_test *t = th->test;

	for (unsigned int k = 0; k < GUP_TEST_MAX_PAGES_TO_DUMP; k++) {
		struct gup_test_page_dump d = {
			.slot = k,
			.which = t->cfg.which_pages[k],
			.start = start,
			.backing = mm->backing,
		};
		struct gup_page *page, *folio;

		if (!d.which)
			continue;
		if (d.which > nr) {
			d.out_of_range = true;
		} else {
			d.index = d.which - 1;
			page = th->pages[d.index];
			folio = page_folio(page);
			d.pfn = page_to_pfn(mm, page);
			d.order = folio->order;
			d.refcount = atomic_load(&folio->refcount);
			d.pincount = folio_is_large(folio) ?
				     atomic_load(folio_pincount_ptr(folio)) : 0;
			d.maybe_dma_pinned = gup_page_maybe_dma_pinned(page);
		}
		if (t->ops.dump_page)
			t->ops.dump_page(t->ops.arg, th->index, &d);
	}
}

/* Closes the current stretch at time now, if it holds any page. */
static void end_stretch(struct gup_stretches *st, uint64_t now)
{
	if (st->pages)
		st->ns_per_page[st->nr++] = (double)(now - st->start) / (double)st->pages;
	st->start = now;
	st->pages = 0;
}

/*
 * The body of __gup_test_ioctl(): calls until the range is covered or a
 * call returns short; returns how far it got (gup->size).
 */
static unsigned long get_loop(struct gup_thread *th, struct gup_task *task,
			      unsigned long start, unsigned long size,
			      unsigned long *taken)
{
	const struct gup_test_config *cfg = &th->test->cfg;
	struct gup_stretches *st = &th->stretches;
	unsigned long per_call = cfg->pages_per_call;
	unsigned long addr, next, i = 0, nr = per_call;

	for (addr = start; addr < start + size; addr = next) {
		long ret;

		if (nr != per_call)
			break;
		next = addr + nr * GUP_PAGE_SIZE;
		if (next > start + size) {
			next = start + size;
			nr = (next - addr) / GUP_PAGE_SIZE;
		}
		ret = gup_call(task, cfg, addr, nr, th->pages + i);
		if (ret <= 0)
			break;
		nr = (unsigned long)ret;
		i += nr;
		st->pages += nr;
		if (st->pages >= GUP_TEST_STRETCH_PAGES)
			end_stretch(st, kernel_now_ns());
	}
	*taken = i;
	return addr - start;
}

static void one_repeat(struct gup_thread *th)
{
	struct gup_test *t = th->test;
	struct gup_combo *c = &t->combos[t->combo];
	struct gup_task *task = &c->tasks[th->index];
	struct gup_test_sample *s = &c->samples[t->repeat * t->cfg.threads + th->index];
	unsigned long start = gup_buffer_start(c->mm, c->key.private_buffers ? th->index : 0);
	unsigned long full = gup_buffer_pages(c->mm) * GUP_PAGE_SIZE;
	unsigned long size, taken;
	uint64_t t0, t1, t2;

	th->stretches.nr = 0;
	th->stretches.pages = 0;
	t0 = th->stretches.start = kernel_now_ns();
	size = get_loop(th, task, start, full, &taken);
	t1 = kernel_now_ns();
	end_stretch(&th->stretches, t1);
	verify_pages(th, taken);
	if (t->cfg.cmd == DUMP_USER_PAGES_TEST)
		dump_pages(th, c->mm, start, taken);
	t2 = kernel_now_ns();
	if (cmd_pins(&t->cfg))
		unpin_user_pages(task, th->pages, taken);
	else
		put_user_pages(task, th->pages, taken);
	s->get_ns = t1 - t0;
	s->put_ns = kernel_now_ns() - t2;
	/* ktime_us_delta(): whole microseconds, truncated */
	s->get_usec = s->get_ns / 1000;
	s->put_usec = s->put_ns / 1000;
	s->pages = taken;
	s->size = size;
	s->full_size = full;
	s->get_stretch_ns_per_page = th->stretches.nr && t->ops.median ?
		t->ops.median(th->stretches.ns_per_page, th->stretches.nr) : NAN;
	pthread_mutex_lock(&t->print_lock);
	if (t->ops.sample)
		t->ops.sample(t->ops.arg, th->index, t->combo, s);
	pthread_mutex_unlock(&t->print_lock);
}

static void *thread_main(void *arg)
{
	struct gup_thread *th = arg;
	struct gup_test *t = th->test;
	int ret = t->ops.bind_thread ? t->ops.bind_thread(t->ops.arg, th->index) : 0;

	if (ret)
		fail_run(t, "gup: cannot bind thread %u: %s", th->index, strerror(-ret));
	/*
	 * As gup_test faults its buffer in and the kernel's pages[] comes
	 * zeroed, before any timed call: on the pinning CPU, for every
	 * combination.
	 */
	memset(th->pages, 0, gup_buffer_pages(t->combos[0].mm) * sizeof(*th->pages));
	for (unsigned int i = 0; i < t->cfg.nr_combos; i++)
		gup_buffer_fault_in(t->combos[i].mm,
				    t->combos[i].key.private_buffers ? th->index : 0);
	for (;;) {
		pthread_barrier_wait(&t->start);
		if (t->quit)
			return NULL;
		if (!atomic_load(&t->stop))
			one_repeat(th);
		pthread_barrier_wait(&t->done);
	}
}

static int setup_combo(struct gup_test *t, struct gup_combo *c, char *err,
		       size_t errlen)
{
	const struct gup_test_config *cfg = &t->cfg;
	struct gup_layout layout = {
		.flag_update = c->key.variant,
		.longterm_check = c->key.check,
		.nr_buffers = c->key.private_buffers ? cfg->threads : 1,
		.buffer_bytes = cfg->buffer_bytes,
		.page_size = cfg->page_size,
		.cma_percent = cfg->cma_percent,
		.backing = cfg->backing,
	};

	c->mm = gup_mm_create(&layout, err, errlen);
	if (!c->mm)
		return -1;
	c->tasks = kernel_alloc_padded(cfg->threads * sizeof(*c->tasks));
	c->samples = calloc((size_t)t->repeats * cfg->threads, sizeof(*c->samples));
	if (!c->tasks || !c->samples) {
		snprintf(err, errlen, "gup: out of memory for %u threads x %u repeats",
			 cfg->threads, t->repeats);
		return -1;
	}
	for (unsigned int i = 0; i < cfg->threads; i++)
		gup_task_init(&c->tasks[i], c->mm);
	return 0;
}

struct gup_test *gup_test_create(const struct gup_test_config *cfg,
				 const struct gup_test_ops *ops, char *err,
				 size_t errlen)
{
	struct gup_test *t;

	if ((unsigned int)cfg->cmd >= NR_GUP_TEST_CMDS || !cfg->threads ||
	    cfg->threads > KERNEL_MAX_THREADS || !cfg->repeats ||
	    !cfg->pages_per_call || !cfg->nr_combos ||
	    cfg->nr_combos > GUP_TEST_MAX_COMBOS || (cfg->gup_flags & ~FOLL_MODEL_MASK)) {
		snprintf(err, errlen, "gup: bad gup_test configuration");
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "gup: out of memory");
		return NULL;
	}
	t->cfg = *cfg;
	t->ops = *ops;
	t->repeats = gup_test_cmd_is_benchmark(cfg->cmd) ? cfg->repeats : 1;
	pthread_mutex_init(&t->print_lock, NULL);
	for (unsigned int i = 0; i < cfg->nr_combos; i++) {
		t->combos[i].key = cfg->combos[i];
		if (setup_combo(t, &t->combos[i], err, errlen)) {
			gup_test_destroy(t);
			return NULL;
		}
	}
	t->threads = calloc(cfg->threads, sizeof(*t->threads));
	if (!t->threads) {
		snprintf(err, errlen, "gup: out of memory for %u threads", cfg->threads);
		gup_test_destroy(t);
		return NULL;
	}
	return t;
}

/* One repeat of one combination, all threads together. */
static void run_combo_repeat(struct gup_test *t, unsigned int combo,
			     unsigned int repeat)
{
	struct gup_combo *c = &t->combos[combo];
	char err[256];

	if (t->cfg.writer &&
	    gup_writer_start(c->mm, t->cfg.writer_pace_ns, err, sizeof(err))) {
		fail_run(t, "%s", err);
		return;
	}
	t->combo = combo;
	t->repeat = repeat;
	pthread_barrier_wait(&t->start);
	pthread_barrier_wait(&t->done);
	if (t->cfg.writer)
		c->writer_changes += gup_writer_stop(c->mm);
}

/* Interleaved: repeat r runs the combinations starting from r's turn. */
static void run_all(struct gup_test *t)
{
	unsigned int n = t->cfg.nr_combos;

	for (unsigned int r = 0; r < t->repeats && !atomic_load(&t->stop); r++)
		for (unsigned int k = 0; k < n && !atomic_load(&t->stop); k++)
			run_combo_repeat(t, (r + k) % n, r);
}

/* Every pin given back, every folio as it was: the walker's own books. */
static int check_combos(struct gup_test *t, char *err, size_t errlen)
{
	char msg[320];

	for (unsigned int i = 0; i < t->cfg.nr_combos; i++) {
		struct gup_combo *c = &t->combos[i];
		uint64_t acquired = 0, released = 0;

		for (unsigned int k = 0; k < t->cfg.threads; k++) {
			acquired += c->tasks[k].stats.pins_acquired;
			released += c->tasks[k].stats.pins_released;
		}
		if (acquired != released) {
			snprintf(err, errlen, "gup: %llu pins acquired but %llu released",
				 (unsigned long long)acquired, (unsigned long long)released);
			return -1;
		}
		if (gup_mm_check_at_rest(c->mm, msg, sizeof(msg))) {
			snprintf(err, errlen, "gup: after the run: %s", msg);
			return -1;
		}
	}
	return 0;
}

/* Returns the threads started; on a failure, the ones before wait at the start barrier. */
static unsigned int start_threads(struct gup_test *t)
{
	unsigned long max_pages = gup_buffer_pages(t->combos[0].mm);

	for (unsigned int i = 0; i < t->cfg.threads; i++) {
		struct gup_thread *th = &t->threads[i];

		th->index = i;
		th->test = t;
		th->pages = malloc(max_pages * sizeof(*th->pages));
		th->stretches.ns_per_page = malloc((max_pages / GUP_TEST_STRETCH_PAGES + 1) *
						   sizeof(*th->stretches.ns_per_page));
		if (!th->pages || !th->stretches.ns_per_page ||
		    pthread_create(&th->tid, NULL, thread_main, th))
			return i;
		th->started = true;
	}
	return t->cfg.threads;
}

int gup_test_run(struct gup_test *t, char *err, size_t errlen)
{
	unsigned int started;

	pthread_barrier_init(&t->start, NULL, t->cfg.threads + 1);
	pthread_barrier_init(&t->done, NULL, t->cfg.threads + 1);
	started = start_threads(t);
	if (started < t->cfg.threads) {
		/* the threads started wait at the start barrier for good */
		snprintf(err, errlen, "gup: cannot start thread %u of %u", started,
			 t->cfg.threads);
		return -1;
	}
	run_all(t);
	t->quit = true;
	pthread_barrier_wait(&t->start);
	for (unsigned int i = 0; i < t->cfg.threads; i++)
		pthread_join(t->threads[i].tid, NULL);
	pthread_barrier_destroy(&t->start);
	pthread_barrier_destroy(&t->done);
	if (t->failure[0]) {
		snprintf(err, errlen, "%.*s", (int)(errlen ? errlen - 1 : 0), t->failure);
		return -1;
	}
	return check_combos(t, err, errlen);
}

bool gup_test_thread_passed(const struct gup_test *t, unsigned int thread,
			    int *status, char *why, size_t whylen)
{
	const struct gup_thread *th = &t->threads[thread];

	/* mm/gup_test.c's ioctl returns 0 whatever verify finds: it WARNs */
	*status = 0;
	if (whylen)
		snprintf(why, whylen, "%s", th->failed ? th->failure : "");
	return !th->failed;
}

unsigned int gup_test_repeats(const struct gup_test *t)
{
	return t->repeats;
}

const struct gup_test_sample *gup_test_samples(const struct gup_test *t,
					       unsigned int combo)
{
	return combo < t->cfg.nr_combos ? t->combos[combo].samples : NULL;
}

void gup_test_combo_paths(const struct gup_test *t, unsigned int combo,
			  struct gup_stats *sum, uint64_t *writer_changes)
{
	const struct gup_combo *c = &t->combos[combo];

	memset(sum, 0, sizeof(*sum));
	for (unsigned int i = 0; i < t->cfg.threads; i++)
		gup_stats_add(sum, &c->tasks[i].stats);
	*writer_changes = c->writer_changes;
}

void gup_test_destroy(struct gup_test *t)
{
	if (!t)
		return;
	for (unsigned int i = 0; t->threads && i < t->cfg.threads; i++) {
		free(t->threads[i].pages);
		free(t->threads[i].stretches.ns_per_page);
	}
	free(t->threads);
	for (unsigned int i = 0; i < t->cfg.nr_combos; i++) {
		gup_mm_destroy(t->combos[i].mm);
		free(t->combos[i].tasks);
		free(t->combos[i].samples);
	}
	pthread_mutex_destroy(&t->print_lock);
	free(t);
}
