#include "hash_aggregate.hpp"

#include <fmt/format.h>

#include <array>
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

// Open addressing with linear probing over a power-of-two table that doubles at a quarter load. A
// slot holds its group (key, count, sum; a count of 0 marks it empty), so a probe reads one line. A
// table keeps its size across tiles: tiles of one input have similar numbers of groups.
template <typename U, typename T>
class GroupTable {
 public:
  struct Group {
    U key;
    std::uint32_t count;
    T sum;
  };
  void clear() {
    std::fill(slots_.begin(), slots_.end(), Group{});
    size_ = 0;
  }
  void add(U key, std::uint32_t count, T sum) {
    for (std::size_t at = hash_of_key(key) & mask_;; at = (at + 1) & mask_) {
      Group& slot = slots_[at];
      if (slot.count == 0) {
        slot = Group{key, count, sum};
        if (++size_ * max_load > slots_.size()) grow();
        return;
      }
      if (slot.key == key) {
        slot.count += count;
        slot.sum += sum;
        return;
      }
    }
  }
  // Calls f(group) for each group, in slot order.
  template <typename F>
  void for_each(F&& f) const {
    for (const Group& slot : slots_)
      if (slot.count != 0) f(slot);
  }

 private:
  void grow() {
    std::vector<Group> old(slots_.size() * 2);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const Group& group : old) {
      if (group.count == 0) continue;
      std::size_t at = hash_of_key(group.key) & mask_;
      while (slots_[at].count != 0)
        at = (at + 1) & mask_;
      slots_[at] = group;
    }
  }
  static constexpr std::size_t max_load = 4;  // slots per group at most: short, predictable probes
  std::vector<Group> slots_ = std::vector<Group>(4096);
  std::size_t mask_ = 4096 - 1;
  std::size_t size_ = 0;
};

template <typename U, typename T>
GroupTable<U, T>& table() {
  thread_local GroupTable<U, T> kept;  // reused: a tile's table costs no allocation
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
  GroupTable<U, T>& groups = table<U, T>();
  for (std::uint64_t i = first; i < last; ++i)
    groups.add(keys[i], 1, values[i]);
  // The tile's groups bucketed by partition, each bucket in order of first appearance.
  std::array<std::uint32_t, hash_partitions> sizes{};
  groups.for_each([&](const auto& group) { ++sizes[partition_of(hash_of_key(group.key))]; });
  std::array<std::uint32_t, hash_partitions> next{};
  std::uint32_t start = 0;
  for (std::uint32_t p = 0; p < hash_partitions; ++p) {
    next[p] = start;
    bucket_starts[t * hash_partitions + p] = start;
    bucket_sizes[p * tiles + t] = sizes[p];
    bucket_offsets[p * tiles + t] = sizes[p];
    start += sizes[p];
  }
  groups.for_each([&](const auto& group) {
    const std::uint64_t at = first + next[partition_of(hash_of_key(group.key))]++;
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
  GroupTable<U, T>& groups = table<U, T>();
  for (std::uint64_t t = 0; t < tiles; ++t) {
    const std::uint64_t from = t * tile + bucket_starts[t * hash_partitions + p];
    const std::uint64_t to = from + bucket_sizes[p * tiles + t];
    for (std::uint64_t e = from; e < to; ++e)
      groups.add(entry_keys[e], entry_counts[e], entry_sums[e]);
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
