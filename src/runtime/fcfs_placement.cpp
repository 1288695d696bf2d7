// First come, first served (the region-templates paper's baseline, §5.5): ready tasks that may run
// on several executors wait in one pool, and whichever candidate has an idle worker takes the
// oldest of those it may run, higher priority first. No estimates are used.

#include "strata/runtime/scheduling_policy.hpp"

namespace strata::runtime {
namespace {

class FcfsPlacement final : public PlacementPolicy {
 public:
  const char* name() const override { return "fcfs"; }
  bool pulls() const override { return true; }

  // Tasks none of whose candidates pull: the first listed.
  std::size_t choose(const TaskView& /*task*/,
                     std::span<const ExecutorView> /*candidates*/) override {
    return 0;
  }

  std::size_t pick(const ExecutorView& /*executor*/, std::span<const TaskView> pool) override {
    std::size_t best = 0;
    for (std::size_t i = 1; i < pool.size(); ++i) {
      if (pool[i].priority() > pool[best].priority()) best = i;
    }
    return best;
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_fcfs_placement() {
  return std::make_unique<FcfsPlacement>();
}

}  // namespace strata::runtime
