#pragma once
// The CPU device's group + aggregate by hashing (dandelion §4.2's fused GroupBy-Aggregate): each
// tile aggregates its records in a table of its own and writes its groups bucketed by hash
// partition; each partition then merges its buckets from every tile; the partitions' groups are
// packed one after another. C++ bodies only: OpenCL and CUDA aggregate through group_by.

#include <cstdint>

#include "strata/device/kernel.hpp"

namespace strata::primitives::detail {

inline constexpr std::uint32_t hash_partitions = 256;  // a record's partition: its hash's top byte

// splitmix64's finalizer, a bijection in which every key bit moves the top bits; a key's bits
// (zero-extended to 64) are hashed.
inline std::uint64_t hash_of_key(std::uint64_t key) {
  key ^= key >> 30;
  key *= 0xbf58476d1ce4e5b9ull;
  key ^= key >> 27;
  key *= 0x94d049bb133111ebull;
  return key ^ (key >> 31);
}

// The key with this hash (hash_of_key inverted), for tests that choose colliding keys.
inline std::uint64_t key_of_hash(std::uint64_t hash) {
  const auto inverse = [](std::uint64_t odd) {  // Newton's iteration doubles the correct bits
    std::uint64_t x = odd;
    for (int i = 0; i < 5; ++i)
      x *= 2 - odd * x;
    return x;
  };
  const auto unshift = [](std::uint64_t y, int s) {  // x from y = x ^ (x >> s)
    std::uint64_t x = y;
    for (int shift = s; shift < 64; shift += s)
      x ^= y >> shift;
    return x;
  };
  hash = unshift(hash, 31) * inverse(0x94d049bb133111ebull);
  hash = unshift(hash, 27) * inverse(0xbf58476d1ce4e5b9ull);
  return unshift(hash, 30);
}

// A key's first slot in a table of 2^(64 - shift) slots (shift in 1..63): the top bits of the key
// times 2^64 / φ (Fibonacci hashing), unrelated to hash_of_key's top byte (the partition).
inline constexpr std::uint64_t slot_multiplier = 0x9e3779b97f4a7c15ull;
inline std::uint64_t slot_of_key(std::uint64_t key, int shift) {
  return (key * slot_multiplier) >> shift;
}
// The key whose product with slot_multiplier is `product` (for tests that choose colliding keys).
inline std::uint64_t key_of_slot_product(std::uint64_t product) {
  std::uint64_t inverse = slot_multiplier;  // Newton's iteration doubles the correct bits
  for (int i = 0; i < 5; ++i)
    inverse *= 2 - slot_multiplier * inverse;
  return product * inverse;
}

// Per tile t: its distinct keys (bits `bits`) with their record counts (u32) and value sums
// (`value`), in order of first appearance within each partition, written from t * tile +
// bucket_starts[t * P + p] on; bucket_sizes[p * tiles + t] (twice: one copy to be scanned).
device::KernelDefinition hash_tile_aggregate_kernel(device::ElementType bits,
                                                    device::ElementType value);
// Per partition p: the buckets of p from every tile merged (offsets: the scanned bucket sizes,
// where partition p's region starts), its groups written from its region's start on and their
// number to partition_groups[p].
device::KernelDefinition hash_partition_merge_kernel(device::ElementType bits,
                                                     device::ElementType value);
// Per partition p: its groups copied to the outputs from packed_starts[p] on (the scanned
// partition_groups; the total after them), the total to groups[0].
device::KernelDefinition hash_pack_kernel(device::ElementType bits, device::ElementType value);

}  // namespace strata::primitives::detail
