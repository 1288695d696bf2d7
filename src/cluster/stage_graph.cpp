#include "strata/cluster/stage_graph.hpp"

#include <algorithm>
#include <chrono>
#include <set>
#include <unordered_map>

#include "strata/base/error.hpp"
#include "strata/cluster/stage.hpp"

namespace strata::cluster {

namespace {
bool stage_reads(runtime::Access mode) {
  return mode != runtime::Access::write;
}

void add_once(std::vector<std::size_t>& list, std::size_t value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}
}  // namespace

std::size_t StageGraph::add(StageInstance instance) {
  const std::size_t index = instances_.size();
  if (instance.label.empty()) instance.label = instance.stage + " " + std::to_string(index);
  std::vector<std::size_t> predecessors;
  for (const Use& use : instance.uses) {
    ChunkUsers& users = users_[use.chunk.id];
    if (users.writer) add_once(predecessors, *users.writer);
    if (use.mode == runtime::Access::read) {
      users.readers.push_back(index);
      continue;
    }
    for (std::size_t reader : users.readers)
      add_once(predecessors, reader);
    users.writer = index;
    users.readers.clear();
  }
  std::erase(predecessors, index);
  std::sort(predecessors.begin(), predecessors.end());
  instances_.push_back(std::move(instance));
  predecessors_.push_back(std::move(predecessors));
  return index;
}

namespace {

// The driver's side of a hand-out: ready instances, free slots, and what each rank ran.
class HandOut {
 public:
  HandOut(Driver& driver, const StageGraph& graph, const HandOutOptions& options)
      : driver_(driver),
        graph_(graph),
        options_(options),
        start_(std::chrono::steady_clock::now()),
        waiting_(graph.size()),
        successors_(graph.size()),
        in_flight_(static_cast<std::size_t>(driver.size()), 0) {
    const auto ranks = static_cast<std::size_t>(driver.size());
    if (options.slots.size() != 1 && options.slots.size() != ranks) {
      throw Error("hand_out: " + std::to_string(options.slots.size()) + " slot counts given for " +
                  std::to_string(ranks) + " rank(s)");
    }
    if (options.workers.size() > 1 && options.workers.size() != ranks) {
      throw Error("hand_out: " + std::to_string(options.workers.size()) +
                  " worker counts given for " + std::to_string(ranks) + " rank(s)");
    }
    for (std::size_t r = 0; r < ranks; ++r) {
      slots_.push_back(options.slots.size() == 1 ? options.slots[0] : options.slots[r]);
      if (slots_.back() == 0) throw Error("hand_out: rank " + std::to_string(r) + " has no slots");
      workers_.push_back(options.workers.empty()       ? slots_.back()
                         : options.workers.size() == 1 ? options.workers[0]
                                                       : options.workers[r]);
      if (workers_.back() == 0) {
        throw Error("hand_out: rank " + std::to_string(r) + " has no workers");
      }
    }
    running_.resize(ranks);
    report_.instances.resize(graph.size());
    report_.per_rank.assign(ranks, 0);
    for (std::size_t i = 0; i < graph.size(); ++i) {
      waiting_[i] = graph.predecessors(i).size();
      for (std::size_t p : graph.predecessors(i))
        successors_[p].push_back(i);
    }
    // Predecessors come before their successors, so one pass from the end gives the levels.
    level_.assign(graph.size(), 0);
    for (std::size_t i = graph.size(); i-- > 0;) {
      double longest = 0;
      for (std::size_t next : successors_[i])
        longest = std::max(longest, level_[next]);
      level_[i] = std::max(0.0, graph.instance(i).cost) + longest;
    }
    for (std::size_t i = 0; i < graph.size(); ++i)
      if (waiting_[i] == 0) ready_.insert({-level_[i], i});
  }

  HandOutReport run() {
    std::size_t ended = 0;
    while (ended < graph_.size()) {
      {
        const PlanBatch batch(driver_);  // one message per rank for what is handed out at once
        while (hand_one()) {
        }
      }
      if (in_flight_total_ == 0) {
        throw Error("hand_out: " + std::to_string(graph_.size() - ended) +
                    " stage instance(s) can never become ready");
      }
      for (std::uint64_t op : driver_.wait_tracked()) {
        auto it = planned_.find(op);
        if (it == planned_.end()) continue;  // another tracked operation of the driver's
        ended_one(it->second);
        planned_.erase(it);
        ++ended;
      }
    }
    report_.seconds = now();
    return std::move(report_);
  }

 private:
  double now() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

