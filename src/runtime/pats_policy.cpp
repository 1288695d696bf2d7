// PATS, the region-templates paper's Performance Aware Task Scheduling (§3.3.1): ready tasks that
// may run on a device or a CPU core wait in one pool; an idle device takes the task it speeds up
// most, an idle CPU core the one it speeds up least. With transfer_impact set, a device prefers a
// task whose data it already holds when that costs little speedup (the paper's DL refinement).

#include <algorithm>
#include <limits>

#include "strata/runtime/scheduling_policy.hpp"

namespace strata::runtime {
namespace {

class PatsPolicy final : public PlacementPolicy {
 public:
  explicit PatsPolicy(PatsOptions options) : options_(options) {}

  const char* name() const override { return options_.transfer_impact > 0 ? "pats-dl" : "pats"; }
  bool pulls() const override { return true; }

  // For tasks none of whose candidates pull: a device when the task gains from one, else the
  // least loaded other executor.
  std::size_t choose(const TaskView& task, std::span<const ExecutorView> candidates) override {
    const bool wants_device = task.speedup() > 1.0;
    std::size_t best = 0;
    double best_load = std::numeric_limits<double>::max();
    bool best_matches = false;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const bool matches = (candidates[i].kind == ExecutorKind::device_compute) == wants_device;
      const double load = candidates[i].load();
      if ((matches && !best_matches) || (matches == best_matches && load < best_load)) {
        best = i;
        best_load = load;
        best_matches = matches;
      }
    }
    return best;
  }

  std::size_t pick(const ExecutorView& executor, std::span<const TaskView> pool) override {
    const bool device = executor.kind == ExecutorKind::device_compute;
    // Higher priority first; among equals, the largest speedup for a device, the smallest for
    // anything else; ties to the oldest.
    const auto better = [device](const TaskView& a, double a_speedup, const TaskView& b,
                                 double b_speedup) {
      if (a.priority() != b.priority()) return a.priority() > b.priority();
      return device ? a_speedup > b_speedup : a_speedup < b_speedup;
    };
    std::size_t best = 0;
    double best_speedup = pool[0].speedup();
    for (std::size_t i = 1; i < pool.size(); ++i) {
      const double speedup = pool[i].speedup();
      if (better(pool[i], speedup, pool[best], best_speedup)) {
        best = i;
        best_speedup = speedup;
      }
    }
    if (!device || options_.transfer_impact <= 0 || !executor.space) return best;
    // DL: the best task (of the same priority) whose data mostly lies in the device's space.
    std::size_t local = pool.size();
    double local_speedup = 0;
    for (std::size_t i = 0; i < pool.size(); ++i) {
      if (pool[i].priority() != pool[best].priority()) continue;
      const std::uint64_t bytes = pool[i].bytes();
      if (bytes == 0 || 2 * pool[i].bytes_in(*executor.space) <= bytes) continue;
      const double speedup = pool[i].speedup();
      if (local == pool.size() || speedup > local_speedup) {
        local = i;
        local_speedup = speedup;
      }
    }
    if (local != pool.size() &&
        local_speedup >= best_speedup * (1.0 - std::min(1.0, options_.transfer_impact))) {
      return local;
    }
    return best;
  }

 private:
  PatsOptions options_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_pats_policy(PatsOptions options) {
  return std::make_unique<PatsPolicy>(options);
}

}  // namespace strata::runtime
