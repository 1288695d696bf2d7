// The default BlockRunner: oneTBB's parallel_for over the blocks.
#include <tbb/parallel_for.h>

#include "strata/device/backends.hpp"

namespace strata::device {
namespace {

class TbbBlockRunner final : public BlockRunner {
 public:
  void run(std::uint64_t blocks, const std::function<void(std::uint64_t)>& body) override {
    tbb::parallel_for(std::uint64_t{0}, blocks, [&](std::uint64_t block) { body(block); });
  }
};

}  // namespace

std::shared_ptr<BlockRunner> default_block_runner() {
  return std::make_shared<TbbBlockRunner>();
}

}  // namespace strata::device