  // The bytes of `index`'s inputs that `rank` holds, and whether that is all of them.
  std::pair<std::uint64_t, bool> held_inputs(std::size_t index, int rank) const {
    std::uint64_t held = 0;
    bool all = true;
    for (const Use& use : graph_.instance(index).uses) {
      if (!stage_reads(use.mode)) continue;
      if (driver_.holders(use.chunk).count(rank) != 0) {
        held += driver_.capacity_of(use.chunk);
      } else {
        all = false;
      }
    }
    return {held, all};
  }

  // When a new instance would start on `rank`, estimated from the costs of those it runs: they
  // start in hand-out order on its workers, each when one is free; one not ended yet ends no
  // earlier than `now`.
  double estimated_start(std::size_t rank, double now) const {
    if (running_[rank].size() < workers_[rank]) return now;
    std::vector<double> free(workers_[rank], 0.0);
    for (const std::size_t index : running_[rank]) {
      const auto earliest = std::min_element(free.begin(), free.end());
      const double start = std::max(report_.instances[index].handed, *earliest);
      *earliest = std::max(now, start + std::max(0.0, graph_.instance(index).cost));
    }
    return std::max(now, *std::min_element(free.begin(), free.end()));
  }

  // Hands the first ready instance to a free slot; false when there is none of either.
  bool hand_one() {
    if (ready_.empty()) return false;
    const std::size_t chosen = ready_.begin()->second;
    // Starts within this of each other count as alike (the estimates are not finer).
    constexpr double alike_seconds = 0.5e-3;
    const bool by_start = graph_.instance(chosen).cost > 0;
    const double time = by_start ? now() : 0.0;
    int rank = -1;
    double best_start = 0;
    std::uint64_t best_held = 0;
    std::size_t best_free = 0;
    const int ranks = driver_.size();
    for (int k = 0; k < ranks; ++k) {
      const int r = (next_ + k) % ranks;
      const auto u = static_cast<std::size_t>(r);
      if (in_flight_[u] >= slots_[u]) continue;
      const double start = by_start ? estimated_start(u, time) : 0.0;
      const std::uint64_t held = options_.prefer_held_inputs ? held_inputs(chosen, r).first : 0;
      const std::size_t free = slots_[u] - in_flight_[u];
      const bool sooner = start < best_start - alike_seconds;
      const bool alike = !sooner && start <= best_start + alike_seconds;
      if (rank < 0 || sooner ||
          (alike && (held > best_held || (held == best_held && free > best_free)))) {
        rank = r;
        best_start = start;
        best_held = held;
        best_free = free;
      }
    }
    if (rank < 0) return false;
    next_ = (rank + 1) % ranks;
    hand(chosen, rank);
    return true;
  }

  void hand(std::size_t index, int rank) {
    const StageInstance& instance = graph_.instance(index);
    HandedInstance& record = report_.instances[index];
    record.rank = rank;
    record.held_inputs = held_inputs(index, rank).second;
    record.handed = now();
    const std::uint64_t op =
        plan_stage(driver_, rank, instance.stage, instance.uses, instance.args, instance.label);
    planned_[op] = index;
    ready_.erase({-level_[index], index});
    running_[static_cast<std::size_t>(rank)].push_back(index);
    ++in_flight_[static_cast<std::size_t>(rank)];
    ++in_flight_total_;
    ++report_.per_rank[static_cast<std::size_t>(rank)];
  }

  void ended_one(std::size_t index) {
    HandedInstance& record = report_.instances[index];
    record.ended = now();
    std::erase(running_[static_cast<std::size_t>(record.rank)], index);
    --in_flight_[static_cast<std::size_t>(record.rank)];
    --in_flight_total_;
    for (std::size_t next : successors_[index]) {
      if (--waiting_[next] != 0) continue;
      ready_.insert({-level_[next], next});
      report_.instances[next].ready = record.ended;
    }
  }

  Driver& driver_;
  const StageGraph& graph_;
  const HandOutOptions& options_;
  std::chrono::steady_clock::time_point start_;
  std::vector<std::size_t> waiting_;  // predecessors not ended yet
  std::vector<std::vector<std::size_t>> successors_;
  std::vector<double> level_;  // estimated seconds from an instance's start to the graph's end
  // Longest path to the end first, then oldest first.
  std::set<std::pair<double, std::size_t>> ready_;
  std::vector<unsigned> slots_;
  std::vector<unsigned> workers_;
  std::vector<std::vector<std::size_t>> running_;  // per rank: its instances in hand-out order
  std::vector<unsigned> in_flight_;
  std::size_t in_flight_total_ = 0;
  int next_ = 0;
  std::unordered_map<std::uint64_t, std::size_t> planned_;  // operation id -> instance
  HandOutReport report_;
};

}  // namespace

HandOutReport hand_out(Driver& driver, const StageGraph& graph, const HandOutOptions& options) {
  if (graph.size() == 0) return {};
  return HandOut(driver, graph, options).run();
}

}  // namespace strata::cluster
