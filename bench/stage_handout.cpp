// Stage instances handed out over the ranks (cluster/stage_graph.hpp), measured against their
// peers in the same run (run with 4 ranks: mpirun -n 4 bench_stage_handout):
//
// Rate: INSTANCES independent empty stage instances handed out on demand (slots per rank 1, 4,
// 16), instances per second from the first hand-out to the last end, against the same number of
// empty operations planned at once round-robin (Driver::run, no feedback: the plan layer's own
// rate, the ceiling of any hand-out).
//
// Makespan: a layered random DAG of stage instances whose one task sleeps its cost (2-40 ms,
// heavy-tailed; sleeping, so that 4 ranks on a 2-core machine measure the scheduling, not the
// cores) handed out with DAG_SLOTS slots per rank (default 3: the rank's 2 workers and one
// waiting) to the rank where it is estimated to start first on its DAG_WORKERS workers (and, beside
// it, by free slots alone), against the list schedule an offline scheduler computes for the same
// DAG on ranks x DAG_WORKERS workers (default 2) (longest path to the end first, no transfer
// costs), and against planning every instance at once round-robin over the ranks (the ranks'
// dataflow orders them; nothing balances). Prints one JSON object on rank 0.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench_json.hpp"
#include "strata/cluster/stage_graph.hpp"
#include "strata/node/node.hpp"

namespace {

using strata::bench::json_list;
using strata::cluster::ChunkRef;
using strata::cluster::Driver;
using strata::cluster::StageGraph;
using strata::runtime::Access;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Dag {
  std::vector<double> cost;  // seconds
  std::vector<std::vector<std::size_t>> inputs;
};

// Layers of 8-24 instances; each reads one or two outputs of the layer before.
Dag random_dag(std::size_t instances, unsigned seed) {
  std::mt19937 random(seed);
  std::lognormal_distribution<double> cost(std::log(0.006), 0.8);
  Dag dag;
  std::vector<std::size_t> previous;
  while (dag.cost.size() < instances) {
    const std::size_t width = std::min<std::size_t>(8 + random() % 17, instances - dag.cost.size());
    std::vector<std::size_t> layer;
    for (std::size_t i = 0; i < width; ++i) {
      const std::size_t index = dag.cost.size();
      dag.cost.push_back(std::clamp(cost(random), 0.002, 0.040));
      std::vector<std::size_t> in;
      for (int k = 0; k < 1 + static_cast<int>(random() % 2) && !previous.empty(); ++k) {
        const std::size_t p = previous[random() % previous.size()];
        if (std::find(in.begin(), in.end(), p) == in.end()) in.push_back(p);
      }
      dag.inputs.push_back(in);
      layer.push_back(index);
    }
    previous = layer;
  }
  return dag;
}

// Offline list schedule on `workers`: ready instances by longest path to the end, each to the
// worker free first; returns the makespan.
double list_schedule(const Dag& dag, unsigned workers) {
  const std::size_t n = dag.cost.size();
  std::vector<std::vector<std::size_t>> successors(n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t p : dag.inputs[i])
      successors[p].push_back(i);
  std::vector<double> level(n, 0);
  for (std::size_t i = n; i-- > 0;) {
    double longest = 0;
    for (std::size_t s : successors[i])
      longest = std::max(longest, level[s]);
    level[i] = dag.cost[i] + longest;
  }
  std::vector<double> ready_at(n, 0), end(n, 0), free_at(workers, 0);
  std::vector<std::size_t> waiting(n);
  std::vector<std::size_t> ready;
  for (std::size_t i = 0; i < n; ++i) {
    waiting[i] = dag.inputs[i].size();
    if (waiting[i] == 0) ready.push_back(i);
  }
  double makespan = 0;
  for (std::size_t done = 0; done < n; ++done) {
    // The earliest-free worker takes, among the instances ready by then (or the first to become
    // ready), the one with the longest path.
    const auto worker = std::min_element(free_at.begin(), free_at.end());
    double earliest = 1e300;
    for (std::size_t i : ready)
      earliest = std::min(earliest, ready_at[i]);
    const double at = std::max(*worker, earliest);
    std::size_t best = ready.size();
    for (std::size_t k = 0; k < ready.size(); ++k) {
      if (ready_at[ready[k]] > at) continue;
      if (best == ready.size() || level[ready[k]] > level[ready[best]]) best = k;
    }
    const std::size_t chosen = ready[best];
    ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(best));
    end[chosen] = at + dag.cost[chosen];
    *worker = end[chosen];
    makespan = std::max(makespan, end[chosen]);
    for (std::size_t s : successors[chosen]) {
      ready_at[s] = std::max(ready_at[s], end[chosen]);
      if (--waiting[s] == 0) ready.push_back(s);
    }
  }
  return makespan;
}

