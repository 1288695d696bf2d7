// Per-task overhead of Strata against StarPU 1.3 and oneTBB on the same 2 worker threads.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "strata/base/config.hpp"
#include "strata/runtime/runtime.hpp"

#ifdef STRATA_BENCH_WITH_STARPU
#include <starpu.h>
#endif
#ifdef STRATA_BENCH_WITH_TBB
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_group.h>
#include <oneapi/tbb/version.h>
#endif

namespace {

namespace rt = strata::runtime;

constexpr unsigned kThreads = 2;       // worker threads of every system
constexpr int kIndependent = 100'000;  // independent empty tasks per iteration
constexpr int kChain = 10'000;         // tasks of the dependent chain per iteration
constexpr int kReads = 100'000;        // tasks per iteration, each reading one data item
constexpr int kItems = 1'000;          // the data items they read

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_runtime_overhead: %s\n", what.c_str());
  std::exit(1);
}

// Each iteration runs `tasks` tasks; inverting (tasks/1e9 per iteration) as a rate over real
// time makes the counter read in nanoseconds per task.
void report_per_task(benchmark::State& state, int tasks) {
  state.counters["ns_per_task"] = benchmark::Counter(
      tasks * 1e-9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// ---- Strata ----------------------------------------------------------------------------------

struct StrataPeer {
  rt::Runtime runtime;
  rt::DataHandle chain_item;
  std::vector<rt::DataHandle> items;

  static strata::Config config() {
    strata::Config config;
    config.section<strata::runtime::RuntimeSettings>().cpu_threads = kThreads;
    return config;
  }
  StrataPeer() : runtime(config()), chain_item(runtime.create_data("chain")) {
    for (int i = 0; i < kItems; ++i)
      items.push_back(runtime.create_data("item"));
  }
};

// ---- StarPU ----------------------------------------------------------------------------------

#ifdef STRATA_BENCH_WITH_STARPU
void empty_cpu(void** /*buffers*/, void* /*arg*/) {}

// StarPU's scheduler for a case: STARPU_SCHED as the caller set it, else the fastest of eager, ws
// and lws in trials on the 2-core machine (eager for independent tasks and reads, lws for chains).
std::string starpu_sched_override;  // STARPU_SCHED at start-up
std::string starpu_scheduler(const char* fastest) {
  return starpu_sched_override.empty() ? fastest : starpu_sched_override;
}

// StarPU with exactly kThreads CPU workers, no accelerators, no calibration.
void set_starpu_environment(const std::string& scheduler) {
  const std::string threads = std::to_string(kThreads);
  setenv("STARPU_NCPU", threads.c_str(), 1);
  setenv("STARPU_NCUDA", "0", 1);
  setenv("STARPU_NOPENCL", "0", 1);
  setenv("STARPU_CALIBRATE", "0", 1);
  setenv("STARPU_BUS_CALIBRATE", "0", 1);
  setenv("STARPU_SCHED", scheduler.c_str(), 1);
  setenv("STARPU_SILENT", "1", 0);
}

struct StarpuPeer {
  std::string scheduler;
  starpu_codelet none{};  // no data
  starpu_codelet rw{};    // one STARPU_RW buffer
  starpu_codelet r{};     // one STARPU_R buffer
  int chain_value = 0;
  starpu_data_handle_t chain_item = nullptr;
  std::vector<int> values = std::vector<int>(kItems);
  std::vector<starpu_data_handle_t> items = std::vector<starpu_data_handle_t>(kItems);

  static void init_codelet(starpu_codelet& codelet, int buffers, starpu_data_access_mode mode) {
    starpu_codelet_init(&codelet);
    codelet.where = STARPU_CPU;
    codelet.cpu_funcs[0] = empty_cpu;
    codelet.nbuffers = buffers;
    if (buffers > 0) codelet.modes[0] = mode;
    codelet.name = "empty";
  }
  static void register_int(starpu_data_handle_t& handle, int& value) {
    starpu_variable_data_register(&handle, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(&value),
                                  sizeof value);
  }

  explicit StarpuPeer(std::string sched) : scheduler(std::move(sched)) {
    set_starpu_environment(scheduler);
    starpu_conf conf;
    starpu_conf_init(&conf);
    if (const int ret = starpu_init(&conf); ret != 0)
      die("starpu_init failed: " + std::to_string(ret));
    if (starpu_cpu_worker_get_count() != kThreads || starpu_worker_get_count() != kThreads) {
      die("StarPU started " + std::to_string(starpu_worker_get_count()) + " workers, wanted " +
          std::to_string(kThreads));
    }
    init_codelet(none, 0, STARPU_R);
    init_codelet(rw, 1, STARPU_RW);
    init_codelet(r, 1, STARPU_R);
    register_int(chain_item, chain_value);
    for (int i = 0; i < kItems; ++i)
      register_int(items[i], values[i]);
  }
  ~StarpuPeer() {
    starpu_task_wait_for_all();
    starpu_data_unregister(chain_item);
    for (starpu_data_handle_t item : items)
      starpu_data_unregister(item);
    starpu_shutdown();
  }
  StarpuPeer(const StarpuPeer&) = delete;
  StarpuPeer& operator=(const StarpuPeer&) = delete;
};

void check(int ret) {
  if (ret != 0) die("starpu_task_insert failed: " + std::to_string(ret));
}
#endif

// ---- Only one system's threads alive at a time, so idle peers never compete for the cores; a
// system starts when a benchmark of it runs after another system's (repetitions may interleave) --

std::unique_ptr<StrataPeer> strata_peer;
#ifdef STRATA_BENCH_WITH_STARPU
std::unique_ptr<StarpuPeer> starpu_peer;
#endif
#ifdef STRATA_BENCH_WITH_TBB
std::unique_ptr<tbb::global_control> tbb_limit;
#endif

enum class System { none, strata, starpu, tbb };

void activate(System system, [[maybe_unused]] const std::string& starpu_sched = {}) {
  if (system != System::strata) strata_peer.reset();
#ifdef STRATA_BENCH_WITH_STARPU
  if (system != System::starpu || (starpu_peer && starpu_peer->scheduler != starpu_sched)) {
    starpu_peer.reset();
  }
  if (system == System::starpu && !starpu_peer) {
    starpu_peer = std::make_unique<StarpuPeer>(starpu_sched);
  }
#endif
#ifdef STRATA_BENCH_WITH_TBB
  if (system != System::tbb) tbb_limit.reset();
  if (system == System::tbb && !tbb_limit) {
    // The thread calling wait() counts: 2 = this thread + 1 worker.
    tbb_limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                      kThreads);
  }
#endif
  if (system == System::strata && !strata_peer) strata_peer = std::make_unique<StrataPeer>();
}

// ---- The benchmarks: a round submits every task, then waits for all ----------------------------

// One untimed round first (thread start-up, allocator warm-up), then timed rounds.
template <class Round>
void run_case(benchmark::State& state, System system, int tasks, Round round,
              const std::string& starpu_sched = {}) {
  activate(system, starpu_sched);
  round();
  for (auto _ : state)
    round();
  report_per_task(state, tasks);
}

void strata_independent(benchmark::State& state) {
  run_case(state, System::strata, kIndependent, [] {
    rt::Runtime& runtime = strata_peer->runtime;
    for (int i = 0; i < kIndependent; ++i)
      runtime.spawn([] {});
    runtime.wait_all();
  });
}

void strata_chain_data(benchmark::State& state) {
  run_case(state, System::strata, kChain, [] {
    rt::Runtime& runtime = strata_peer->runtime;
    for (int i = 0; i < kChain; ++i) {
      runtime.spawn(rt::TaskSpec("chain").updates(strata_peer->chain_item), [] {});
    }
    runtime.wait_all();
  });
}

void strata_chain_after(benchmark::State& state) {
  run_case(state, System::strata, kChain, [] {
    rt::Runtime& runtime = strata_peer->runtime;
    rt::TaskHandle previous;
    for (int i = 0; i < kChain; ++i) {
      previous = runtime.submit(rt::TaskSpec("chain").after(previous), [] {});
    }
    runtime.wait_all();
  });
}

void strata_reads(benchmark::State& state) {
  run_case(state, System::strata, kReads, [] {
    rt::Runtime& runtime = strata_peer->runtime;
    for (int i = 0; i < kReads; ++i) {
      runtime.spawn(rt::TaskSpec("read").reads(strata_peer->items[i % kItems]), [] {});
    }
    runtime.wait_all();
  });
}

#ifdef STRATA_BENCH_WITH_STARPU
template <class Round>
void run_starpu_case(benchmark::State& state, const char* fastest_scheduler, int tasks,
                     Round round) {
  run_case(state, System::starpu, tasks, round, starpu_scheduler(fastest_scheduler));
}

void starpu_independent(benchmark::State& state) {
  run_starpu_case(state, "eager", kIndependent, [] {
    for (int i = 0; i < kIndependent; ++i)
      check(starpu_task_insert(&starpu_peer->none, 0));
    starpu_task_wait_for_all();
  });
}

void starpu_chain_data(benchmark::State& state) {
  run_starpu_case(state, "lws", kChain, [] {
    for (int i = 0; i < kChain; ++i) {
      check(starpu_task_insert(&starpu_peer->rw, STARPU_RW, starpu_peer->chain_item, 0));
    }
    starpu_task_wait_for_all();
  });
}

void starpu_reads(benchmark::State& state) {
  run_starpu_case(state, "eager", kReads, [] {
    for (int i = 0; i < kReads; ++i) {
      check(starpu_task_insert(&starpu_peer->r, STARPU_R, starpu_peer->items[i % kItems], 0));
    }
    starpu_task_wait_for_all();
  });
}
#endif

#ifdef STRATA_BENCH_WITH_TBB
void tbb_independent(benchmark::State& state) {
  run_case(state, System::tbb, kIndependent, [] {
    tbb::task_group group;
    for (int i = 0; i < kIndependent; ++i)
      group.run([] {});
    group.wait();
  });
}
#endif

double minimum(const std::vector<double>& v) {
  return *std::min_element(v.begin(), v.end());
}
double maximum(const std::vector<double>& v) {
  return *std::max_element(v.begin(), v.end());
}

void add(const char* name, void (*function)(benchmark::State&)) {
  benchmark::RegisterBenchmark(name, function)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond)
      ->ComputeStatistics("min", minimum)
      ->ComputeStatistics("max", maximum);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("worker_threads", std::to_string(kThreads));
  benchmark::AddCustomContext("strata_io_threads",
                              std::to_string(strata::runtime::RuntimeSettings{}.io_threads));

  add("independent/strata", strata_independent);
  add("chain_data/strata", strata_chain_data);
  add("chain_after/strata", strata_chain_after);
  add("reads/strata", strata_reads);
#ifdef STRATA_BENCH_WITH_STARPU
  if (const char* sched = std::getenv("STARPU_SCHED")) starpu_sched_override = sched;
  int major = 0, minor = 0, release = 0;
  starpu_get_version(&major, &minor, &release);
  benchmark::AddCustomContext(
      "starpu_version",
      std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release));
  benchmark::AddCustomContext("starpu_sched", "independent: " + starpu_scheduler("eager") +
                                                  ", chain_data: " + starpu_scheduler("lws") +
                                                  ", reads: " + starpu_scheduler("eager"));
  add("independent/starpu", starpu_independent);
  add("chain_data/starpu", starpu_chain_data);
  add("reads/starpu", starpu_reads);
#endif
#ifdef STRATA_BENCH_WITH_TBB
  benchmark::AddCustomContext("tbb_version", TBB_VERSION_STRING);
  add("independent/tbb", tbb_independent);
#endif

  benchmark::RunSpecifiedBenchmarks();
  activate(System::none);
  benchmark::Shutdown();
  return 0;
}
