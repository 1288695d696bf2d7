#include "hash_join.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "hash_aggregate.hpp"
#include "strata/base/error.hpp"
#include "strata/device/device.hpp"

namespace strata::primitives::detail {
namespace {

using device::CpuBlock;
using device::ElementType;
using device::KernelDefinition;
using device::ParamAccess;

// The table's slots as the kernels' u64 array holds them.
JoinSlot* slots_of(const CpuBlock& block, std::size_t index) {
  return reinterpret_cast<JoinSlot*>(block.array<std::uint64_t>(index));
}

// The slot of `key`, or the empty slot where it would go (linear probing; the table is never
// full).
std::uint64_t find_slot(const JoinSlot* table, std::uint64_t mask, std::uint64_t key) {
  std::uint64_t at = hash_of_key(key) & mask;
  while (table[at].count != 0 && table[at].key != key)
    at = (at + 1) & mask;
  return at;
}

template <typename U>
void cpu_hash_join_build(const CpuBlock& block) {
  const auto m = block.scalar<std::uint64_t>(0);
  const auto slots = block.scalar<std::uint64_t>(1);
  const U* keys = block.array<U>(2);
  JoinSlot* table = slots_of(block, 3);
  std::uint32_t* slot_of = block.array<std::uint32_t>(4);
  std::uint32_t* order = block.array<std::uint32_t>(5);
  const std::uint64_t mask = slots - 1;
  std::fill(table, table + slots, JoinSlot{0, 0, 0});
  for (std::uint64_t b = 0; b < m; ++b) {
    const std::uint64_t at = find_slot(table, mask, keys[b]);
    table[at].key = keys[b];
    ++table[at].count;
    slot_of[b] = static_cast<std::uint32_t>(at);
  }
  // Each key's records one after another in slot order; `start` runs ahead as its records are
  // placed, in index order, and is put back after.
  std::uint32_t start = 0;
  for (std::uint64_t at = 0; at < slots; ++at) {
    table[at].start = start;
    start += table[at].count;
  }
  for (std::uint64_t b = 0; b < m; ++b)
    order[table[slot_of[b]].start++] = static_cast<std::uint32_t>(b);
  for (std::uint64_t at = 0; at < slots; ++at)
    table[at].start -= table[at].count;
}

template <typename U>
void cpu_hash_join_count(const CpuBlock& block) {
  const auto n = block.scalar<std::uint64_t>(0);
  const auto tile = block.scalar<std::uint64_t>(1);
  const auto slots = block.scalar<std::uint64_t>(2);
  const U* probe = block.array<U>(3);
  const JoinSlot* table = slots_of(block, 4);
  std::uint32_t* probe_slots = block.array<std::uint32_t>(5);
  const std::uint64_t first = block.begin.x * tile;
  const std::uint64_t last = std::min(n, first + tile);
  const std::uint64_t mask = slots - 1;
  // Each key's first slot fetched a few keys ahead: the probes' cache misses overlap.
  constexpr std::uint64_t ahead = 8;
  for (std::uint64_t i = first; i < std::min(last, first + ahead); ++i)
    __builtin_prefetch(&table[hash_of_key(probe[i]) & mask]);
  std::uint64_t pairs = 0;
  for (std::uint64_t i = first; i < last; ++i) {
    if (i + ahead < last) __builtin_prefetch(&table[hash_of_key(probe[i + ahead]) & mask]);
    const std::uint64_t at = find_slot(table, mask, probe[i]);
    const std::uint32_t count = table[at].count;
    probe_slots[i] = count != 0 ? static_cast<std::uint32_t>(at) : no_slot;
    pairs += count;
  }
  block.array<std::uint64_t>(6)[block.begin.x] = pairs;
}

void cpu_hash_join_write(const CpuBlock& block) {
  const auto n = block.scalar<std::uint64_t>(0);
  const auto tile = block.scalar<std::uint64_t>(1);
  const auto capacity = block.scalar<std::uint64_t>(2);
  const JoinSlot* table = slots_of(block, 3);
  const std::uint32_t* probe_slots = block.array<std::uint32_t>(4);
  const std::uint32_t* order = block.array<std::uint32_t>(5);
  const std::uint64_t* offsets = block.array<std::uint64_t>(6);
  std::uint32_t* out_build = block.array<std::uint32_t>(7);
  std::uint32_t* out_probe = block.array<std::uint32_t>(8);
  const std::uint64_t first = block.begin.x * tile;
  const std::uint64_t last = std::min(n, first + tile);
  std::uint64_t at = offsets[block.begin.x];
  for (std::uint64_t i = first; i < last && at < capacity; ++i) {
    if (probe_slots[i] == no_slot) continue;
    const JoinSlot& slot = table[probe_slots[i]];
    const std::uint64_t pairs = std::min<std::uint64_t>(slot.count, capacity - at);
    for (std::uint64_t j = 0; j < pairs; ++j) {
      out_build[at + j] = order[slot.start + j];
      out_probe[at + j] = static_cast<std::uint32_t>(i);
    }
    at += pairs;
  }
}

std::string join_kernel_name(const char* operation, ElementType bits) {
  return fmt::format("strata_{}_{}", operation, device::to_string(bits));
}

// Calls f(U{}) for the keys' bits.
template <typename F>
void by_key_bits(ElementType bits, F&& f) {
  if (bits == ElementType::u32) return f(std::uint32_t{});
  if (bits == ElementType::u64) return f(std::uint64_t{});
  throw Error(fmt::format("hash_join: keys of {} bits", device::to_string(bits)));
}

}  // namespace

std::uint64_t join_slots(std::uint64_t m) {
  std::uint64_t slots = 16;
  while (slots < 2 * m)
    slots *= 2;
  return slots;
}

KernelDefinition hash_join_build_kernel(ElementType bits) {
  KernelDefinition kernel(join_kernel_name("hash_join_build", bits));
  kernel.scalar<std::uint64_t>("m").scalar<std::uint64_t>("slots");
  kernel.array("keys", bits, ParamAccess::read)
      .array<std::uint64_t>("table", ParamAccess::write)
      .array<std::uint32_t>("slot_of", ParamAccess::write)
      .array<std::uint32_t>("order", ParamAccess::write);
  by_key_bits(bits, [&](auto u) { kernel.cpu(&cpu_hash_join_build<decltype(u)>); });
  return kernel;
}

KernelDefinition hash_join_count_kernel(ElementType bits) {
  KernelDefinition kernel(join_kernel_name("hash_join_count", bits));
  kernel.scalar<std::uint64_t>("n").scalar<std::uint64_t>("tile").scalar<std::uint64_t>("slots");
  kernel.array("probe", bits, ParamAccess::read)
      .array<std::uint64_t>("table", ParamAccess::read)
      .array<std::uint32_t>("probe_slots", ParamAccess::write)
      .array<std::uint64_t>("counts", ParamAccess::write);
  by_key_bits(bits, [&](auto u) { kernel.cpu(&cpu_hash_join_count<decltype(u)>); });
  return kernel;
}

KernelDefinition hash_join_write_kernel() {
  KernelDefinition kernel("strata_hash_join_write");
  kernel.scalar<std::uint64_t>("n").scalar<std::uint64_t>("tile").scalar<std::uint64_t>("capacity");
  kernel.array<std::uint64_t>("table", ParamAccess::read)
      .array<std::uint32_t>("probe_slots", ParamAccess::read)
      .array<std::uint32_t>("order", ParamAccess::read)
      .array<std::uint64_t>("offsets", ParamAccess::read)
      .array<std::uint32_t>("out_build", ParamAccess::write)
      .array<std::uint32_t>("out_probe", ParamAccess::write);
  kernel.cpu(&cpu_hash_join_write);
  return kernel;
}

}  // namespace strata::primitives::detail
