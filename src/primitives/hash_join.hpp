#pragma once
// The CPU device's hash join (dandelion §2's build and probe): one call builds an
// open-addressing table of the build keys whose slots hold each distinct key's number of
// records and where its records' indexes start in `order` (ascending within a key); the probe
// side's tiles then look up their keys twice over the pool — a pass counting each tile's pairs
// and a pass writing them from the tile's scanned count on — so pairs come by probe index, then
// build index. C++ bodies only: OpenCL and CUDA join by sort-merge (primitive_kernels.hpp).

#include <cstdint>

#include "strata/device/kernel.hpp"

namespace strata::primitives::detail {

// One slot of the join's table (16 bytes; the table is an array of u64, two per slot): a key's
// bits zero-extended, where its build records start in `order`, and how many it has (0: empty).
struct JoinSlot {
  std::uint64_t key;
  std::uint32_t start;
  std::uint32_t count;
};

// The table's slots for m build keys: a power of two, at least twice m (at most half full).
std::uint64_t join_slots(std::uint64_t m);

// The probe keys' slot when they have no match.
inline constexpr std::uint32_t no_slot = 0xffff'ffffu;

// One call: the table (`slots` slots, cleared first) of the m build keys (bits `bits`, u32 or
// u64), and `order`, the build indexes grouped by key, ascending within each (`slot_of`: scratch
// for each record's slot).
device::KernelDefinition hash_join_build_kernel(device::ElementType bits);
// Per tile t of the n probe keys: each key's slot (no_slot where it has no match) to
// probe_slots, and the number of pairs of the tile to counts[t] (u64).
device::KernelDefinition hash_join_count_kernel(device::ElementType bits);
// Per tile t: its pairs written from offsets[t] (the scanned counts) on, those below `capacity`.
device::KernelDefinition hash_join_write_kernel();

}  // namespace strata::primitives::detail
