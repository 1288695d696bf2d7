#include "reduce_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <thread>
#include <tuple>
#include <utility>

#include "chunk_boxes.hpp"
#include "chunk_index.hpp"

namespace strata::array::detail {
namespace {

constexpr std::size_t none = std::numeric_limits<std::size_t>::max();

using RegionKey = std::tuple<std::array<std::uint64_t, 3>, std::array<std::uint64_t, 3>>;

std::size_t root(std::vector<std::size_t>& parent, std::size_t at) {
  while (parent[at] != at)
    at = parent[at] = parent[parent[at]];
  return at;
}

// Partials a device's superblocks take in turn: at least the kernels one device runs side by side
// (a CPU device's compute workers, one per core; a GPU's in-order queue needs one), so that a
// superblock seldom waits for the one before it in the same partial.
std::size_t partials_per_device() {
  return std::max<std::size_t>(4, std::thread::hardware_concurrency());
}

Region hull(const Region& a, const Region& b) {
  Region both = a;
  for (std::uint32_t d = 0; d < a.dims; ++d) {
    both.lo[d] = std::min(a.lo[d], b.lo[d]);
    both.hi[d] = std::max(a.hi[d], b.hi[d]);
  }
  return both;
}

}  // namespace

ReducePlan::ReducePlan(const Array& array, memory::ReduceOp op, const std::vector<Region>& regions,
                       bool shared)
    : array_(array),
      op_(op),
      shared_(shared),
      ring_size_(partials_per_device()),
      component_of_(regions.size(), none) {
  // The distinct regions, and which one each superblock has.
  std::map<RegionKey, std::size_t> index;
  std::vector<Region> distinct;
  std::vector<std::size_t> distinct_of(regions.size(), none);
  for (std::size_t s = 0; s < regions.size(); ++s) {
    if (regions[s].empty()) continue;
    const auto [at, added] =
        index.try_emplace(RegionKey{regions[s].lo, regions[s].hi}, distinct.size());
    if (added) distinct.push_back(regions[s]);
    distinct_of[s] = at->second;
  }
  // Overlapping distinct regions join one component (a sweep along dimension 0).
  std::vector<std::size_t> parent(distinct.size());
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  std::vector<std::size_t> by_start(distinct.size());
  std::iota(by_start.begin(), by_start.end(), std::size_t{0});
  std::sort(by_start.begin(), by_start.end(),
            [&](std::size_t a, std::size_t b) { return distinct[a].lo[0] < distinct[b].lo[0]; });
  for (std::size_t i = 0; i < by_start.size(); ++i) {
    const Region& first = distinct[by_start[i]];
    for (std::size_t j = i + 1; j < by_start.size() && distinct[by_start[j]].lo[0] < first.hi[0];
         ++j) {
      if (first.intersect(distinct[by_start[j]]))
        parent[root(parent, by_start[j])] = root(parent, by_start[i]);
    }
  }
  std::vector<std::size_t> component_of_root(distinct.size(), none);
  std::vector<std::size_t> component_of_distinct(distinct.size());
  for (std::size_t r = 0; r < distinct.size(); ++r) {
    std::size_t& component = component_of_root[root(parent, r)];
    if (component == none) {
      component = components_.size();
      components_.push_back(Component{distinct[r], {}, {}, {}, 0});
    }
    Component& joined = components_[component];
    joined.box = hull(joined.box, distinct[r]);
    joined.regions.push_back(distinct[r]);
    component_of_distinct[r] = component;
  }
  for (std::size_t s = 0; s < regions.size(); ++s) {
    if (distinct_of[s] == none) continue;
    component_of_[s] = component_of_distinct[distinct_of[s]];
    ++components_[component_of_[s]].superblocks;
  }
}

const Region& ReducePlan::partial_region(std::size_t superblock) const {
  return components_[component_of_[superblock]].box;
}

ReducePlan::Target ReducePlan::add_partial(cluster::Driver& driver, std::size_t superblock,
                                           const Place& place, const std::string& kernel) {
  Component& component = components_[component_of_[superblock]];
  // The superblock alone reduces exactly a chunk on its own device: into that chunk.
  const ArrayChunk* own = nullptr;
  if (!shared_ && component.superblocks == 1 && component.regions.size() == 1) {
    for (const ArrayChunk& chunk : array_.chunks())
      if (chunk.placement.place == place && chunk.placement.region == component.box) own = &chunk;
  }
  if (own != nullptr) {
    component.partials.push_back(Partial{own->ref, place, true});
    return Target{own->ref, true, true};
  }
  Ring& ring = component.rings[{place.rank, place.device}];
  const std::size_t turn = ring.taken++;
  if (ring.partials.size() == ring_size_)
    return Target{component.partials[ring.partials[turn % ring_size_]].ref, false, false};
  const cluster::ChunkRef partial = driver.create_chunk(
      fmt::format("{}{} partial {} of {} on rank {} device {}", array_.name(),
                  component.box.describe(), ring.partials.size(), kernel, place.rank, place.device),
      component.box.elements() * array_.element_bytes(), place.rank);
  ring.partials.push_back(component.partials.size());
  component.partials.push_back(Partial{partial, place, false});
  return Target{partial, false, true};
}

std::array<unsigned char, 8> ReducePlan::identity() const {
  const std::array<std::byte, 8> bytes = memory::identity(op_, array_.type());
  std::array<unsigned char, 8> value{};
  std::memcpy(value.data(), bytes.data(), bytes.size());
  return value;
}

std::uint64_t ReducePlan::finish(cluster::Driver& driver, const std::string& kernel) {
  const device::ElementType type = array_.type();
  const auto element = static_cast<std::uint32_t>(array_.element_bytes());
  std::uint64_t copies = 0;
  const ChunkIndex chunks(array_);
  for (const Component& component : components_) {
    if (component.partials.empty()) continue;
    // Per device: the first partial there takes in the others, on the device.
    std::map<std::pair<int, std::uint32_t>, std::vector<cluster::ChunkRef>> by_device;
    for (const Partial& partial : component.partials)
      by_device[{partial.place.rank, partial.place.device}].push_back(partial.ref);
    std::vector<cluster::ChunkRef> per_device;
    int lowest_rank = std::numeric_limits<int>::max();
    for (const auto& [place, partials] : by_device) {
      if (partials.size() > 1) {
        driver.combine(place.first, partials.front(),
                       std::vector<cluster::ChunkRef>(partials.begin() + 1, partials.end()), op_,
                       type);
      }
      per_device.push_back(partials.front());
      lowest_rank = std::min(lowest_rank, place.first);
    }
    // Then per rank and over the ranks.
    cluster::ChunkRef result = per_device.front();
    const bool separate = per_device.size() > 1;
    if (separate) {
      result = driver.create_chunk(
          fmt::format("{}{} reduced for {}", array_.name(), component.box.describe(), kernel),
          component.box.elements() * element, lowest_rank);
      driver.reduce(per_device, result, op_, type);
    }
    // The result replaces the reduced elements wherever the array holds them.
    std::vector<cluster::BoxCopyRequest> replaced;
    for (const Region& region : component.regions) {
      chunks.for_each_meeting(region, [&](const ArrayChunk& chunk) {
        if (chunk.ref.id == result.id) return;  // reduced in place
        const Region part = *chunk.placement.region.intersect(region);
        replaced.push_back({result, box_in(component.box, part), chunk.ref,
                            box_in(chunk.placement.region, part), element});
      });
    }
    driver.copy_boxes(replaced);
    copies += replaced.size();
    for (const Partial& partial : component.partials)
      if (!partial.in_place) driver.destroy(partial.ref);
    if (separate) driver.destroy(result);
  }
  return copies;
}

}  // namespace strata::array::detail
