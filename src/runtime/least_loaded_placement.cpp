// Default placement: the candidate executor with the fewest queued tasks per worker.

#include <limits>

#include "strata/runtime/scheduling_policy.hpp"

namespace strata::runtime {
namespace {

class LeastLoadedPlacement final : public PlacementPolicy {
 public:
  const char* name() const override { return "least-loaded"; }
  std::size_t choose(const TaskView& /*task*/, std::span<const ExecutorView> candidates) override {
    std::size_t best = 0;
    double best_load = std::numeric_limits<double>::max();
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const double load = candidates[i].load();
      if (load < best_load) {
        best_load = load;
        best = i;
      }
    }
    return best;
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_least_loaded_placement() {
  return std::make_unique<LeastLoadedPlacement>();
}

}  // namespace strata::runtime
