// PATS against first-come-first-served on a mixed workload (issue 15; the region-templates
// paper's §5.5 experiment, Fig. 15-16, in miniature). One CPU core (the CPU pool with one worker)
// and one "device" (an executor with one worker registered as a device's compute queue) share a
// bag of independent tasks of several operation kinds whose device speedups spread from 1 to 20,
// as the paper's per-operation speedups do. A task's body busy-spins for its CPU time on the CPU
// worker and for its CPU time divided by its speedup on the device, so its duration depends on
// the kind of executor that runs it. Every task may run on either; the speedup is its hint.
//
// Policies, in the same run, alternating: least-loaded push (the runtime's default: each task
// placed when it becomes ready, on the shorter queue), FCFS pull (whichever executor idles takes
// the oldest ready task: the paper's FCFS baseline) and PATS pull (the device takes the largest
// speedup, the CPU the smallest). Reported: the makespan per policy (median, min - max) and the
// ratios FCFS / PATS and least-loaded / PATS, paired per repetition.
//
// Usage: bench_pats_scheduling [--tasks N] [--cpu-ms T] [--repetitions R] [--seed S]
//                              [--out PREFIX]   (writes PREFIX.md / .json)

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench_json.hpp"
#include "strata/runtime/runtime.hpp"
#include "strata/runtime/thread_pool_executor.hpp"

using namespace strata;
using namespace strata::runtime;

namespace {

using strata::bench::cpu_model;

// Operation kinds and their device speedups, spread 1..20 like the paper's Fig. 16.
struct Operation {
  const char* name;
  double speedup;
};
constexpr Operation operations[] = {
    {"rbc detection", 1.1}, {"morph open", 1.6}, {"area threshold", 2.3},
    {"fill holes", 3.2},    {"bwlabel", 4.5},    {"recon to nuclei", 7},
    {"pre-watershed", 10},  {"watershed", 14},   {"features", 20},
};

struct Planned {
  const Operation* operation;
  double cpu_seconds;
};

std::vector<Planned> plan(int tasks, double cpu_ms, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::size_t> kind(0, std::size(operations) - 1);
  std::uniform_real_distribution<double> scale(0.5, 1.5);
  std::vector<Planned> planned;
  for (int t = 0; t < tasks; ++t)
    planned.push_back({&operations[kind(random)], cpu_ms * 1e-3 * scale(random)});
  return planned;
}

void spin_for(double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
  }
}

enum class Policy { least_loaded, fcfs, pats };
const char* name_of(Policy policy) {
  switch (policy) {
    case Policy::least_loaded:
      return "least-loaded push (default)";
    case Policy::fcfs:
      return "FCFS pull";
    case Policy::pats:
      return "PATS pull";
  }
  return "?";
}

struct Outcome {
  double makespan = 0;
  int on_device = 0;
  double device_speedup_sum = 0;
};

