#pragma once
// The kernels behind DevicePrimitives, one definition per element type, each with a C++ body
// (the CPU device calls it once per tile: launched with one thread per tile) and OpenCL C and
// CUDA sources made from one text (a work-group of group_threads per tile).

#include <cstdint>
#include <string>

#include "strata/device/kernel.hpp"

namespace strata::primitives::detail {

inline constexpr std::uint32_t group_threads = 256;    // OpenCL and CUDA work-group size
inline constexpr std::uint32_t device_radix_bits = 4;  // digit width on OpenCL and CUDA
inline constexpr std::uint32_t cpu_radix_bits = 8;     // on the CPU device

// The name of the kernel `operation` for element type `type` (and value type `values`).
std::string kernel_name(const std::string& operation, device::ElementType type);

// sums[t] = the sum of tile t of in (n elements, tiles of `tile`).
device::KernelDefinition tile_sum_kernel(device::ElementType type);
// sums[0..count) scanned in place (exclusive), their total written to sums[count]: one tile.
device::KernelDefinition scan_sums_kernel(device::ElementType type);
// out = the scan of in, tile t starting from offsets[t]; inclusive != 0 for an inclusive scan.
device::KernelDefinition tile_scan_kernel(device::ElementType type);
// The CPU device's scan in one pass (a C++ body only): tile t sums its elements, waits for tile
// t - 1 to publish its inclusive prefix in `prefixes` (its flag in `ready`, zero before the
// launch), publishes its own, then scans its elements, still in cache, from there. Relies on
// the block runner claiming tiles in increasing order (device::BlockRunner).
device::KernelDefinition chained_scan_kernel(device::ElementType type);
// counts[t] = the flags set in tile t (u64 counts).
device::KernelDefinition count_flags_kernel();
// The kept elements of tile t written from offsets[t] on (elements of 1, 2, 4 or 8 bytes).
device::KernelDefinition compact_kernel(std::uint32_t element_bytes);
// Signed integer or float keys (their bits as `bits`, u32 or u64) mapped in place to unsigned
// integers in the same order (forward != 0) or back: integers' sign bit flipped; floats' sign
// bit flipped when clear, every bit when set (IEEE 754's total order: -NaN < -inf < -0 < +0 <
// +inf < +NaN). `is_float` says which.
device::KernelDefinition order_bits_kernel(device::ElementType bits);
// hist[d * tiles + t] = the keys of tile t whose digit (key >> shift) & (2^bits - 1) is d.
device::KernelDefinition radix_histogram_kernel(device::ElementType key);
// Each key (and value) of tile t moved to offsets[d * tiles + t] plus its rank among the tile's
// keys of digit d (stable). `value` u8 means no values.
device::KernelDefinition radix_scatter_kernel(device::ElementType key, device::ElementType value);

// Grouping by sorting (keys' bits as `bits`, u32 or u64; records sorted by key with `order` the
// records' indexes, `ids` the inclusive scan of the first-of-its-key flags):
// out[i] = i (u32).
device::KernelDefinition iota_kernel();
// heads[i] = 1 where sorted key i differs from key i - 1 (and at 0), else 0 (u32).
device::KernelDefinition group_heads_kernel(device::ElementType bits);
// For sorted position i of group g = ids[i] - 1: group_of[order[i]] = g, and at a group's first
// position its key and start.
device::KernelDefinition group_assign_kernel(device::ElementType bits);
// sizes[g] from the starts, for g below the number of groups (ids[n - 1]), which groups[0] gets.
device::KernelDefinition group_sizes_kernel();
// sums[g] = the values of group g's records added in their order, for g below groups[0].
device::KernelDefinition group_sum_kernel(device::ElementType type);

// Segmented reduction (values `type`; offsets `offset`, u32 or u64, one more than the segments;
// `op` 0 sum, 1 min, 2 max, `identity` an empty segment's result): per tile t of the values,
// the part of each segment it overlaps reduced, the segments that lie inside the tile written to
// out, and the parts of the segments holding the tile's first and last values to heads[t] and
// tails[t] (the identity where no segment holds them).
device::KernelDefinition segment_tile_kernel(device::ElementType type, device::ElementType offset);
// Per tile of segments: each segment that spans tiles of values gets its first tile's tail, its
// inner tiles' heads (whole tiles) and its last tile's head combined, an empty one the identity.
// The CPU body checks each segment's offsets (non-decreasing, within the values) and throws
// naming the segment; the OpenCL and CUDA bodies clamp them into the values.
device::KernelDefinition segment_combine_kernel(device::ElementType type,
                                                device::ElementType offset);

// Joining by sort-merge (OpenCL and CUDA; keys' bits as `bits`, u32 or u64): for probe key i,
// the range of its equal keys among the m sorted build keys: first[i] and counts[i] (u64).
device::KernelDefinition join_ranges_kernel(device::ElementType bits);
// For probe key i, its pairs from ends[i - 1] (0 for the first) to ends[i] (the inclusive scan
// of the counts): out_build[j] = order[first[i] + j - ends[i - 1]], out_probe[j] = i, for j below
// `capacity`; ends[n - 1] to matches[0].
device::KernelDefinition join_write_kernel();

}  // namespace strata::primitives::detail
