// SPDX-License-Identifier: GPL-2.0-only
/*
 * The C API over Google Benchmark. The only C++ in bouncelab: opaque
 * handles over benchmark::State and the registered benchmark, and a
 * reporter that hands every run to a C callback.
 */
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <cerrno>
#include <exception>
#include <sstream>
#include <string>
#include <system_error>
#include <pthread.h>
#include <unistd.h>
#include <vector>

#include "gbench.h"

namespace {

benchmark::State *to_state(struct gbench_state *s)
{
	return reinterpret_cast<benchmark::State *>(s);
}

const benchmark::State *to_state(const struct gbench_state *s)
{
	return reinterpret_cast<const benchmark::State *>(s);
}

benchmark::internal::Benchmark *to_benchmark(struct gbench_benchmark *b)
{
	return reinterpret_cast<benchmark::internal::Benchmark *>(b);
}

/*
 * Forwards each run to C and, when asked, prints the machine's context
 * (bouncelab run --console prints its own table: cli/console.c).
 */
class CallbackReporter : public benchmark::BenchmarkReporter {
public:
	CallbackReporter(const struct gbench_run_callbacks *cb, bool context)
		: cb_(cb), context_(context) {}

	/*
	 * The machine's context goes to stderr once per process, not once
	 * per gbench_run_all(): bouncelab run calls it once per round.
	 */
	bool ReportContext(const Context &context) override
	{
		static bool context_shown;

		if (context_ && !context_shown) {
			PrintBasicContext(&GetErrorStream(), context);
			context_shown = true;
		}
		return true;
	}

	void ReportRuns(const std::vector<Run> &runs) override
	{
		for (const Run &run : runs)
			forward(run);
	}

private:
	void forward(const Run &run)
	{
		std::vector<const char *> names;
		std::vector<double> values;
		std::string name = run.benchmark_name();
		std::string run_name = run.run_name.str();
		struct gbench_run r = {};
		bool percentage = run.aggregate_unit == benchmark::kPercentage;

		for (const auto &kv : run.counters) {
			names.push_back(kv.first.c_str());
			values.push_back(kv.second.value);
		}
		r.name = name.c_str();
		r.run_name = run_name.c_str();
		r.function_name = run.run_name.function_name.c_str();
		r.aggregate_name = run.aggregate_name.c_str();
		r.is_aggregate = run.run_type == Run::RT_Aggregate;
		r.aggregate_is_percentage = percentage;
		r.family_index = run.family_index;
		r.per_family_instance_index = run.per_family_instance_index;
		r.repetitions = run.repetitions;
		r.repetition_index = run.repetition_index;
		r.threads = run.threads;
		r.iterations = run.iterations;
		/*
		 * GetAdjustedRealTime() is meaningless for percentage
		 * aggregates (cv): they carry the fraction in the
		 * accumulated time.
		 */
		r.real_time = percentage ? run.real_accumulated_time :
					   run.GetAdjustedRealTime();
		r.cpu_time = percentage ? run.cpu_accumulated_time :
					  run.GetAdjustedCPUTime();
		r.time_unit = benchmark::GetTimeUnitString(run.time_unit);
		r.error_occurred = run.error_occurred;
		r.error_message = run.error_message.c_str();
		r.label = run.report_label.c_str();
		r.nr_counters = (unsigned int)names.size();
		r.counter_names = names.data();
		r.counter_values = values.data();
		if (cb_ && cb_->on_run)
			cb_->on_run(&r, cb_->arg);
	}

	const struct gbench_run_callbacks *cb_;
	bool context_;
};

char last_error[512];
void (*fatal_hook)(const char *why);
/* The most threads a registered benchmark runs with. */
int widest = 1;

/* A preflight thread waits here until all of them exist. */
struct preflight {
	pthread_mutex_t lock;
	pthread_cond_t go;
	bool done;
};

void *preflight_thread(void *arg)
{
	struct preflight *p = static_cast<struct preflight *>(arg);

	pthread_mutex_lock(&p->lock);
	while (!p->done)
		pthread_cond_wait(&p->go, &p->lock);
	pthread_mutex_unlock(&p->lock);
	return nullptr;
}

/*
 * Google Benchmark starts a benchmark's threads with std::thread. When one
 * cannot be created (ulimit -v, ulimit -u) after others of its pool were,
 * the exception unwinds past threads that wait at its start barrier: the
 * unwinding waits on them for ever, or std::terminate aborts. So the
 * threads the widest benchmark needs, all at once, are created here
 * first, where a failure is an error. Returns 0 or an errno.
 */
int can_create_threads(int nr)
{
	struct preflight p = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false };
	std::vector<pthread_t> tids;
	int ret = 0;

	try {
		tids.reserve((size_t)nr);
	} catch (...) {
		return ENOMEM;
	}
	for (int i = 0; i < nr && !ret; i++) {
		pthread_t t;

		ret = pthread_create(&t, nullptr, preflight_thread, &p);
		if (!ret)
			tids.push_back(t);
	}
	pthread_mutex_lock(&p.lock);
	p.done = true;
	pthread_cond_broadcast(&p.go);
	pthread_mutex_unlock(&p.lock);
	for (pthread_t t : tids)
		pthread_join(t, nullptr);
	return ret;
}

