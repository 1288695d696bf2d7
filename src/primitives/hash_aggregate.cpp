#include "hash_aggregate.hpp"

#include <fmt/format.h>

#include <array>
#include <bit>
#include <vector>

#include "strata/base/error.hpp"
#include "strata/device/device.hpp"

namespace strata::primitives::detail {
namespace {

using device::CpuBlock;
using device::ElementType;
using device::KernelDefinition;
using device::ParamAccess;

std::uint32_t partition_of(std::uint64_t hash) {
  return static_cast<std::uint32_t>(hash >> 56);  // hash_partitions = 2^8
}

// Open addressing with linear probing over a power-of-two table. A slot holds its group (key,
// count, sum; a count of 0 marks it empty), so a probe reads one line; a slot's first probe is
// slot_of_key's (Fibonacci hashing: one multiply), and a hit is tested first. The table doubles at
// a sixteenth load while it is small (at most small_slots: a few hundred KiB, within L2; a second
// probe, a mispredicted branch, for at most about one record in 30) and at a quarter when larger.
// It lists its groups' slots in order of first appearance: for_each walks them, and clear() empties
// only them while they are few. A table keeps its size across tiles (tiles of one input have
// similar numbers of groups) unless it was four times too large for what it last held.
template <typename U, typename T>
class GroupTable {
 public:
  struct Group {
    U key;
    std::uint32_t count;
    T sum;
  };
  void clear() {
    const std::size_t fit = slots_for(used_.size());
    if (fit * 4 <= slots_.size()) {
      resize(fit);
    } else if (used_.size() * 16 < slots_.size()) {
      for (const std::size_t at : used_)
        slots_[at] = Group{};
    } else {
      std::fill(slots_.begin(), slots_.end(), Group{});
    }
    used_.clear();
  }
  // Adds count_of(i) records of keys[i] summing to values[i], for i < n; the table's shape stays
  // in registers between insertions.
  template <typename Count>
  void add(const U* keys, const T* values, std::uint64_t n, Count&& count_of) {
    Group* slots = slots_.data();
    std::size_t mask = mask_;
    int shift = shift_;
    for (std::uint64_t i = 0; i < n; ++i) {
      const U key = keys[i];
      for (std::size_t at = slot_of_key(key, shift);; at = (at + 1) & mask) {
        Group& slot = slots[at];
        if ((slot.key == key) & (slot.count != 0)) {
          slot.count += count_of(i);
          slot.sum += values[i];
          break;
        }
        if (slot.count == 0) {
          slot = Group{key, count_of(i), values[i]};
          used_.push_back(at);
          if (used_.size() * max_load(slots_.size()) > slots_.size()) {
            grow();
            slots = slots_.data();
            mask = mask_;
            shift = shift_;
          }
          break;
        }
      }
    }
  }
  // Calls f(group) for each group, in order of first appearance.
  template <typename F>
  void for_each(F&& f) const {
    for (const std::size_t at : used_)
      f(slots_[at]);
  }

