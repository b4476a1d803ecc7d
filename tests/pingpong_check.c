// SPDX-License-Identifier: GPL-2.0-only
/*
 * pingpong_check: an independent one-way latency measurement between two
 * CPUs, to check bouncelab's pingpong family against. It shares no code
 * with bouncelab: raw sched_setaffinity(), GCC __atomic builtins, and one
 * pair of long-lived threads that keep the sequence number running across
 * samples.
 *
 *   pingpong_check [CPU_A CPU_B [SAMPLES [ROUND_TRIPS]]]
 *
 * Prints the median and the minimum one-way time (round trip / 2) over
 * the samples, and every sample on request (-v as the last argument).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct shared {
	_Alignas(128) uint64_t turn;	/* the bounced line */
	_Alignas(128) uint64_t total_round_trips;
	int responder_cpu;
	int bind_failed;
};

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? errno : 0;
}

/* The far side: answers every odd number with the next even one. */
static void *responder(void *arg)
{
	struct shared *sh = arg;

	if (pin(sh->responder_cpu)) {
		__atomic_store_n(&sh->bind_failed, 1, __ATOMIC_RELEASE);
		return NULL;
	}
	for (uint64_t k = 0; k < sh->total_round_trips; k++) {
		while (__atomic_load_n(&sh->turn, __ATOMIC_ACQUIRE) != 2 * k + 1)
			if (__atomic_load_n(&sh->bind_failed, __ATOMIC_RELAXED))
				return NULL;
		__atomic_store_n(&sh->turn, 2 * k + 2, __ATOMIC_RELEASE);
	}
	return NULL;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static long arg_or(int argc, char **argv, int i, long def)
{
	char *end;
	long v;

	if (i >= argc || !strcmp(argv[i], "-v"))
		return def;
	v = strtol(argv[i], &end, 10);
	if (*end || v < 0) {
		fprintf(stderr, "pingpong_check: '%s': expected a number\n", argv[i]);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static struct shared sh;
	int cpu_a = (int)arg_or(argc, argv, 1, 0);
	int cpu_b = (int)arg_or(argc, argv, 2, 1);
	long samples = arg_or(argc, argv, 3, 51);
	long trips = arg_or(argc, argv, 4, 10000);
	int verbose = argc > 1 && !strcmp(argv[argc - 1], "-v");
	double *one_way;
	uint64_t k = 0;
	pthread_t tid;

	if (samples < 1 || trips < 1) {
		fprintf(stderr, "pingpong_check: expected at least 1 sample and 1 round trip\n");
		return 2;
	}
	one_way = calloc((size_t)samples, sizeof(double));
	if (!one_way || pin(cpu_a)) {
		fprintf(stderr, "pingpong_check: cannot run on CPU %d\n", cpu_a);
		return 1;
	}
	sh.responder_cpu = cpu_b;
	/* One extra block first, untimed: faults, cold caches, migration. */
	sh.total_round_trips = (uint64_t)(samples + 1) * (uint64_t)trips;
	if (pthread_create(&tid, NULL, responder, &sh)) {
		fprintf(stderr, "pingpong_check: cannot start a thread\n");
		return 1;
	}
	for (long s = -1; s < samples; s++) {
		double start = now_ns();

		for (long i = 0; i < trips; i++, k++) {
			__atomic_store_n(&sh.turn, 2 * k + 1, __ATOMIC_RELEASE);
			while (__atomic_load_n(&sh.turn, __ATOMIC_ACQUIRE) != 2 * k + 2) {
				if (__atomic_load_n(&sh.bind_failed, __ATOMIC_ACQUIRE)) {
					fprintf(stderr, "pingpong_check: cannot run on CPU %d\n",
						cpu_b);
					return 1;
				}
			}
		}
		if (s >= 0)
			one_way[s] = (now_ns() - start) / (double)trips / 2;
	}
	pthread_join(tid, NULL);
	if (verbose)
		for (long s = 0; s < samples; s++)
			printf("sample %ld: %.1f ns\n", s, one_way[s]);
	qsort(one_way, (size_t)samples, sizeof(double), by_value);
	printf("CPUs %d and %d: one-way median %.1f ns, min %.1f ns (%ld samples of %ld round trips)\n",
	       cpu_a, cpu_b,
	       samples % 2 ? one_way[samples / 2] :
			     (one_way[samples / 2 - 1] + one_way[samples / 2]) / 2,
	       one_way[0], samples, trips);
	free(one_way);
	return 0;
}
