// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sampled core-to-core latency: pairs per class, samples per pair, and
 * statistics that keep a VM's two latency modes apart. One concern
 * (about 660 lines): what one transfer between two CPUs costs here.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalog.h"
#include "drive.h"
#include "interrupt.h"
#include "latency.h"
#include "stats.h"

/*
 * Two groups count as two modes when the gap between them is a ratio of
 * at least 1.5 and each holds a tenth of the samples (two at least). The
 * modes measured on this project's VMs are 4x apart (60 vs 250 ns); the
 * noise within one mode moves consecutive sorted samples by far less.
 */
#define MODE_GAP_RATIO 1.5
#define MODE_MIN_SHARE 10

/* The nearest-rank percentile of sorted values. */
static double sorted_percentile(const double *s, size_t n, unsigned int pct)
{
	size_t rank = (n * pct + 99) / 100;

	return s[rank ? rank - 1 : 0];
}

static void find_modes(const double *s, size_t n, struct latency_summary *out)
{
	size_t least = n * MODE_MIN_SHARE / 100, split = 0;
	double widest = 0;

	if (least < 2)
		least = 2;
	for (size_t i = least; i + least <= n; i++) {
		double ratio = s[i - 1] > 0 ? s[i] / s[i - 1] : 0;

		if (ratio > widest) {
			widest = ratio;
			split = i;
		}
	}
	if (!split || widest < MODE_GAP_RATIO)
		return;
	out->bimodal = true;
	out->low_mode = stats_median_sorted(s, split);
	out->high_mode = stats_median_sorted(s + split, n - split);
	out->high_share = (double)(n - split) / (double)n;
}

void latency_summarize(const double *samples, size_t n,
		       struct latency_summary *out)
{
	double *s;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	s = malloc(n * sizeof(*s));
	if (!s)
		return;
	memcpy(s, samples, n * sizeof(*s));
	stats_sort(s, n);
	out->median = stats_median_sorted(s, n);
	out->min = s[0];
	out->p10 = sorted_percentile(s, n, 10);
	out->p90 = sorted_percentile(s, n, 90);
	find_modes(s, n, out);
	free(s);
}

/* Calls fn for every pair i < j of allowed CPUs with its class. */
static void for_each_pair(const struct topo *topo,
			  void (*fn)(void *arg, int a, int b, enum distance_class c),
			  void *arg)
{
	unsigned int n = topo_nr_allowed_cpus(topo);

	for (unsigned int i = 0; i < n; i++) {
		int a = topo_allowed_cpu(topo, i);

		for (unsigned int j = i + 1; j < n; j++) {
			int b = topo_allowed_cpu(topo, j);

			fn(arg, a, b, topo_classify(topo, a, b));
		}
	}
}

struct pick {
	const struct topo *topo;
	unsigned int per_class;
	size_t count[NR_DISTANCE_CLASSES];
	size_t seen[NR_DISTANCE_CLASSES];
	unsigned int taken[NR_DISTANCE_CLASSES];
	struct latency_pair *pairs;
	unsigned int nr;
};

static void count_pair(void *arg, int a, int b, enum distance_class c)
{
	struct pick *p = arg;

	(void)a;
	(void)b;
	p->count[c]++;
}

/*
 * Takes the pairs at evenly spaced ranks k * count / per_class, or every
 * pair of a class that has no more than per_class: there the ranks
 * repeat (4 pairs, 6 asked: 0, 0, 1, 2, 2, 3) and the walk, which takes
 * a rank once, would measure only the first.
 */
static void take_pair(void *arg, int a, int b, enum distance_class c)
{
	struct pick *p = arg;
	size_t rank = p->seen[c]++;
	unsigned int k = p->taken[c];

	if (k >= p->per_class)
		return;
	if (p->count[c] > p->per_class && rank != k * p->count[c] / p->per_class)
		return;
	p->taken[c]++;
	p->pairs[p->nr++] = (struct latency_pair){
		.cpu_a = a, .cpu_b = b, .cls = c,
		.numa_distance = topo_numa_distance(p->topo, a, b),
	};
}

