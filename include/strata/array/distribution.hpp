#pragma once
// Distributions (the lightning paper, §2.2): how an array's index space is cut into chunks and
// which device of which rank holds each. Chunks cover the whole array; they may overlap (halos
// of a stencil distribution, replicas), and overlapping elements are kept coherent by the planner.

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "strata/array/region.hpp"
#include "strata/cluster/device_load.hpp"

namespace strata::array {

// One device of one rank.
struct Place {
  int rank = 0;
  std::uint32_t device = 0;
  bool operator==(const Place&) const = default;
};

// How loaded a place is: the free bytes of its device's memory and the operations planned on it
// not finished yet.
using PlaceLoad = cluster::DeviceLoad;

// The devices of every rank, in rank order, and how loaded each is: what a distribution places
// chunks on.
struct Topology {
  std::vector<std::uint32_t> devices_per_rank;
  // Per rank, per device: its load when the topology was read (Arrays reads the driver's view,
  // cluster::Driver::loads, each time it places chunks or superblocks). Missing entries are
  // unknown. Only the automatic distributions read them.
  std::vector<std::vector<PlaceLoad>> loads = {};

  // Every place, rank by rank, each rank's devices in order.
  std::vector<Place> places() const;
  bool contains(const Place& place) const;
  // The place's load, if known.
  std::optional<PlaceLoad> load(const Place& place) const;
};

// A chunk of a distribution: the elements it holds, and where.
struct ChunkPlacement {
  Region region;
  Place place;
};

class Distribution {
 public:
  // How consecutive chunks are spread over the places: in contiguous groups (neighbours share a
  // device, so a stencil's halo exchange mostly stays on it), one each in turn, or by the places'
  // loads (Topology::loads) — each chunk in turn to the place with the most free memory (ties:
  // the least queued work), or with the least queued work (ties: the most free memory). What a
  // call assigned already counts: a chunk takes its bytes from its place's free memory and adds
  // one to its queued work, so one call spreads over equal places instead of piling onto one.
  enum class Assign { blocked, round_robin, most_free_memory, least_queued_work };
  using Custom = std::function<std::vector<ChunkPlacement>(const Shape&, const Topology&)>;

  // Blocks of `rows` along dimension 0 (the last one shorter), whole along the others.
  static Distribution row_blocks(std::uint64_t rows);
  // Blocks of `columns` along dimension 1 (arrays of 2 or 3 dimensions).
  static Distribution column_blocks(std::uint64_t columns);
  // Tiles of the given extents (one per dimension of the array; missing ones whole).
  static Distribution tiles(std::vector<std::uint64_t> tile);
  // Tiles with a border of `halo` elements on each side (clamped to the array): the borders of
  // neighbouring tiles overlap and are kept coherent.
  static Distribution stencil(std::vector<std::uint64_t> tile, std::vector<std::uint64_t> halo);
  // A whole copy of the array on every place.
  static Distribution replicated();
  // Tiles dealt one per place in turn over the devices of all ranks.
  static Distribution round_robin(std::vector<std::uint64_t> tile);
  // Tiles placed by Strata where device memory is free (Assign::most_free_memory): each to the
  // place with the most free bytes when the array is made, counting the tiles placed before it
  // (ties: the least queued work, then the first place). Where the loads are unknown (a
  // synthetic topology, a rank that reported none yet) the places count as equal, so the tiles
  // spread evenly.
  static Distribution automatic(std::vector<std::uint64_t> tile);
  // The user's chunks; checked to lie in the array, on known places, and to cover it.
  static Distribution custom(std::string name, Custom chunks);

  // The same cut, with chunks spread by `assign`.
  Distribution assigned(Assign assign) const;

  // The chunks for an array of `shape` (elements of `element_bytes`, which automatic placement
  // counts against free memory) over `topology`; throws naming the distribution and the array
  // when they cannot be made (a zero tile, a column split of a 1-D array, a custom chunk outside
  // the array or on an unknown device, elements no chunk covers).
  std::vector<ChunkPlacement> chunks(const Shape& shape, const Topology& topology,
                                     const std::string& array = "the array",
                                     std::uint64_t element_bytes = 1) const;
  const std::string& describe() const { return name_; }

 private:
  enum class Kind { tiles, replicated, custom };
  Distribution(Kind kind, std::string name) : kind_(kind), name_(std::move(name)) {}
  std::vector<Region> cut(const Shape& shape, const std::string& array) const;

  Kind kind_;
  std::string name_;
  std::vector<std::uint64_t> tile_;  // 0: whole dimension
  std::vector<std::uint64_t> halo_;
  std::int32_t split_dimension_ = -1;  // row/column blocks: the one dimension cut
  Assign assign_ = Assign::blocked;
  Custom custom_;
};

// For items of `bytes` each (in order), the index in `places` each goes to under `assign`
// (most_free_memory or least_queued_work) by the places' loads in `topology`, counting the items
// placed before it.
std::vector<std::size_t> place_by_load(std::span<const Place> places, const Topology& topology,
                                       std::span<const std::uint64_t> bytes,
                                       Distribution::Assign assign);

// Throws naming `array` and `distribution` unless every element of `shape` lies in some chunk.
void check_covers(std::span<const ChunkPlacement> chunks, const Shape& shape,
                  const std::string& array, const std::string& distribution);

}  // namespace strata::array