Outcome run(const std::vector<Planned>& planned, Policy policy) {
  Config config;
  config.section<strata::runtime::RuntimeSettings>().cpu_threads = 1;
  config.section<strata::runtime::RuntimeSettings>().io_threads = 1;
  Runtime rt(config);
  auto owned = std::make_unique<ThreadPoolExecutor>("device", 1, make_priority_fifo_policy());
  owned->set_kind(ExecutorKind::device_compute, "device0");
  const ExecutorId device = rt.add_executor(std::move(owned));
  switch (policy) {
    case Policy::least_loaded:
      break;
    case Policy::fcfs:
      rt.set_placement_policy(make_fcfs_placement());
      break;
    case Policy::pats:
      rt.set_placement_policy(make_pats_policy());
      break;
  }
  std::atomic<int> on_device{0};
  std::atomic<std::uint64_t> speedup_milli{0};
  const auto start = std::chrono::steady_clock::now();
  for (const Planned& task : planned) {
    rt.spawn(TaskSpec(task.operation->name)
                 .on(rt.cpu())
                 .on(device)
                 .with_speedup(task.operation->speedup),
             [&, task](TaskContext& context) {
               if (context.executor() == device) {
                 spin_for(task.cpu_seconds / task.operation->speedup);
                 on_device.fetch_add(1, std::memory_order_relaxed);
                 speedup_milli.fetch_add(static_cast<std::uint64_t>(task.operation->speedup * 1000),
                                         std::memory_order_relaxed);
               } else {
                 spin_for(task.cpu_seconds);
               }
             });
  }
  rt.wait_all();
  Outcome outcome;
  outcome.makespan =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  outcome.on_device = on_device.load();
  outcome.device_speedup_sum = static_cast<double>(speedup_milli.load()) / 1000;
  return outcome;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  int tasks = 240;
  double cpu_ms = 4;
  int repetitions = 7;
  std::uint64_t seed = 15;
  std::string out = "bench/results/pats-scheduling";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--tasks") {
      tasks = std::stoi(argv[i + 1]);
    } else if (flag == "--cpu-ms") {
      cpu_ms = std::stod(argv[i + 1]);
    } else if (flag == "--repetitions") {
      repetitions = std::stoi(argv[i + 1]);
    } else if (flag == "--seed") {
      seed = std::stoull(argv[i + 1]);
    } else if (flag == "--out") {
      out = argv[i + 1];
    } else {
      fmt::print(stderr, "bench_pats_scheduling: unknown option {}\n", flag);
      return 2;
    }
  }
  const std::vector<Planned> planned = plan(tasks, cpu_ms, seed);
  double cpu_total = 0, device_total = 0;
  for (const Planned& task : planned) {
    cpu_total += task.cpu_seconds;
    device_total += task.cpu_seconds / task.operation->speedup;
  }
  constexpr Policy policies[] = {Policy::least_loaded, Policy::fcfs, Policy::pats};
  std::vector<double> makespans[3];
  std::vector<double> device_share[3], device_mean_speedup[3];
  std::vector<double> fcfs_ratio, default_ratio;
  run(planned, Policy::pats);  // warm-up, untimed
  for (int r = 0; r < repetitions; ++r) {
    Outcome outcomes[3];
    // Rotate which goes first, so drift on this machine hits every policy alike.
    for (int k = 0; k < 3; ++k) {
      const int p = (k + r) % 3;
      outcomes[p] = run(planned, policies[p]);
    }
    for (int p = 0; p < 3; ++p) {
      makespans[p].push_back(outcomes[p].makespan);
      device_share[p].push_back(static_cast<double>(outcomes[p].on_device) / tasks);
      device_mean_speedup[p].push_back(
          outcomes[p].on_device ? outcomes[p].device_speedup_sum / outcomes[p].on_device : 0);
    }
    fcfs_ratio.push_back(outcomes[1].makespan / outcomes[2].makespan);
    default_ratio.push_back(outcomes[0].makespan / outcomes[2].makespan);
    fmt::print(stderr,
               "repetition {}: least-loaded {:.1f} ms, FCFS {:.1f} ms, PATS {:.1f} ms "
               "(FCFS/PATS {:.2f})\n",
               r + 1, 1e3 * outcomes[0].makespan, 1e3 * outcomes[1].makespan,
               1e3 * outcomes[2].makespan, fcfs_ratio.back());
  }

  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  std::string command;
  for (int i = 0; i < argc; ++i)
    command += (i > 0 ? " " : "") + std::string(argv[i]);
  const auto lo = [](const std::vector<double>& v) {
    return *std::min_element(v.begin(), v.end());
  };
  const auto hi = [](const std::vector<double>& v) {
    return *std::max_element(v.begin(), v.end());
  };
  // Without overheads, the best split of the bag between the two executors ends both at once:
  // a lower bound on any makespan (tasks sorted by speedup, device from the top).
  std::vector<Planned> sorted = planned;
  std::sort(sorted.begin(), sorted.end(), [](const Planned& a, const Planned& b) {
    return a.operation->speedup > b.operation->speedup;
  });
  double bound = cpu_total;
  {
    double device_time = 0, cpu_time = cpu_total;
    for (const Planned& task : sorted) {
      device_time += task.cpu_seconds / task.operation->speedup;
      cpu_time -= task.cpu_seconds;
      bound = std::min(bound, std::max(device_time, cpu_time));
    }
  }

  std::string rows;
  for (int p = 0; p < 3; ++p) {
    rows +=
        fmt::format("| {} | {:.1f} | {:.1f} – {:.1f} | {:.0f}% | {:.1f} |\n", name_of(policies[p]),
                    1e3 * median(makespans[p]), 1e3 * lo(makespans[p]), 1e3 * hi(makespans[p]),
                    100 * median(device_share[p]), median(device_mean_speedup[p]));
  }
  std::ofstream md(out + ".md");
  md << fmt::format(
      "# PATS against first-come-first-served: makespan on a mixed workload\n\n"
      "Date: {} (host `{}`), CPU: {}, {} logical CPUs\n\n"
      "```\n{}\n```\n\n"
      "{} independent tasks of {} operation kinds with device speedups 1.1 to 20 (the "
      "region-templates paper's Fig. 16 spread), each with a CPU time of {:.1f} ms x U(0.5, 1.5). "
      "One CPU worker and one \"device\" (a one-worker executor registered as a device compute "
      "queue); every task may run on either and carries its speedup as a hint. A body busy-spins "
      "for its CPU time on the CPU worker and for CPU time / speedup on the device. Work in the "
      "bag: {:.0f} ms on the CPU alone, {:.0f} ms on the device alone; the best split of it "
      "(a lower bound without overheads): {:.1f} ms. {} repetitions after an untimed warm-up; the "
      "three policies run in rotating order within a repetition; ratios pair runs of one "
      "repetition.\n\n"
      "| policy | makespan ms, median | min – max | tasks on the device | mean speedup of device "
      "tasks |\n| --- | ---: | ---: | ---: | ---: |\n{}\n"
      "Makespan ratio FCFS / PATS, median of paired repetitions: **{:.2f}x** (min {:.2f}, max "
      "{:.2f}). Least-loaded (default) / PATS: **{:.2f}x** (min {:.2f}, max {:.2f}).\n",
      date, host, cpu_model(), std::thread::hardware_concurrency(), command, tasks,
      std::size(operations), cpu_ms, 1e3 * cpu_total, 1e3 * device_total, 1e3 * bound, repetitions,
      rows, median(fcfs_ratio), lo(fcfs_ratio), hi(fcfs_ratio), median(default_ratio),
      lo(default_ratio), hi(default_ratio));
  std::ofstream json(out + ".json");
  json << fmt::format(
      "{{\"date\": \"{}\", \"host\": \"{}\", \"cpu\": \"{}\", \"logical_cpus\": {}, "
      "\"command\": \"{}\", \"tasks\": {}, \"cpu_ms\": {}, \"lower_bound_s\": {:.6f}, "
      "\"makespan_s\": {{\"least_loaded\": [{}], \"fcfs\": [{}], \"pats\": [{}]}}, "
      "\"median_makespan_s\": {{\"least_loaded\": {:.6f}, \"fcfs\": {:.6f}, \"pats\": {:.6f}}}, "
      "\"fcfs_over_pats\": [{}], \"median_fcfs_over_pats\": {:.4f}, "
      "\"least_loaded_over_pats\": [{}], \"median_least_loaded_over_pats\": {:.4f}}}\n",
      date, host, cpu_model(), std::thread::hardware_concurrency(), command, tasks, cpu_ms, bound,
      fmt::join(makespans[0], ", "), fmt::join(makespans[1], ", "), fmt::join(makespans[2], ", "),
      median(makespans[0]), median(makespans[1]), median(makespans[2]), fmt::join(fcfs_ratio, ", "),
      median(fcfs_ratio), fmt::join(default_ratio, ", "), median(default_ratio));
  fmt::print("makespan FCFS / PATS {:.2f}x, least-loaded / PATS {:.2f}x\n", median(fcfs_ratio),
             median(default_ratio));
  return 0;
}
