#include "launch_batches.hpp"

#include <fmt/format.h>

namespace strata::array::detail {

std::uint32_t LaunchBatches::Batch::use(cluster::ChunkRef chunk, runtime::Access mode,
                                        std::uint64_t bytes) {
  const auto [at, added] = use_of_.try_emplace(chunk.id, static_cast<std::uint32_t>(uses_.size()));
  if (added) {
    uses_.push_back(cluster::Use{chunk, mode});
    bytes_ += bytes;
  } else if (uses_[at->second].mode != mode) {
    uses_[at->second].mode = runtime::Access::read_write;
  }
  return at->second;
}

std::optional<std::uint32_t> LaunchBatches::Batch::reduction(
    std::pair<std::size_t, std::size_t> key) const {
  const auto found = reductions_.find(key);
  if (found == reductions_.end()) return std::nullopt;
  return found->second;
}

void LaunchBatches::Batch::set_reduction(std::pair<std::size_t, std::size_t> key,
                                         std::uint32_t use) {
  reductions_[key] = use;
}

LaunchBatches::LaunchBatches(node::Node& node, cluster::Driver& driver, std::string kernel)
    : node_(node), driver_(driver), kernel_(std::move(kernel)) {}

LaunchBatches::Batch& LaunchBatches::open(const Place& place, std::size_t superblock,
                                          const Limits& limits) {
  auto [at, added] = open_.try_emplace({place.rank, place.device});
  if (added) {
    at->second.first.place_ = place;
    at->second.first.first_superblock_ = superblock;
    at->second.second = limits;
  }
  return at->second.first;
}

void LaunchBatches::add(Batch& batch, node::KernelLaunch launch) {
  batch.launches_.launches.push_back(std::move(launch));
  const Limits& limits = open_.at({batch.place_.rank, batch.place_.device}).second;
  if (batch.close_ || batch.bytes_ >= limits.bytes ||
      batch.launches_.launches.size() >= limits.superblocks) {
    close(batch);
  }
}

void LaunchBatches::close_all() {
  while (!open_.empty())
    close(open_.begin()->second.first);
  driver_.copy_boxes(waiting_);
  waiting_.clear();
}

void LaunchBatches::close(Batch& batch) {
  const auto key = std::make_pair(batch.place_.rank, batch.place_.device);
  const std::size_t count = batch.launches_.launches.size();
  node_.plan_kernels(
      driver_, batch.place_.rank, batch.launches_, batch.uses_,
      fmt::format("kernel {} ({} superblocks from {})", kernel_, count, batch.first_superblock_));
  ++tasks_;
  // Taken out first: what runs after the batch may plan, and the batch is gone once erased.
  std::vector<std::function<void(FollowUp&)>> after = std::move(batch.after_);
  open_.erase(key);
  FollowUp follow_up;
  for (const auto& plan : after)
    plan(follow_up);
  if (follow_up.drops.empty()) {
    waiting_.insert(waiting_.end(), follow_up.copies.begin(), follow_up.copies.end());
    return;
  }
  // The temporaries go now (their memory), after the copies that read them.
  driver_.copy_boxes(follow_up.copies);
  for (cluster::ChunkRef temporary : follow_up.drops)
    driver_.destroy(temporary);
}

}  // namespace strata::array::detail
