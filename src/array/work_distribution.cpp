#include "strata/array/work_distribution.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "strata/base/error.hpp"

namespace strata::array {
namespace {

Region region_of(const Superblock& superblock, std::uint32_t dims) {
  Region region;
  region.dims = dims;
  for (std::uint32_t d = 0; d < dims; ++d) {
    region.lo[d] = superblock.lower[d];
    region.hi[d] = superblock.upper[d];
  }
  return region;
}

Shape shape_of(const std::array<std::uint64_t, 3>& blocks, std::uint32_t dims) {
  return Shape::of(std::span(blocks.data(), dims), "the launch's grid of blocks");
}

}  // namespace

WorkDistribution WorkDistribution::tiled(std::vector<std::uint64_t> blocks) {
  WorkDistribution made(Kind::tiled,
                        fmt::format("superblocks of {} blocks", fmt::join(blocks, "x")));
  Distribution::tiles(blocks);  // checks the extents
  made.tile_ = std::move(blocks);
  return made;
}

WorkDistribution WorkDistribution::round_robin(std::vector<std::uint64_t> blocks) {
  WorkDistribution made = tiled(std::move(blocks));
  made.assign_ = Distribution::Assign::round_robin;
  made.name_ += ", round-robin";
  return made;
}

WorkDistribution WorkDistribution::automatic(std::vector<std::uint64_t> blocks) {
  WorkDistribution made = tiled(std::move(blocks));
  made.assign_ = Distribution::Assign::least_queued_work;
  made.name_ += ", placed where little work is queued";
  return made;
}

WorkDistribution WorkDistribution::even() {
  return WorkDistribution(Kind::even, "one superblock per device");
}

WorkDistribution WorkDistribution::custom(std::string name, Custom superblocks) {
  if (!superblocks) throw Error("custom work distribution '" + name + "' has no function");
  WorkDistribution made(Kind::custom, "custom '" + name + "'");
  made.custom_ = std::move(superblocks);
  return made;
}

WorkDistribution WorkDistribution::on_any_device(double speedup) const {
  if (!(speedup >= 0)) {
    throw Error(
        fmt::format("work distribution '{}': a speedup on any device is 0 (learned) or "
                    "positive, not {}",
                    name_, speedup));
  }
  WorkDistribution made = *this;
  made.any_device_ = true;
  made.speedup_ = speedup;
  made.name_ += ", on any device of its rank";
  return made;
}

std::vector<SuperblockPlacement> WorkDistribution::superblocks(
    const std::array<std::uint64_t, 3>& blocks, std::uint32_t dims, const Topology& topology,
    const std::string& kernel) const {
  const Shape grid = shape_of(blocks, dims);
  const std::string what = "the launch of kernel '" + kernel + "'";
  std::vector<SuperblockPlacement> placed;
  if (kind_ == Kind::custom) {
    placed = custom_(blocks, topology);
    std::vector<ChunkPlacement> as_chunks;
    for (std::size_t i = 0; i < placed.size(); ++i) {
      const Region region = region_of(placed[i].blocks, dims);
      if (region.empty() || !region.within(grid)) {
        throw Error(
            fmt::format("{} gives superblock {} of {} as blocks {}: not a non-empty part "
                        "of the grid of {} blocks",
                        name_, i, what, region.describe(), grid.describe()));
      }
      if (!topology.contains(placed[i].place)) {
        throw Error(
            fmt::format("{} puts superblock {} of {} on device {} of rank {}, which does "
                        "not exist",
                        name_, i, what, placed[i].place.device, placed[i].place.rank));
      }
      for (std::size_t j = 0; j < as_chunks.size(); ++j) {
        if (as_chunks[j].region.intersect(region)) {
          throw Error(
              fmt::format("{} gives {} overlapping superblocks {} and {} (blocks {} and "
                          "{}): superblocks must be disjoint",
                          name_, what, j, i, as_chunks[j].region.describe(), region.describe()));
        }
      }
      as_chunks.push_back(ChunkPlacement{region, placed[i].place});
    }
    check_covers(as_chunks, grid, what, name_);
    return placed;
  }
  std::vector<std::uint64_t> tile = tile_;
  if (kind_ == Kind::even) {
    const std::uint64_t places = topology.places().size();
    tile.assign(dims, 0);
    for (std::uint32_t d = 0; d < dims; ++d)
      tile[d] = blocks[d];
    const std::uint32_t slow = dims - 1;
    tile[slow] = std::max<std::uint64_t>(
        1, (blocks[slow] + places - 1) / std::max<std::uint64_t>(1, places));
  }
  tile.resize(dims, 0);
  for (std::uint32_t d = 0; d < dims; ++d)
    if (tile[d] == 0) tile[d] = blocks[d];
  const auto chunks = Distribution::tiles(tile).assigned(assign_).chunks(grid, topology, what);
  for (const ChunkPlacement& chunk : chunks) {
    SuperblockPlacement superblock;
    for (std::uint32_t d = 0; d < dims; ++d) {
      superblock.blocks.lower[d] = chunk.region.lo[d];
      superblock.blocks.upper[d] = chunk.region.hi[d];
    }
    superblock.place = chunk.place;
    placed.push_back(superblock);
  }
  return placed;
}

}  // namespace strata::array