static int compare_pairs(const void *x, const void *y)
{
	const struct latency_pair *a = x, *b = y;

	if (a->cls != b->cls)
		return (a->cls > b->cls) - (a->cls < b->cls);
	if (a->cpu_a != b->cpu_a)
		return (a->cpu_a > b->cpu_a) - (a->cpu_a < b->cpu_a);
	return (a->cpu_b > b->cpu_b) - (a->cpu_b < b->cpu_b);
}

unsigned int latency_pick_pairs(const struct topo *topo, unsigned int per_class,
				struct latency_pair **pairs)
{
	struct pick p = { .topo = topo, .per_class = per_class };

	*pairs = NULL;
	if (!per_class)
		return 0;
	p.pairs = calloc((size_t)per_class * NR_DISTANCE_CLASSES, sizeof(*p.pairs));
	if (!p.pairs)
		return 0;
	for_each_pair(topo, count_pair, &p);
	for_each_pair(topo, take_pair, &p);
	qsort(p.pairs, p.nr, sizeof(*p.pairs), compare_pairs);
	*pairs = p.pairs;
	return p.nr;
}

/* Each thread of a sample bound to its side of the pair before it is released. */
struct pair_binding {
	const struct topo *topo;
	const struct latency_pair *pair;
};

static int bind_to_pair(void *arg, unsigned int thread, char *why, size_t whylen)
{
	const struct pair_binding *b = arg;
	int cpu = thread ? b->pair->cpu_b : b->pair->cpu_a;
	int rc = topo_bind_self(b->topo, cpu);

	if (rc)
		snprintf(why, whylen, "cannot bind a thread to CPU %d: %s", cpu, strerror(-rc));
	return rc;
}

/* One sample: fresh state, two bound threads, thread 0's time per trip. */
static int one_sample(const struct topo *topo, const struct kernel_family *f,
		      const struct kernel_config *cfg,
		      const struct latency_pair *pair, unsigned int round_trips,
		      double *one_way_ns, char *err, size_t errlen)
{
	struct pair_binding binding = { topo, pair };
	double thread_ns[2] = { 0, 0 };
	const struct kernel_drive_hooks hooks = {
		.thread_start = bind_to_pair, .arg = &binding, .thread_ns = thread_ns,
	};
	char msg[512];

	if (kernel_drive(f, cfg, round_trips, &hooks, NULL, msg, sizeof(msg))) {
		snprintf(err, errlen, "CPUs %d and %d: %s", pair->cpu_a, pair->cpu_b, msg);
		return -1;
	}
	*one_way_ns = thread_ns[0] / round_trips /
		      (f->ns_per_op_divisor > 0 ? f->ns_per_op_divisor : 1);
	return 0;
}

int latency_measure_pair(const struct topo *topo, const struct kernel_family *f,
			 unsigned int variant, unsigned int nr_samples,
			 unsigned int round_trips, struct latency_pair *pair,
			 char *err, size_t errlen)
{
	struct kernel_config cfg;
	double warm_up;
	int ret = 0;

	kernel_config_defaults(f, &cfg);
	cfg.variant = variant;
	cfg.nr_threads = 2;
	pair->samples = calloc(nr_samples ? nr_samples : 1, sizeof(double));
	pair->nr_samples = 0;
	if (!pair->samples) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* a loaded topology's CPUs are another machine's: none can be bound */
	if (!topo_is_this_system(topo)) {
		snprintf(err, errlen, "the topology is not this machine's, so its CPUs cannot be bound");
		return -1;
	}
	/* The first sample pays for page faults and cold caches. */
	/*
	 * A stop asked during a sample cut its kernels short: the time and
	 * the check are of a partial sample, not counted (the warm-up's too).
	 */
	ret = one_sample(topo, f, &cfg, pair, round_trips, &warm_up, err, errlen);
	if (interrupt_signal())
		ret = 0;
	for (unsigned int s = 0; s < nr_samples && !ret && !interrupt_signal(); s++) {
		ret = one_sample(topo, f, &cfg, pair, round_trips,
				 &pair->samples[s], err, errlen);
		if (interrupt_signal())
			ret = 0;
		else if (!ret)
			pair->nr_samples++;
	}
	return ret;
}

