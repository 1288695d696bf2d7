#include "strata/array/distribution.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "strata/base/error.hpp"

namespace strata::array {

std::vector<Place> Topology::places() const {
  std::vector<Place> places;
  for (std::size_t rank = 0; rank < devices_per_rank.size(); ++rank)
    for (std::uint32_t device = 0; device < devices_per_rank[rank]; ++device)
      places.push_back(Place{static_cast<int>(rank), device});
  return places;
}

bool Topology::contains(const Place& place) const {
  return place.rank >= 0 && static_cast<std::size_t>(place.rank) < devices_per_rank.size() &&
         place.device < devices_per_rank[static_cast<std::size_t>(place.rank)];
}

std::optional<PlaceLoad> Topology::load(const Place& place) const {
  if (place.rank < 0 || static_cast<std::size_t>(place.rank) >= loads.size()) return std::nullopt;
  const auto& devices = loads[static_cast<std::size_t>(place.rank)];
  if (place.device >= devices.size()) return std::nullopt;
  return devices[place.device];
}

std::vector<std::size_t> place_by_load(std::span<const Place> places, const Topology& topology,
                                       std::span<const std::uint64_t> bytes,
                                       Distribution::Assign assign) {
  // A place whose load is unknown counts as the freest known one with nothing queued: it has
  // not reported yet (it has done nothing), or the topology is synthetic (all equal).
  std::uint64_t freest = 0;
  for (const Place& place : places)
    if (const auto load = topology.load(place)) freest = std::max(freest, load->free_bytes);
  struct State {
    std::uint64_t free_bytes;
    std::uint64_t queued;
  };
  std::vector<State> states;
  states.reserve(places.size());
  for (const Place& place : places) {
    const auto load = topology.load(place);
    states.push_back(load ? State{load->free_bytes, load->queued} : State{freest, 0});
  }
  const bool memory_first = assign == Distribution::Assign::most_free_memory;
  const auto better = [memory_first](const State& a, const State& b) {
    if (memory_first && a.free_bytes != b.free_bytes) return a.free_bytes > b.free_bytes;
    if (a.queued != b.queued) return a.queued < b.queued;
    return a.free_bytes > b.free_bytes;
  };
  std::vector<std::size_t> chosen;
  chosen.reserve(bytes.size());
  for (const std::uint64_t item : bytes) {
    std::size_t best = 0;
    for (std::size_t p = 1; p < states.size(); ++p)
      if (better(states[p], states[best])) best = p;
    chosen.push_back(best);
    State& state = states[best];
    state.free_bytes -= std::min(state.free_bytes, item);
    ++state.queued;
  }
  return chosen;
}

namespace {

void check_tile(const std::vector<std::uint64_t>& tile, const char* what) {
  if (tile.empty() || tile.size() > 3) {
    throw Error(
        fmt::format("a {} distribution takes 1 to 3 tile extents, not {}", what, tile.size()));
  }
  for (std::uint64_t extent : tile)
    if (extent == 0) throw Error(fmt::format("a {} distribution's tile extent is 0", what));
}

}  // namespace

Distribution Distribution::row_blocks(std::uint64_t rows) {
  if (rows == 0) throw Error("a row-block distribution needs at least 1 row per chunk");
  Distribution made(Kind::tiles, fmt::format("row blocks of {}", rows));
  made.tile_ = {rows};
  made.split_dimension_ = 0;
  return made;
}

Distribution Distribution::column_blocks(std::uint64_t columns) {
  if (columns == 0) throw Error("a column-block distribution needs at least 1 column per chunk");
  Distribution made(Kind::tiles, fmt::format("column blocks of {}", columns));
  made.tile_ = {0, columns};
  made.split_dimension_ = 1;
  return made;
}

Distribution Distribution::tiles(std::vector<std::uint64_t> tile) {
  check_tile(tile, "tile");
  Distribution made(Kind::tiles, fmt::format("tiles of {}", fmt::join(tile, "x")));
  made.tile_ = std::move(tile);
  return made;
}

Distribution Distribution::stencil(std::vector<std::uint64_t> tile,
                                   std::vector<std::uint64_t> halo) {
  check_tile(tile, "stencil");
  if (halo.size() != tile.size()) {
    throw Error(fmt::format("a stencil distribution takes a halo per tile extent ({} given for {})",
                            halo.size(), tile.size()));
  }
  Distribution made(Kind::tiles, fmt::format("stencil tiles of {} with halo {}",
                                             fmt::join(tile, "x"), fmt::join(halo, "x")));
  made.tile_ = std::move(tile);
  made.halo_ = std::move(halo);
  return made;
}

Distribution Distribution::replicated() {
  return Distribution(Kind::replicated, "replicated");
}

Distribution Distribution::round_robin(std::vector<std::uint64_t> tile) {
  Distribution made = tiles(std::move(tile));
  made.assign_ = Assign::round_robin;
  made.name_ += ", round-robin";
  return made;
}

Distribution Distribution::automatic(std::vector<std::uint64_t> tile) {
  return tiles(std::move(tile)).assigned(Assign::most_free_memory);
}

Distribution Distribution::custom(std::string name, Custom chunks) {
  if (!chunks) throw Error("custom distribution '" + name + "' has no function");
  Distribution made(Kind::custom, "custom '" + name + "'");
  made.custom_ = std::move(chunks);
  return made;
}

namespace {

const char* suffix_of(Distribution::Assign assign) {
  switch (assign) {
    case Distribution::Assign::round_robin:
      return ", round-robin";
    case Distribution::Assign::most_free_memory:
      return ", placed where memory is free";
    case Distribution::Assign::least_queued_work:
      return ", placed where little work is queued";
    case Distribution::Assign::blocked:
      break;
  }
  return "";
}

}  // namespace

Distribution Distribution::assigned(Assign assign) const {
  Distribution made = *this;
  if (made.assign_ != assign) {
    const std::string old_suffix = suffix_of(made.assign_);
    if (!old_suffix.empty() && made.name_.ends_with(old_suffix))
      made.name_.resize(made.name_.size() - old_suffix.size());
    made.name_ += suffix_of(assign);
  }
  made.assign_ = assign;
  return made;
}

std::vector<Region> Distribution::cut(const Shape& shape, const std::string& array) const {
  if (split_dimension_ >= static_cast<std::int32_t>(shape.dims)) {
    throw Error(fmt::format("{} ({}) cannot have {}: it has {} dimension(s)", array,
                            shape.describe(), name_, shape.dims));
  }
  if (split_dimension_ < 0 && tile_.size() > shape.dims) {
    throw Error(fmt::format("{} ({}) cannot have {}: {} tile extents for {} dimension(s)", array,
                            shape.describe(), name_, tile_.size(), shape.dims));
  }
  std::array<std::uint64_t, 3> tile = shape.extent;
  std::array<std::uint64_t, 3> halo{0, 0, 0};
  for (std::size_t d = 0; d < tile_.size(); ++d) {
    if (tile_[d] != 0) tile[d] = std::min(tile_[d], shape.extent[d]);
    if (d < halo_.size()) halo[d] = halo_[d];
  }
  std::array<std::uint64_t, 3> count{1, 1, 1};
  for (std::uint32_t d = 0; d < shape.dims; ++d)
    count[d] = (shape.extent[d] + tile[d] - 1) / tile[d];
  std::vector<Region> regions;
  regions.reserve(count[0] * count[1] * count[2]);
  for (std::uint64_t i = 0; i < count[0]; ++i) {
    for (std::uint64_t j = 0; j < count[1]; ++j) {
      for (std::uint64_t k = 0; k < count[2]; ++k) {
        const std::array<std::uint64_t, 3> index{i, j, k};
        Region region;
        region.dims = shape.dims;
        for (std::uint32_t d = 0; d < shape.dims; ++d) {
          const std::uint64_t lo = index[d] * tile[d];
          const std::uint64_t hi = std::min(lo + tile[d], shape.extent[d]);
          region.lo[d] = lo > halo[d] ? lo - halo[d] : 0;
          region.hi[d] = std::min(hi + halo[d], shape.extent[d]);
        }
        regions.push_back(region);
      }
    }
  }
  return regions;
}

std::vector<ChunkPlacement> Distribution::chunks(const Shape& shape, const Topology& topology,
                                                 const std::string& array,
                                                 std::uint64_t element_bytes) const {
  const std::vector<Place> places = topology.places();
  if (places.empty()) {
    throw Error(fmt::format("{} has no device to go to: the topology lists none", array));
  }
  std::vector<ChunkPlacement> chunks;
  switch (kind_) {
    case Kind::replicated:
      for (const Place& place : places)
        chunks.push_back(ChunkPlacement{Region::whole(shape), place});
      return chunks;
    case Kind::custom: {
      chunks = custom_(shape, topology);
      for (std::size_t i = 0; i < chunks.size(); ++i) {
        const ChunkPlacement& chunk = chunks[i];
        if (chunk.region.dims != shape.dims || chunk.region.empty() ||
            !chunk.region.within(shape)) {
          throw Error(fmt::format("{} chunk {} of {} ({}) is {}: not a non-empty region of it",
                                  name_, i, array, shape.describe(), chunk.region.describe()));
        }
        if (!topology.contains(chunk.place)) {
          throw Error(
              fmt::format("{} puts chunk {} of {} on device {} of rank {}, which does "
                          "not exist",
                          name_, i, array, chunk.place.device, chunk.place.rank));
        }
      }
      check_covers(chunks, shape, array, name_);
      return chunks;
    }
    case Kind::tiles:
      break;
  }
  const std::vector<Region> regions = cut(shape, array);
  const std::size_t n = regions.size();
  if (assign_ == Assign::most_free_memory || assign_ == Assign::least_queued_work) {
    std::vector<std::uint64_t> bytes;
    bytes.reserve(n);
    for (const Region& region : regions)
      bytes.push_back(region.elements() * element_bytes);
    const std::vector<std::size_t> slots = place_by_load(places, topology, bytes, assign_);
    for (std::size_t i = 0; i < n; ++i)
      chunks.push_back(ChunkPlacement{regions[i], places[slots[i]]});
    return chunks;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t slot =
        assign_ == Assign::round_robin ? i % places.size() : i * places.size() / n;
    chunks.push_back(ChunkPlacement{regions[i], places[slot]});
  }
  return chunks;
}

void check_covers(std::span<const ChunkPlacement> chunks, const Shape& shape,
                  const std::string& array, const std::string& distribution) {
  // The chunks' bounds cut the array into cells that lie wholly inside or outside each chunk:
  // checking one point per cell checks every element.
  std::array<std::vector<std::uint64_t>, 3> cuts;
  for (std::uint32_t d = 0; d < 3; ++d) {
    std::set<std::uint64_t> bounds{0, shape.extent[d]};
    if (d < shape.dims) {
      for (const ChunkPlacement& chunk : chunks) {
        bounds.insert(std::min(chunk.region.lo[d], shape.extent[d]));
        bounds.insert(std::min(chunk.region.hi[d], shape.extent[d]));
      }
    }
    cuts[d].assign(bounds.begin(), bounds.end());
  }
  for (std::size_t i = 0; i + 1 < cuts[0].size(); ++i) {
    for (std::size_t j = 0; j + 1 < cuts[1].size(); ++j) {
      for (std::size_t k = 0; k + 1 < cuts[2].size(); ++k) {
        const std::array<std::uint64_t, 3> point{cuts[0][i], cuts[1][j], cuts[2][k]};
        const bool covered = std::any_of(chunks.begin(), chunks.end(), [&](const auto& chunk) {
          for (std::uint32_t d = 0; d < shape.dims; ++d)
            if (point[d] < chunk.region.lo[d] || point[d] >= chunk.region.hi[d]) return false;
          return true;
        });
        if (!covered) {
          Region cell;
          cell.dims = shape.dims;
          for (std::uint32_t d = 0; d < shape.dims; ++d) {
            const std::size_t at = d == 0 ? i : d == 1 ? j : k;
            cell.lo[d] = cuts[d][at];
            cell.hi[d] = cuts[d][at + 1];
          }
          throw Error(fmt::format("{} of {} ({}) leaves elements {} in no chunk", distribution,
                                  array, shape.describe(), cell.describe()));
        }
      }
    }
  }
}

}  // namespace strata::array
