// Arrays::launch — the planner of distributed kernel launches (the lightning paper, §2.4).

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "chunk_boxes.hpp"
#include "chunk_index.hpp"
#include "kept_regions.hpp"
#include "launch_batches.hpp"
#include "reduce_plan.hpp"
#include "strata/array/arrays.hpp"
#include "strata/array/settings.hpp"
#include "strata/base/error.hpp"

namespace strata::array {
namespace {

using RuntimeAccess = runtime::Access;

bool writes(AccessMode mode) {
  return mode == AccessMode::write || mode == AccessMode::readwrite;
}

RuntimeAccess runtime_mode(AccessMode mode) {
  switch (mode) {
    case AccessMode::read:
      return RuntimeAccess::read;
    case AccessMode::write:
      return RuntimeAccess::write;
    default:
      return RuntimeAccess::read_write;
  }
}

Region region_of(const AccessRegion& access, std::uint32_t dims) {
  Region region;
  region.dims = dims;
  for (std::uint32_t d = 0; d < dims; ++d) {
    region.lo[d] = access.lower[d];
    region.hi[d] = std::max(access.lower[d], access.upper[d]);
  }
  return region;
}

std::array<std::uint64_t, 6> placement_of(const Region& region) {
  return {region.lo[0],
          region.lo[1],
          region.lo[2],
          region.hi[0] - region.lo[0],
          region.dims > 1 ? region.hi[1] - region.lo[1] : 1,
          region.dims > 2 ? region.hi[2] - region.lo[2] : 1};
}

// Checks the arguments against the kernel's signature; errors name kernel and parameter.
void check_arguments(const ArrayKernel& kernel, const std::vector<Argument>& args) {
  const auto& params = kernel.definition().params();
  if (args.size() != params.size()) {
    throw Error(fmt::format("launch of kernel '{}': {} arguments for {} parameters", kernel.name(),
                            args.size(), params.size()));
  }
  for (std::size_t p = 0; p < params.size(); ++p) {
    const auto& param = params[p];
    const auto fail = [&](const std::string& what) {
      throw Error(fmt::format("launch of kernel '{}', parameter '{}': {}", kernel.name(),
                              param.name, what));
    };
    if (param.is_array != args[p].is_array()) {
      fail(param.is_array ? "takes an array, was given a scalar"
                          : "takes a scalar, was given an array");
    }
    if (param.is_array) {
      const Array& array = args[p].array();
      if (!array.valid()) fail("the array was deleted or never made");
      if (array.type() != param.type) {
        fail(fmt::format("takes {} elements, array '{}' has {}", device::to_string(param.type),
                         array.name(), device::to_string(array.type())));
      }
      if (static_cast<int>(array.shape().dims) != param.rank) {
        fail(fmt::format("takes {} dimension(s), array '{}' has {}", param.rank, array.name(),
                         array.shape().dims));
      }
    } else if (args[p].scalar().type != param.type) {
      fail(fmt::format("takes a {}, was given a {}", device::to_string(param.type),
                       device::to_string(args[p].scalar().type)));
    }
  }
}

// Written regions of one array by different superblocks must not overlap: each would scatter
// its whole region, so one superblock's stale copy could overwrite another's results.
void check_disjoint_writes(const ArrayKernel& kernel, const std::string& param,
                           std::vector<std::pair<Region, std::size_t>> written) {
  std::sort(written.begin(), written.end(),
            [](const auto& a, const auto& b) { return a.first.lo[0] < b.first.lo[0]; });
  for (std::size_t i = 0; i < written.size(); ++i) {
    for (std::size_t j = i + 1;
         j < written.size() && written[j].first.lo[0] < written[i].first.hi[0]; ++j) {
      if (written[i].first.intersect(written[j].first)) {
        throw Error(fmt::format(
            "launch of kernel '{}': superblocks {} and {} both write {} and {} of '{}'; written "
            "regions must not overlap (choose a work distribution that matches the annotation "
            "'{}', or use reduce)",
            kernel.name(), written[i].second, written[j].second, written[i].first.describe(),
            written[j].first.describe(), param, kernel.annotation().text));
      }
    }
  }
}

// Superblocks run in batches only where no array is passed in two parameters of which one
// writes it: then no superblock reads what another one of the launch writes, and planning a
// superblock's kernel after a later one's (its batch closes later) changes nothing.
bool batchable(const ArrayKernel& kernel, const std::vector<Argument>& args) {
  for (std::size_t p = 0; p < args.size(); ++p) {
    if (!args[p].is_array() || !writes(kernel.access_of(p).mode)) continue;
    for (std::size_t q = 0; q < args.size(); ++q) {
      if (q != p && args[q].is_array() && &args[q].array().record() == &args[p].array().record()) {
        return false;
      }
    }
  }
  return true;
}

// Each place's batch limits: the bytes of the setting, at most a sixteenth of the device's
// capacity (a batch's chunks are staged together), and a count that leaves the place at least 8
// kernel tasks a launch.
std::map<std::pair<int, std::uint32_t>, detail::LaunchBatches::Limits> batch_limits(
    node::Node& node, const std::vector<SuperblockPlacement>& superblocks, bool batched) {
  std::map<std::pair<int, std::uint32_t>, detail::LaunchBatches::Limits> limits;
  const std::uint64_t setting = node.config().section<ArraySettings>().array_batch_bytes;
  for (const SuperblockPlacement& superblock : superblocks)
    ++limits[{superblock.place.rank, superblock.place.device}].superblocks;
  for (auto& [place, limit] : limits) {
    constexpr std::size_t least_tasks = 8;
    limit.superblocks = batched ? std::max<std::size_t>(1, limit.superblocks / least_tasks) : 1;
    limit.bytes = batched ? setting : 0;
    const auto devices = node.devices();
    if (place.second < devices.size()) {
      memory::MemoryManager& memory = node.memory();
      limit.bytes =
          std::min(limit.bytes, memory.capacity(memory.space_of(*devices[place.second])) / 16);
    }
  }
  return limits;
}

// A superblock's written region, held in `from`, copied to every other chunk that holds part of
// it (halos and replicas stay coherent); a temporary is dropped after. plan_scatter adds both to
// the batch's follow-up and returns the number of copies.
struct Scatter {
  cluster::ChunkRef from;
  Region held;
  Region region;
  const Array* array;
  const detail::ChunkIndex* chunks;
  const ArrayChunk* skip;  // the chunk the kernel wrote directly
  bool temporary;
  bool write_back;
};

std::uint64_t plan_scatter(detail::KeptRegions& kept, const Scatter& scatter,
                           detail::LaunchBatches::FollowUp& follow_up) {
  std::uint64_t copies = 0;
  if (scatter.write_back) {
    kept.forget(*scatter.array, scatter.region);
    const auto element = static_cast<std::uint32_t>(scatter.array->element_bytes());
    scatter.chunks->for_each_meeting(scatter.region, [&](const ArrayChunk& chunk) {
      if (&chunk == scatter.skip) return;
      const Region part = *chunk.placement.region.intersect(scatter.region);
      follow_up.copies.push_back({scatter.from, detail::box_in(scatter.held, part), chunk.ref,
                                  detail::box_in(chunk.placement.region, part), element});
      ++copies;
    });
  }
  if (scatter.temporary) follow_up.drops.push_back(scatter.from);
  return copies;
}

}  // namespace

void Arrays::launch(const ArrayKernel& kernel, const Grid& grid, const WorkDistribution& work,
                    const std::vector<Argument>& args) {
  check_arguments(kernel, args);
  const auto& params = kernel.definition().params();
  const std::size_t dims = grid.threads.size();
  if (dims < 1 || dims > 3 || grid.block.size() != dims) {
    throw Error(
        fmt::format("launch of kernel '{}': a grid has 1 to 3 dimensions, with a block "
                    "size for each ({} and {} given)",
                    kernel.name(), grid.threads.size(), grid.block.size()));
  }
  LaunchGeometry geometry;
  for (std::size_t d = 0; d < dims; ++d) {
    if (grid.threads[d] == 0 || grid.block[d] == 0) {
      throw Error(fmt::format("launch of kernel '{}': dimension {} has no threads or a zero block",
                              kernel.name(), d));
    }
    geometry.grid[d] = grid.threads[d];
    geometry.block[d] = grid.block[d];
  }
  LaunchArguments arguments;
  for (std::size_t p = 0; p < params.size(); ++p) {
    if (args[p].is_array()) {
      const Shape& shape = args[p].array().shape();
      arguments.shapes[params[p].name] =
          std::vector<std::uint64_t>(shape.extent.begin(), shape.extent.begin() + shape.dims);
    } else {
      arguments.scalars[params[p].name] = args[p].scalar().integer;
    }
  }
  const auto superblocks = work.superblocks(geometry.blocks(), static_cast<std::uint32_t>(dims),
                                            topology_.now(), kernel.name());
  // The access regions of every superblock first: errors come before anything is planned.
  std::vector<std::vector<AccessRegion>> regions;
  regions.reserve(superblocks.size());
  for (const SuperblockPlacement& superblock : superblocks)
    regions.push_back(access_regions(kernel.annotation(), geometry, superblock.blocks, arguments));
  std::map<std::size_t, detail::ReducePlan> reductions;  // by parameter
  for (std::size_t p = 0; p < params.size(); ++p) {
    if (!params[p].is_array) continue;
    const Access& access = kernel.access_of(p);
    if (access.mode == AccessMode::reduce) {
      std::vector<Region> reduced;
      reduced.reserve(superblocks.size());
      for (std::size_t s = 0; s < superblocks.size(); ++s) {
        reduced.push_back(
            region_of(regions[s][kernel.access_index(p)], args[p].array().shape().dims));
      }
      // Passed in another parameter too, its chunks must keep their contents for that one.
      bool shared = false;
      for (std::size_t q = 0; q < params.size(); ++q)
        shared |=
            q != p && args[q].is_array() && &args[q].array().record() == &args[p].array().record();
      reductions.try_emplace(p, args[p].array(), access.reduce_op, reduced, shared);
    }
    if (writes(access.mode)) {
      std::vector<std::pair<Region, std::size_t>> written;
      for (std::size_t s = 0; s < superblocks.size(); ++s) {
        const Region region =
            region_of(regions[s][kernel.access_index(p)], args[p].array().shape().dims);
        if (!region.empty()) written.emplace_back(region, s);
      }
      check_disjoint_writes(kernel, params[p].name, std::move(written));
    }
  }

  // Each array argument's chunks by position: a superblock finds its chunks without a pass over
  // all of them.
  std::vector<std::optional<detail::ChunkIndex>> chunk_index(params.size());
  for (std::size_t p = 0; p < params.size(); ++p)
    if (args[p].is_array()) chunk_index[p].emplace(args[p].array());

  const cluster::PlanBatch batch(driver_);
  detail::LaunchBatches batches(node_, driver_, kernel.name());
  // A superblock whose device the rank picks runs as a task of its own: a batch is one device's.
  const bool any_device = work.leaves_device_to_rank();
  const auto limits = batch_limits(node_, superblocks, !any_device && batchable(kernel, args));
  for (std::size_t s = 0; s < superblocks.size(); ++s) {
    const SuperblockPlacement& superblock = superblocks[s];
    const int rank = superblock.place.rank;
    detail::LaunchBatches::Batch& tasked =
        batches.open(superblock.place, s, limits.at({rank, superblock.place.device}));
    node::KernelLaunch launch;
    launch.kernel = kernel.name();
    launch.device = any_device ? node::KernelLaunch::any_device : superblock.place.device;
    launch.speedup = work.speedup();
    launch.dimensions = static_cast<int>(dims);
    launch.block = {1, 1, 1};  // unused dimensions: one thread
    for (std::size_t d = 0; d < dims; ++d) {
      const std::uint64_t first = superblock.blocks.lower[d] * grid.block[d];
      const std::uint64_t last =
          std::min(superblock.blocks.upper[d] * grid.block[d], grid.threads[d]);
      launch.global[d] = last - first;
      launch.block[d] = grid.block[d];
      launch.block_offset[d] = superblock.blocks.lower[d];
    }
    for (std::size_t p = 0; p < params.size(); ++p) {
      if (!args[p].is_array()) {
        node::PlannedArg value;
        value.type = args[p].scalar().type;
        value.scalar = args[p].scalar().bytes;
        launch.args.push_back(value);
        continue;
      }
      const Array& array = args[p].array();
      const std::uint64_t element = array.element_bytes();
      const AccessMode mode = kernel.access_of(p).mode;
      Region region = region_of(regions[s][kernel.access_index(p)], array.shape().dims);
      const auto use = [&](cluster::ChunkRef chunk, RuntimeAccess access, const Region& held) {
        launch.args.push_back(node::PlannedArg::array(
            tasked.use(chunk, access, held.elements() * element), array.type()));
        launch.placements.push_back(placement_of(held));
      };
      if (region.empty()) {
        // The superblock touches none of it: any chunk of the rank, or the first, read.
        const ArrayChunk* any = &array.chunks().front();
        for (const ArrayChunk& chunk : array.chunks())
          if (chunk.placement.place.rank == rank) any = &chunk;
        use(any->ref, RuntimeAccess::read, any->placement.region);
        continue;
      }
      if (const auto reduced = reductions.find(p); reduced != reductions.end()) {
        const Region& partial = reduced->second.partial_region(s);
        // Into the partial an earlier superblock of the batch combines into, or one of its
        // device's ring: a fresh one its kernel's task fills with the identity on the device
        // first, or one an earlier batch combined into.
        const std::pair<std::size_t, std::size_t> key{p, reduced->second.component(s)};
        if (const auto taken = tasked.reduction(key)) {
          launch.args.push_back(node::PlannedArg::array(*taken, array.type()));
          launch.placements.push_back(placement_of(partial));
          continue;
        }
        const detail::ReducePlan::Target target =
            reduced->second.add_partial(driver_, s, superblock.place, kernel.name());
        use(target.ref, target.fresh ? RuntimeAccess::write : RuntimeAccess::read_write, partial);
        tasked.set_reduction(key, launch.args.back().use);
        if (target.in_place) ++stats_.reduced_in_place;
        if (target.fresh) {
          launch.args.back().fill = true;
          launch.args.back().scalar = reduced->second.identity();
          ++stats_.reduce_partials;
        }
        continue;
      }
      // A chunk of the superblock's rank that holds the whole region, its own device's first.
      const detail::ChunkIndex& chunks = *chunk_index[p];
      const ArrayChunk* direct = nullptr;
      chunks.for_each_meeting(region, [&](const ArrayChunk& chunk) {
        if (chunk.placement.place.rank != rank || !chunk.placement.region.contains(region)) return;
        if (direct == nullptr || chunk.placement.place == superblock.place) direct = &chunk;
      });
      if (direct != nullptr) {
        ++stats_.direct_uses;
        // A write of part of a chunk keeps the rest: only a write of all of it starts afresh.
        const bool whole = region == direct->placement.region;
        use(direct->ref,
            mode == AccessMode::write && !whole ? RuntimeAccess::read_write : runtime_mode(mode),
            direct->placement.region);
        if (writes(mode)) {
          tasked.after([this, scatter = Scatter{direct->ref, direct->placement.region, region,
                                                &array, &chunks, direct, false,
                                                true}](detail::LaunchBatches::FollowUp& follow_up) {
            stats_.box_copies += plan_scatter(*kept_, scatter, follow_up);
          });
        }
        continue;
      }
      // A temporary chunk on the rank: for a read, assembled from every chunk that holds part of
      // the region; for a write, left as it is (as in the lightning paper: the annotation must
      // name only elements the kernel writes) and scattered back afterwards. Later planning may
      // drop it, so its batch ends with this superblock.
      // A read region assembled for an earlier launch is kept until the array is written there.
      tasked.close_after_this();
      if (mode == AccessMode::read) {
        if (const auto kept = kept_->find(array, rank, region)) {
          ++stats_.reused_regions;
          use(*kept, RuntimeAccess::read, region);
          continue;
        }
      }
      ++stats_.assembled_regions;
      const cluster::ChunkRef temporary = driver_.create_chunk(
          mode == AccessMode::read
              ? fmt::format("{}{} assembled on rank {}", array.name(), region.describe(), rank)
              : fmt::format("{}{} for {} superblock {}", array.name(), region.describe(),
                            kernel.name(), s),
          region.elements() * element, rank);
      if (mode != AccessMode::write) {
        std::vector<cluster::BoxCopyRequest> parts;
        chunks.for_each_meeting(region, [&](const ArrayChunk& chunk) {
          const Region part = *chunk.placement.region.intersect(region);
          parts.push_back({chunk.ref, detail::box_in(chunk.placement.region, part), temporary,
                           detail::box_in(region, part), static_cast<std::uint32_t>(element)});
        });
        driver_.copy_boxes(parts);
        stats_.box_copies += parts.size();
      }
      use(temporary, runtime_mode(mode), region);
      if (mode == AccessMode::read) {
        kept_->keep(array, rank, region, temporary);
        continue;
      }
      tasked.after(
          [this, scatter = Scatter{temporary, region, region, &array, &chunks, nullptr, true,
                                   writes(mode)}](detail::LaunchBatches::FollowUp& follow_up) {
            stats_.box_copies += plan_scatter(*kept_, scatter, follow_up);
          });
    }
    batches.add(tasked, std::move(launch));
    ++stats_.superblocks;
  }
  batches.close_all();
  stats_.kernel_tasks += batches.tasks();
  for (auto& [param, reduction] : reductions) {
    kept_->forget(args[param].array());
    stats_.box_copies += reduction.finish(driver_, kernel.name());
  }
  ++stats_.launches;
}

}  // namespace strata::array