/*
 * The cold-miss measurement: thread a writes a chain of FETCH_LINES lines
 * a page apart, linked in a shuffled order so that no prefetcher can run
 * ahead, and hands the turn over on a line of its own; thread b follows
 * the chain, each load's address the previous load's value, and times
 * it; then follows it again, now from its own cache, and takes that time
 * off (the clock reads and the hits), and checks that each line it
 * followed was written in that round. The roles swap every round. The
 * time taken off is the fastest warm chase of the sample, not each
 * round's own: an interrupt in a warm chase would otherwise lower the
 * sample, and the fastest sample would pick it, where one in a cold
 * chase only raises it.
 */
#define FETCH_LINES 32
/*
 * A page and a line apart: each line in a cache set of its own, so the
 * warm chase hits L1. At exactly a page all 32 lines share one L1 set,
 * more than its ways, and the warm chase would be L2 hits.
 */
#define FETCH_STRIDE (4096 + 64)
#define FETCH_ROUNDS 64

struct fetch_shared {
	_Alignas(CACHE_PAD) atomic_ulong turn;
	_Alignas(CACHE_PAD) char *lines;	/* FETCH_LINES x FETCH_STRIDE */
	unsigned int order[FETCH_LINES];
};

struct fetch_thread {
	pthread_t tid;
	struct fetch_shared *shared;
	const struct topo *topo;
	int cpu;
	unsigned int thread;
	pthread_barrier_t *start;
	int bind_error;
	double cold_ns;			/* the cold chases, summed over its rounds */
	double warm_ns;			/* the fastest warm chase */
	unsigned long chases;
	unsigned int stale;		/* lines its chases found from another round */
};

static inline unsigned long *fetch_line(struct fetch_shared *s, unsigned int i)
{
	return (unsigned long *)(s->lines + (size_t)i * FETCH_STRIDE);
}

