// Locality-aware placement: a task goes to the candidate whose memory space already holds most
// of its bytes (so the memory manager copies least), unless that candidate is far busier.

#include <algorithm>
#include <limits>
#include <vector>

#include "strata/runtime/scheduling_policy.hpp"

namespace strata::runtime {
namespace {

class LocalityPlacement final : public PlacementPolicy {
 public:
  const char* name() const override { return "locality"; }
  explicit LocalityPlacement(LocalityOptions options) : options_(options) {}

  std::size_t choose(const TaskView& task, std::span<const ExecutorView> candidates) override {
    // Bytes resident per candidate: each access's valid copies are asked for once.
    thread_local std::vector<std::uint64_t> resident;
    resident.assign(candidates.size(), 0);
    for (const DataAccess& access : task.accesses()) {
      const std::vector<std::uint32_t> spaces = task.valid_copies(access.data);
      if (spaces.empty()) continue;
      for (std::size_t i = 0; i < candidates.size(); ++i) {
        const auto& space = candidates[i].space;
        if (space && std::find(spaces.begin(), spaces.end(), *space) != spaces.end()) {
          resident[i] += access.data.bytes();
        }
      }
    }
    double least_load = std::numeric_limits<double>::max();
    for (const ExecutorView& candidate : candidates)
      least_load = std::min(least_load, candidate.load());
    std::size_t best = candidates.size();
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const double load = candidates[i].load();
      if (load > least_load + options_.max_load_gap) continue;
      if (best == candidates.size() || resident[i] > resident[best] ||
          (resident[i] == resident[best] && load < candidates[best].load())) {
        best = i;
      }
    }
    return best == candidates.size() ? 0 : best;
  }

 private:
  LocalityOptions options_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_locality_placement(LocalityOptions options) {
  return std::make_unique<LocalityPlacement>(options);
}

}  // namespace strata::runtime
