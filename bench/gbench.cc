// SPDX-License-Identifier: GPL-2.0-only
/*
 * The C API over Google Benchmark. The only C++ in bouncelab: opaque
 * handles over benchmark::State and the registered benchmark, and a
 * reporter that hands every run to a C callback.
 */
#include <benchmark/benchmark.h>

#include <cstring>
#include <sstream>
#include <string>
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
}

int gbench_run_all(const struct gbench_run_callbacks *callbacks, bool context)
{
	CallbackReporter reporter(callbacks, context);

	return (int)benchmark::RunSpecifiedBenchmarks(&reporter);
}

void gbench_clear(void)
{
	benchmark::ClearRegisteredBenchmarks();
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