/* A clock's reading in ns: CLOCK_MONOTONIC, or a thread's CPU time. */
static double clock_ns(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static double now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/*
 * A line holds the next line's index in its low FETCH_INDEX_BITS and the
 * round that wrote it above them: the reader checks that every line it
 * followed was written in its round, or it timed a line no one moved.
 */
#define FETCH_INDEX_BITS 8
_Static_assert(FETCH_LINES <= 1 << FETCH_INDEX_BITS, "a line's index fits below its round");

static unsigned long fetch_link(unsigned long round, unsigned int next)
{
	return round << FETCH_INDEX_BITS | next;
}

/* Follows the chain; counts in *stale the lines not written in round. */
static unsigned long chase(struct fetch_shared *s, unsigned long round, unsigned int *stale)
{
	unsigned long i = s->order[0];
	unsigned int bad = 0;	/* in a register: no store in the timed chain */

	for (unsigned int k = 0; k < FETCH_LINES; k++) {
		unsigned long v = __atomic_load_n(fetch_line(s, (unsigned int)i),
						  __ATOMIC_RELAXED);

		bad += v >> FETCH_INDEX_BITS != round;
		i = v & ((1UL << FETCH_INDEX_BITS) - 1);
	}
	*stale += bad;
	return i;
}

static void *fetch_thread_main(void *arg)
{
	struct fetch_thread *w = arg;
	struct fetch_shared *s = w->shared;
	unsigned long sink = 0;

	w->bind_error = topo_bind_self(w->topo, w->cpu);
	pthread_barrier_wait(w->start);
	for (unsigned long r = 0; r < 2 * FETCH_ROUNDS; r++) {
		unsigned int spins = 0;

		/* round r: thread r % 2 writes, the other reads once it has */
		while (atomic_load_explicit(&s->turn, memory_order_acquire) < 2 * r +
		       (r % 2 == w->thread ? 0 : 1))
			if (++spins % 1024 == 0)
				sched_yield();
		if (r % 2 == w->thread) {
			for (unsigned int k = 0; k < FETCH_LINES; k++)
				__atomic_store_n(fetch_line(s, s->order[k]),
						 fetch_link(r, s->order[(k + 1) % FETCH_LINES]),
						 __ATOMIC_RELAXED);
			atomic_store_explicit(&s->turn, 2 * r + 1, memory_order_release);
		} else {
			double t0 = now_ns(), t1, t2;

			sink += chase(s, r, &w->stale);
			t1 = now_ns();
			sink += chase(s, r, &w->stale);
			t2 = now_ns();
			w->cold_ns += t1 - t0;
			w->warm_ns = fmin(w->warm_ns, t2 - t1);
			w->chases++;
			atomic_store_explicit(&s->turn, 2 * r + 2, memory_order_release);
		}
	}
	/* keeps the chases: their loads are the measurement */
	__asm__ volatile("" : : "r"(sink));
	return NULL;
}

static int fetch_sample(const struct topo *topo, struct fetch_shared *s,
			int cpu_a, int cpu_b, double *ns, char *err, size_t errlen)
{
	struct fetch_thread w[2];
	pthread_barrier_t start;
	int started;

	atomic_store(&s->turn, 0);
	pthread_barrier_init(&start, NULL, 2);
	for (unsigned int t = 0; t < 2; t++)
		w[t] = (struct fetch_thread){
			.shared = s, .topo = topo, .cpu = t ? cpu_b : cpu_a,
			.thread = t, .start = &start, .warm_ns = INFINITY,
		};
	started = pthread_create(&w[0].tid, NULL, fetch_thread_main, &w[0]);
	if (started) {
		/* pthread_create() returns its error; errno is left as it was */
		snprintf(err, errlen, "cannot start a thread: %s", strerror(started));
		pthread_barrier_destroy(&start);
		return -1;
	}
	fetch_thread_main(&w[1]);
	pthread_join(w[0].tid, NULL);
	pthread_barrier_destroy(&start);
	for (unsigned int t = 0; t < 2; t++) {
		if (w[t].bind_error) {
			snprintf(err, errlen, "cannot bind a thread to CPU %d: %s",
				 w[t].cpu, strerror(-w[t].bind_error));
			return -1;
		}
	}
	if (w[0].stale || w[1].stale) {
		snprintf(err, errlen, "the cold-miss chase between CPUs %d and %d read %u lines not written in its round",
			 cpu_a, cpu_b, w[0].stale + w[1].stale);
		return -1;
	}
	*ns = (w[0].cold_ns - w[0].chases * w[0].warm_ns +
	       w[1].cold_ns - w[1].chases * w[1].warm_ns) /
	      (double)((w[0].chases + w[1].chases) * FETCH_LINES);
	return 0;
}

int latency_measure_fetch(const struct topo *topo, int cpu_a, int cpu_b,
			  unsigned int nr_samples, double *fetch_ns,
			  char *err, size_t errlen)
{
	struct fetch_shared *s = kernel_alloc_padded(sizeof(*s));
	struct topo_binding *saved;
	double best = INFINITY, ns;
	uint64_t x = 1;
	int ret = 0;

	if (!s || posix_memalign((void **)&s->lines, 4096,
				 (size_t)FETCH_LINES * FETCH_STRIDE)) {
		free(s);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memset(s->lines, 0, (size_t)FETCH_LINES * FETCH_STRIDE);
	/* a shuffled order (Fisher-Yates, a fixed seed): no stride to follow */
	for (unsigned int i = 0; i < FETCH_LINES; i++)
		s->order[i] = i;
	for (unsigned int i = FETCH_LINES - 1; i > 0; i--) {
		unsigned int k, tmp;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		k = (unsigned int)((x >> 33) % (i + 1));
		tmp = s->order[i];
		s->order[i] = s->order[k];
		s->order[k] = tmp;
	}
	saved = topo_save_binding(topo);
	if (!saved) {
		snprintf(err, errlen, "cannot save this thread's CPU affinity, so it is not bound");
		ret = -1;
	}
	/* the first sample pays for page faults */
	for (unsigned int i = 0; i <= nr_samples && !ret; i++) {
		ret = fetch_sample(topo, s, cpu_a, cpu_b, &ns, err, errlen);
		if (!ret && i)
			best = fmin(best, ns);
	}
	if (saved)
		topo_restore_binding(topo, saved);
	free(s->lines);
	free(s);
	*fetch_ns = ret ? NAN : fmax(best, 0);
	return ret;
}

static json_t *summary_json(json_t *obj, const struct latency_summary *s)
{
	json_object_set_new(obj, "median_ns", json_real(s->median));
	json_object_set_new(obj, "min_ns", json_real(s->min));
	json_object_set_new(obj, "p10_ns", json_real(s->p10));
	json_object_set_new(obj, "p90_ns", json_real(s->p90));
	json_object_set_new(obj, "bimodal", json_boolean(s->bimodal));
	if (s->bimodal) {
		json_object_set_new(obj, "low_mode_ns", json_real(s->low_mode));
		json_object_set_new(obj, "high_mode_ns", json_real(s->high_mode));
		json_object_set_new(obj, "high_mode_share", json_real(s->high_share));
	}
	return obj;
}

static json_t *numa_json(int distance)
{
	return distance < 0 ? json_null() : json_integer(distance);
}

static json_t *pair_json(const struct latency_pair *p)
{
	struct latency_summary s;
	json_t *obj = json_object(), *samples = json_array();

	latency_summarize(p->samples, p->nr_samples, &s);
	json_object_set_new(obj, "cpus", json_pack("[ii]", p->cpu_a, p->cpu_b));
	json_object_set_new(obj, "class", json_string(distance_class_name(p->cls)));
	json_object_set_new(obj, "numa_distance", numa_json(p->numa_distance));
	summary_json(obj, &s);
	for (unsigned int i = 0; i < p->nr_samples; i++)
		json_array_append_new(samples, json_real(p->samples[i]));
	json_object_set_new(obj, "samples_ns", samples);
	return obj;
}

int latency_class_summarize(const struct latency_pair *pairs, unsigned int nr,
			    enum distance_class cls, struct latency_class *out)
{
	unsigned int n = 0, nr_pairs = 0;
	double *pool;

	for (unsigned int i = 0; i < nr; i++)
		if (pairs[i].cls == cls)
			n += pairs[i].nr_samples;
	if (!n || !(pool = malloc(n * sizeof(*pool))))
		return -1;
	n = 0;
	for (unsigned int i = 0; i < nr; i++) {
		if (pairs[i].cls != cls)
			continue;
		memcpy(pool + n, pairs[i].samples, pairs[i].nr_samples * sizeof(double));
		n += pairs[i].nr_samples;
		nr_pairs++;
	}
	latency_summarize(pool, n, &out->s);
	free(pool);
	out->cls = cls;
	out->nr_pairs = nr_pairs;
	out->nr_samples = n;
	return 0;
}

static json_t *class_json(const struct latency_pair *pairs, unsigned int nr,
			  enum distance_class cls)
{
	struct latency_class c;
	json_t *obj;

	if (latency_class_summarize(pairs, nr, cls, &c))
		return NULL;
	obj = json_object();
	json_object_set_new(obj, "class", json_string(distance_class_name(cls)));
	json_object_set_new(obj, "pairs", json_integer(c.nr_pairs));
	json_object_set_new(obj, "samples", json_integer(c.nr_samples));
	return summary_json(obj, &c.s);
}

json_t *latency_json(const struct topo *topo, const char *variant,
		     unsigned int round_trips, const struct latency_pair *pairs,
		     unsigned int nr_pairs)
{
	json_t *obj = json_object(), *classes = json_array(), *list = json_array();

	for (int c = 0; c < NR_DISTANCE_CLASSES; c++) {
		json_t *cj = class_json(pairs, nr_pairs, (enum distance_class)c);

		if (cj)
			json_array_append_new(classes, cj);
	}
	for (unsigned int i = 0; i < nr_pairs; i++)
		json_array_append_new(list, pair_json(&pairs[i]));
	json_object_set_new(obj, "topology", json_string(topo_describe(topo)));
	json_object_set_new(obj, "family", json_string(catalog_transfer_probe()->name));
	json_object_set_new(obj, "variant", json_string(variant));
	json_object_set_new(obj, "round_trips_per_sample", json_integer(round_trips));
	json_object_set_new(obj, "statistic", json_string("one-way ns = round trip / 2"));
	json_object_set_new(obj, "classes", classes);
	json_object_set_new(obj, "pairs", list);
	return obj;
}

/*
 * One spinning thread of latency_measure_cpu_share(), on its own CPU. No
 * barrier: each measures its own share while the others spin beside it
 * for nearly all of the same time, and a thread that fails to start
 * leaves none waiting.
 */
struct share_thread {
	pthread_t tid;
	const struct topo *topo;
	int cpu;
	double seconds;
	int bind_error;
	double share;		/* its CPU time over its wall time */
};

static void *share_thread_main(void *arg)
{
	struct share_thread *w = arg;
	double wall0, cpu0, wall;

	w->bind_error = topo_bind_self(w->topo, w->cpu);
	wall0 = now_ns();
	cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	do
		wall = now_ns() - wall0;
	while (wall < w->seconds * 1e9);
	w->share = (clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0) / wall;
	return NULL;
}

int latency_measure_cpu_share(const struct topo *topo, const int *cpus, unsigned int nr_cpus,
			      double seconds, double *share, char *err, size_t errlen)
{
	struct share_thread *w = calloc(nr_cpus ? nr_cpus : 1, sizeof(*w));
	struct topo_binding *saved = w && nr_cpus ? topo_save_binding(topo) : NULL;
	unsigned int started = 1;
	int ret = 0;

	if (!saved) {
		snprintf(err, errlen, !w ? "out of memory" : !nr_cpus ? "no CPU to measure" :
			 "cannot save this thread's CPU affinity, so it is not bound");
		free(w);
		return -1;
	}
	for (unsigned int i = 0; i < nr_cpus; i++)
		w[i] = (struct share_thread){ .topo = topo, .cpu = cpus[i], .seconds = seconds,
					      .share = NAN };
	for (; started < nr_cpus; started++) {
		int rc = pthread_create(&w[started].tid, NULL, share_thread_main, &w[started]);

		if (rc) {
			snprintf(err, errlen, "cannot start a thread: %s", strerror(rc));
			ret = -1;
			break;
		}
	}
	share_thread_main(&w[0]);
	for (unsigned int i = 1; i < started; i++)
		pthread_join(w[i].tid, NULL);
	topo_restore_binding(topo, saved);
	*share = 1;
	for (unsigned int i = 0; i < nr_cpus && !ret; i++) {
		if (w[i].bind_error) {
			snprintf(err, errlen, "cannot bind a thread to CPU %d: %s", w[i].cpu,
				 strerror(-w[i].bind_error));
			ret = -1;
		}
		/* the two clocks tick apart: a whole CPU may read a hair above 1 */
		*share = fmin(*share, fmin(w[i].share, 1));
	}
	free(w);
	return ret;
}