struct SleepArgs {
  std::uint64_t micros = 0;
  template <class Archive>
  void serialize(Archive& archive) {
    archive(micros);
  }
};

}  // namespace

int main(int argc, char** argv) {
  int repetitions = 5;
  std::size_t instances = 20000;
  std::size_t dag_size = 240;
  bool with_costs = true;  // the DAG's instances carry their costs (longest path first)
  // A rank's CPU pool runs this many sleeping operations at once (its workers); the hand-out keeps
  // one more in flight per rank, so that the next one is there when one ends (the round trip to
  // the driver hidden).
  unsigned dag_workers = 2;
  unsigned dag_slots = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--repetitions") repetitions = std::atoi(argv[i + 1]);
    if (flag == "--instances") instances = std::strtoull(argv[i + 1], nullptr, 10);
    if (flag == "--dag") dag_size = std::strtoull(argv[i + 1], nullptr, 10);
    if (flag == "--no-costs") with_costs = false, --i;
    if (flag == "--dag-slots") dag_slots = static_cast<unsigned>(std::atoi(argv[i + 1]));
    if (flag == "--dag-workers") dag_workers = static_cast<unsigned>(std::atoi(argv[i + 1]));
  }
  strata::node::Node node(argc, argv);
  strata::cluster::Program& program = node.program();
  program.define_stage("empty", [](strata::cluster::StageContext&) {});
  program.define("empty_op", [](strata::cluster::OperationContext&) {});
  program.define_stage("sleep", [](strata::cluster::StageContext& stage) {
    const auto args = stage.args<SleepArgs>();
    strata::runtime::TaskSpec spec("sleep");
    for (std::size_t i = 0; i < stage.chunk_count(); ++i)
      spec.access(stage.chunk(i), stage.mode(i));
    stage.submit(std::move(spec), [micros = args.micros](strata::runtime::TaskContext&) {
      std::this_thread::sleep_for(std::chrono::microseconds(micros));
    });
  });
  program.define("sleep_op", [](strata::cluster::OperationContext& context) {
    std::this_thread::sleep_for(std::chrono::microseconds(context.args<SleepArgs>().micros));
  });

  return program.run([&](Driver& driver) {
    const int ranks = driver.size();
    const std::vector<unsigned> slot_counts{1, 4, 16};
    std::vector<std::vector<double>> handed_rates(slot_counts.size());
    std::vector<double> planned_rates;
    const Dag dag = random_dag(dag_size, 7);
    const double ideal = list_schedule(dag, static_cast<unsigned>(ranks) * dag_workers);
    const double work = std::accumulate(dag.cost.begin(), dag.cost.end(), 0.0);
    std::vector<double> handed_makespans, by_slots_makespans, static_makespans, round_trips;
    for (int repetition = -1; repetition < repetitions; ++repetition) {
      // Rate.
      for (std::size_t s = 0; s < slot_counts.size(); ++s) {
        StageGraph graph;
        for (std::size_t i = 0; i < instances; ++i)
          graph.add({"empty", {}, {}, "empty"});
        const auto report = strata::cluster::hand_out(driver, graph, {{slot_counts[s]}, true, {}});
        if (repetition >= 0)
          handed_rates[s].push_back(static_cast<double>(instances) / report.seconds);
      }
      {
        const auto start = Clock::now();
        {
          const strata::cluster::PlanBatch batch(driver);
          for (std::size_t i = 0; i < instances; ++i)
            driver.run(static_cast<int>(i % static_cast<std::size_t>(ranks)), "empty_op", {});
        }
        driver.wait_all();
        if (repetition >= 0)
          planned_rates.push_back(static_cast<double>(instances) / seconds_since(start));
      }
      // Makespan: outputs of 64 bytes per instance, so the DAG's edges are chunks.
      std::vector<ChunkRef> outputs;
      for (std::size_t i = 0; i < dag.cost.size(); ++i)
        outputs.push_back(driver.create_chunk(
            "out " + std::to_string(i), 64, static_cast<int>(i % static_cast<std::size_t>(ranks))));
      StageGraph graph;
      for (std::size_t i = 0; i < dag.cost.size(); ++i) {
        std::vector<strata::cluster::Use> uses{{outputs[i], Access::write}};
        for (std::size_t p : dag.inputs[i])
          uses.push_back({outputs[p], Access::read});
        graph.add_with("sleep", uses, SleepArgs{static_cast<std::uint64_t>(dag.cost[i] * 1e6)}, {},
                       with_costs ? dag.cost[i] : 0.0);
      }
      // By free slots alone (each rank's workers taken to be its slots), then by the start
      // estimated from the costs on its DAG_WORKERS workers.
      const auto by_slots = strata::cluster::hand_out(driver, graph, {{dag_slots}, true, {}});
      if (repetition >= 0) by_slots_makespans.push_back(by_slots.seconds);
      const auto report =
          strata::cluster::hand_out(driver, graph, {{dag_slots}, true, {dag_workers}});
      if (repetition >= 0) {
        handed_makespans.push_back(report.seconds);
        // From handing an instance out to hearing it ended, less its sleep: the round trip.
        std::vector<double> trips;
        for (std::size_t i = 0; i < dag.cost.size(); ++i)
          trips.push_back(report.instances[i].ended - report.instances[i].handed - dag.cost[i]);
        round_trips.push_back(strata::bench::median_of(trips));
      }
      for (const ChunkRef chunk : outputs)
        driver.destroy(chunk);
      // The same DAG planned at once, round-robin.
      outputs.clear();
      for (std::size_t i = 0; i < dag.cost.size(); ++i)
        outputs.push_back(
            driver.create_chunk("static " + std::to_string(i), 64,
                                static_cast<int>(i % static_cast<std::size_t>(ranks))));
      const auto start = Clock::now();
      {
        const strata::cluster::PlanBatch batch(driver);
        for (std::size_t i = 0; i < dag.cost.size(); ++i) {
          std::vector<strata::cluster::Use> uses{{outputs[i], Access::write}};
          for (std::size_t p : dag.inputs[i])
            uses.push_back({outputs[p], Access::read});
          driver.run_with(static_cast<int>(i % static_cast<std::size_t>(ranks)), "sleep_op", uses,
                          SleepArgs{static_cast<std::uint64_t>(dag.cost[i] * 1e6)});
        }
      }
      driver.wait_all();
      if (repetition >= 0) static_makespans.push_back(seconds_since(start));
      for (const ChunkRef chunk : outputs)
        driver.destroy(chunk);
    }
    std::printf("{\"ranks\": %d, \"repetitions\": %d, \"instances\": %zu,\n", ranks, repetitions,
                instances);
    std::printf(" \"slots\": [1, 4, 16],\n \"handed_rates\": [%s, %s, %s],\n",
                json_list(handed_rates[0]).c_str(), json_list(handed_rates[1]).c_str(),
                json_list(handed_rates[2]).c_str());
    std::printf(" \"planned_rates\": %s,\n", json_list(planned_rates).c_str());
    std::printf(" \"dag_instances\": %zu, \"dag_slots\": %u, \"dag_workers\": %u,\n",
                dag.cost.size(), dag_slots, dag_workers);
    std::printf(" \"dag_work_s\": %.9g,\n", work);
    std::printf(" \"with_costs\": %s,\n", with_costs ? "true" : "false");
    std::printf(" \"list_schedule_s\": %.9g, \"cores\": %u,\n", ideal,
                std::thread::hardware_concurrency());
    std::printf(" \"round_trips_s\": %s,\n", json_list(round_trips).c_str());
    std::printf(" \"by_slots_makespans\": %s,\n", json_list(by_slots_makespans).c_str());
    std::printf(" \"handed_makespans\": %s,\n \"static_makespans\": %s}\n",
                json_list(handed_makespans).c_str(), json_list(static_makespans).c_str());
  });
}