 private:
  static constexpr std::size_t small_slots = 16384;
  static constexpr std::size_t min_slots = 4096;
  static std::size_t max_load(std::size_t slots) { return slots <= small_slots ? 16 : 4; }
  // The fewest slots (at least min_slots) that hold `groups` within the load.
  static std::size_t slots_for(std::size_t groups) {
    std::size_t slots = min_slots;
    while (groups * max_load(slots) > slots)
      slots *= 2;
    return slots;
  }
  void grow() {
    std::vector<Group> old(slots_.size() * 2);
    old.swap(slots_);
    reshape();
    for (std::size_t& at : used_)
      at = place(old[at]);
  }
  void resize(std::size_t slots) {
    slots_.assign(slots, Group{});
    reshape();
  }
  void reshape() {
    mask_ = slots_.size() - 1;
    shift_ = 64 - std::countr_zero(slots_.size());
  }
  // Puts a group of a key not in the table into its first free slot; returns the slot.
  std::size_t place(const Group& group) {
    std::size_t at = slot_of_key(group.key, shift_);
    while (slots_[at].count != 0)
      at = (at + 1) & mask_;
    slots_[at] = group;
    return at;
  }
  std::vector<Group> slots_ = std::vector<Group>(min_slots);
  std::vector<std::size_t> used_;
  std::size_t mask_ = min_slots - 1;
  int shift_ = 64 - std::countr_zero(min_slots);
};

// Reused per thread (a tile's table costs no allocation): one for the tiles, one for the merges
// of partitions, which hold fewer groups.
template <typename U, typename T>
GroupTable<U, T>& tile_table() {
  thread_local GroupTable<U, T> kept;
  kept.clear();
  return kept;
}
template <typename U, typename T>
GroupTable<U, T>& merge_table() {
  thread_local GroupTable<U, T> kept;
  kept.clear();
  return kept;
}

template <typename U, typename T>
void cpu_tile_aggregate(const CpuBlock& block) {
  const auto n = block.scalar<std::uint64_t>(0);
  const auto tile = block.scalar<std::uint64_t>(1);
  const auto tiles = block.scalar<std::uint64_t>(2);
  const U* keys = block.array<U>(3);
  const T* values = block.array<T>(4);
  U* entry_keys = block.array<U>(5);
  std::uint32_t* entry_counts = block.array<std::uint32_t>(6);
  T* entry_sums = block.array<T>(7);
  std::uint32_t* bucket_starts = block.array<std::uint32_t>(8);
  std::uint32_t* bucket_sizes = block.array<std::uint32_t>(9);
  std::uint32_t* bucket_offsets = block.array<std::uint32_t>(10);
  const std::uint64_t t = block.begin.x;
  const std::uint64_t first = t * tile;
  const std::uint64_t last = std::min(n, first + tile);
  GroupTable<U, T>& groups = tile_table<U, T>();
  groups.add(keys + first, values + first, last - first, [](std::uint64_t) { return 1u; });
  // The tile's groups bucketed by partition, each bucket in order of first appearance.
  thread_local std::vector<std::uint8_t> partitions;  // each group's, hashed once
  partitions.clear();
  std::array<std::uint32_t, hash_partitions> sizes{};
  groups.for_each([&](const auto& group) {
    const std::uint32_t p = partition_of(hash_of_key(group.key));
    partitions.push_back(static_cast<std::uint8_t>(p));
    ++sizes[p];
  });
  std::array<std::uint32_t, hash_partitions> next{};
  std::uint32_t start = 0;
  for (std::uint32_t p = 0; p < hash_partitions; ++p) {
    next[p] = start;
    bucket_starts[t * hash_partitions + p] = start;
    bucket_sizes[p * tiles + t] = sizes[p];
    bucket_offsets[p * tiles + t] = sizes[p];
    start += sizes[p];
  }
  std::size_t g = 0;
  groups.for_each([&](const auto& group) {
    const std::uint64_t at = first + next[partitions[g++]]++;
    entry_keys[at] = group.key;
    entry_counts[at] = group.count;
    entry_sums[at] = group.sum;
  });
}

template <typename U, typename T>
void cpu_partition_merge(const CpuBlock& block) {
  const auto tile = block.scalar<std::uint64_t>(1);
  const auto tiles = block.scalar<std::uint64_t>(2);
  const U* entry_keys = block.array<U>(3);
  const std::uint32_t* entry_counts = block.array<std::uint32_t>(4);
  const T* entry_sums = block.array<T>(5);
  const std::uint32_t* bucket_starts = block.array<std::uint32_t>(6);
  const std::uint32_t* bucket_sizes = block.array<std::uint32_t>(7);
  const std::uint32_t* bucket_offsets = block.array<std::uint32_t>(8);
  U* merged_keys = block.array<U>(9);
  std::uint32_t* merged_counts = block.array<std::uint32_t>(10);
  T* merged_sums = block.array<T>(11);
  std::uint64_t* partition_groups = block.array<std::uint64_t>(12);
  const std::uint64_t p = block.begin.x;
  GroupTable<U, T>& groups = merge_table<U, T>();
  for (std::uint64_t t = 0; t < tiles; ++t) {
    const std::uint64_t from = t * tile + bucket_starts[t * hash_partitions + p];
    const std::uint64_t to = from + bucket_sizes[p * tiles + t];
    groups.add(entry_keys + from, entry_sums + from, to - from,
               [&](std::uint64_t e) { return entry_counts[from + e]; });
  }
  // Into the partition's region: it holds every bucket of the partition, at least its groups.
  const std::uint64_t region = bucket_offsets[p * tiles];
  std::uint64_t g = region;
  groups.for_each([&](const auto& group) {
    merged_keys[g] = group.key;
    merged_counts[g] = group.count;
    merged_sums[g] = group.sum;
    ++g;
  });
  partition_groups[p] = g - region;
}

template <typename U, typename T>
void cpu_pack(const CpuBlock& block) {
  const auto tiles = block.scalar<std::uint64_t>(0);
  const std::uint32_t* bucket_offsets = block.array<std::uint32_t>(1);
  const std::uint64_t* packed_starts = block.array<std::uint64_t>(2);
  const U* merged_keys = block.array<U>(3);
  const std::uint32_t* merged_counts = block.array<std::uint32_t>(4);
  const T* merged_sums = block.array<T>(5);
  U* keys = block.array<U>(6);
  std::uint32_t* counts = block.array<std::uint32_t>(7);
  T* sums = block.array<T>(8);
  const std::uint64_t p = block.begin.x;
  const std::uint64_t region = bucket_offsets[p * tiles];
  const std::uint64_t to = packed_starts[p];
  const std::uint64_t size = packed_starts[p + 1] - to;
  for (std::uint64_t g = 0; g < size; ++g) {
    keys[to + g] = merged_keys[region + g];
    counts[to + g] = merged_counts[region + g];
    sums[to + g] = merged_sums[region + g];
  }
  if (p == 0) block.array<std::uint64_t>(9)[0] = packed_starts[hash_partitions];
}

// Calls f(U{}, T{}) for the key bits and value types.
template <typename F>
void by_types(ElementType bits, ElementType value, F&& f) {
  const auto with_value = [&](auto u) {
    switch (value) {
      case ElementType::i32:
        return f(u, std::int32_t{});
      case ElementType::u32:
        return f(u, std::uint32_t{});
      case ElementType::i64:
        return f(u, std::int64_t{});
      case ElementType::u64:
        return f(u, std::uint64_t{});
      case ElementType::f32:
        return f(u, float{});
      case ElementType::f64:
        return f(u, double{});
      default:
        throw Error(fmt::format("aggregate_by_key: values of type {}", device::to_string(value)));
    }
  };
  if (bits == ElementType::u32) return with_value(std::uint32_t{});
  if (bits == ElementType::u64) return with_value(std::uint64_t{});
  throw Error(fmt::format("aggregate_by_key: keys of {} bits", device::to_string(bits)));
}

std::string name_of(const char* operation, ElementType bits, ElementType value) {
  return fmt::format("strata_{}_{}_{}", operation, device::to_string(bits),
                     device::to_string(value));
}

}  // namespace

KernelDefinition hash_tile_aggregate_kernel(ElementType bits, ElementType value) {
  KernelDefinition kernel(name_of("hash_tile_aggregate", bits, value));
  kernel.scalar<std::uint64_t>("n").scalar<std::uint64_t>("tile").scalar<std::uint64_t>("tiles");
  kernel.array("keys", bits, ParamAccess::read)
      .array("values", value, ParamAccess::read)
      .array("entry_keys", bits, ParamAccess::write)
      .array<std::uint32_t>("entry_counts", ParamAccess::write)
      .array("entry_sums", value, ParamAccess::write)
      .array<std::uint32_t>("bucket_starts", ParamAccess::write)
      .array<std::uint32_t>("bucket_sizes", ParamAccess::write)
      .array<std::uint32_t>("bucket_offsets", ParamAccess::write);
  by_types(bits, value,
           [&](auto u, auto t) { kernel.cpu(&cpu_tile_aggregate<decltype(u), decltype(t)>); });
  return kernel;
}

KernelDefinition hash_partition_merge_kernel(ElementType bits, ElementType value) {
  KernelDefinition kernel(name_of("hash_partition_merge", bits, value));
  kernel.scalar<std::uint64_t>("n").scalar<std::uint64_t>("tile").scalar<std::uint64_t>("tiles");
  kernel.array("entry_keys", bits, ParamAccess::read)
      .array<std::uint32_t>("entry_counts", ParamAccess::read)
      .array("entry_sums", value, ParamAccess::read)
      .array<std::uint32_t>("bucket_starts", ParamAccess::read)
      .array<std::uint32_t>("bucket_sizes", ParamAccess::read)
      .array<std::uint32_t>("bucket_offsets", ParamAccess::read)
      .array("merged_keys", bits, ParamAccess::write)
      .array<std::uint32_t>("merged_counts", ParamAccess::write)
      .array("merged_sums", value, ParamAccess::write)
      .array<std::uint64_t>("partition_groups", ParamAccess::write);
  by_types(bits, value,
           [&](auto u, auto t) { kernel.cpu(&cpu_partition_merge<decltype(u), decltype(t)>); });
  return kernel;
}

KernelDefinition hash_pack_kernel(ElementType bits, ElementType value) {
  KernelDefinition kernel(name_of("hash_pack", bits, value));
  kernel.scalar<std::uint64_t>("tiles");
  kernel.array<std::uint32_t>("bucket_offsets", ParamAccess::read)
      .array<std::uint64_t>("packed_starts", ParamAccess::read)
      .array("merged_keys", bits, ParamAccess::read)
      .array<std::uint32_t>("merged_counts", ParamAccess::read)
      .array("merged_sums", value, ParamAccess::read)
      .array("keys", bits, ParamAccess::write)
      .array<std::uint32_t>("counts", ParamAccess::write)
      .array("sums", value, ParamAccess::write)
      .array<std::uint64_t>("groups", ParamAccess::write);
  by_types(bits, value, [&](auto u, auto t) { kernel.cpu(&cpu_pack<decltype(u), decltype(t)>); });
  return kernel;
}

}  // namespace strata::primitives::detail