/* The exception being handled, as one line for the user. */
void describe_exception(char *buf, size_t len)
{
	try {
		throw;
	} catch (const std::system_error &e) {
		/* std::thread's only way to fail: pthread_create's error. */
		snprintf(buf, len, "cannot create a benchmark thread: %s (a memory or thread limit: ulimit -v, ulimit -u)",
			 e.code().message().c_str());
	} catch (const std::bad_alloc &) {
		snprintf(buf, len, "out of memory in Google Benchmark");
	} catch (const std::exception &e) {
		snprintf(buf, len, "Google Benchmark failed: %s", e.what());
	} catch (...) {
		snprintf(buf, len, "Google Benchmark failed");
	}
}

/*
 * A thread that cannot be created after others of the same pool were
 * throws while those are joinable: their destructors call std::terminate
 * before any catch is reached. Instead of abort()'s core and exit 134,
 * one line, the caller's clean-up and exit 1.
 */
[[noreturn]] void on_terminate()
{
	char why[512] = "Google Benchmark failed";

	if (std::current_exception())
		describe_exception(why, sizeof(why));
	else if (*last_error)
		snprintf(why, sizeof(why), "%s", last_error);
	else
		snprintf(why, sizeof(why), "cannot create a benchmark thread (a memory or thread limit: ulimit -v, ulimit -u)");
	if (fatal_hook)
		fatal_hook(why);
	_exit(1);
}

} // namespace

extern "C" {

struct gbench_benchmark *gbench_register(const char *name, gbench_fn fn,
					 void *arg)
{
	benchmark::internal::Benchmark *b = benchmark::RegisterBenchmark(
		name, [fn, arg](benchmark::State &st) {
			fn(reinterpret_cast<struct gbench_state *>(&st), arg);
		});

	/* Threaded runs are timed by the wall clock (see bench/suite.c). */
	b->UseRealTime();
	return reinterpret_cast<struct gbench_benchmark *>(b);
}

void gbench_set_threads(struct gbench_benchmark *b, int nr_threads)
{
	if (nr_threads > widest)
		widest = nr_threads;
	to_benchmark(b)->Threads(nr_threads);
}

void gbench_set_repetitions(struct gbench_benchmark *b, int repetitions)
{
	to_benchmark(b)->Repetitions(repetitions);
}

void gbench_set_min_time(struct gbench_benchmark *b, double seconds)
{
	to_benchmark(b)->MinTime(seconds);
}

void gbench_set_iterations(struct gbench_benchmark *b, uint64_t iterations)
{
	to_benchmark(b)->Iterations((benchmark::IterationCount)iterations);
}

int gbench_thread_index(const struct gbench_state *state)
{
	return (int)to_state(state)->thread_index();
}

int gbench_threads(const struct gbench_state *state)
{
	return (int)to_state(state)->threads();
}

uint64_t gbench_max_iterations(const struct gbench_state *state)
{
	return (uint64_t)to_state(state)->max_iterations;
}

bool gbench_keep_running_batch(struct gbench_state *state, uint64_t n)
{
	return to_state(state)->KeepRunningBatch((benchmark::IterationCount)n);
}

void gbench_set_counter(struct gbench_state *state, const char *name,
			double value, enum gbench_counter_kind kind)
{
	benchmark::Counter::Flags flags = kind == GBENCH_AVG_THREADS ?
		benchmark::Counter::kAvgThreads : benchmark::Counter::kDefaults;

	to_state(state)->counters[name] = benchmark::Counter(value, flags);
}

void gbench_skip_with_error(struct gbench_state *state, const char *msg)
{
	to_state(state)->SkipWithError(msg);
}

bool gbench_error_occurred(const struct gbench_state *state)
{
	return to_state(state)->error_occurred();
}

void gbench_set_label(struct gbench_state *state, const char *label)
{
	to_state(state)->SetLabel(label);
}

void gbench_initialize(int argc, char **argv)
{
	benchmark::Initialize(&argc, argv);
	std::set_terminate(on_terminate);
}

int gbench_run_all(const struct gbench_run_callbacks *callbacks, bool context)
{
	CallbackReporter reporter(callbacks, context);
	int err;

	last_error[0] = '\0';
	/* The benchmark's own thread is this one: widest - 1 more. */
	err = can_create_threads(widest - 1);
	if (err) {
		snprintf(last_error, sizeof(last_error), "cannot create a benchmark thread: %d threads at once: %s (a memory or thread limit: ulimit -v, ulimit -u)",
			 widest, strerror(err));
		return -1;
	}
	try {
		return (int)benchmark::RunSpecifiedBenchmarks(&reporter);
	} catch (...) {
		describe_exception(last_error, sizeof(last_error));
		return -1;
	}
}

const char *gbench_error(void)
{
	return last_error;
}

void gbench_on_fatal(void (*fn)(const char *why))
{
	fatal_hook = fn;
}

void gbench_clear(void)
{
	benchmark::ClearRegisteredBenchmarks();
	widest = 1;
}

char *gbench_context_json(void)
{
	/*
	 * Google Benchmark's own JSON context (date, host, CPUs, caches,
	 * load, library build type): its reporter writes the opening of
	 * the results file, which is closed here to make a whole document.
	 */
	std::ostringstream out;
	std::ostringstream err;
	benchmark::JSONReporter json;
	benchmark::BenchmarkReporter::Context context;

	json.SetOutputStream(&out);
	json.SetErrorStream(&err);
	json.ReportContext(context);
	out << "]}";
	return strdup(out.str().c_str());
}

} // extern "C"
