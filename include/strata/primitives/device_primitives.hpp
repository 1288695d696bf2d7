#pragma once
// Data-parallel primitives on one device of any backend — scan, stream compaction, radix sort,
// grouping, segmented reduction, joins — for the front ends that group, filter, sort and join
// records (datasets, region templates): one algorithm over tiles for the CPU device (its tiles
// run on the pool), OpenCL and CUDA, enqueued on the device's compute queue.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "strata/device/device.hpp"

namespace strata::primitives {

// `count` elements of `type` in a device buffer, from element `offset` on.
struct DeviceSpan {
  const device::DeviceBuffer* buffer = nullptr;
  device::ElementType type = device::ElementType::u32;
  std::uint64_t offset = 0;
  std::uint64_t count = 0;
};

template <typename T>
DeviceSpan span_of(const device::DeviceBuffer& buffer, std::uint64_t count,
                   std::uint64_t offset = 0) {
  return DeviceSpan{&buffer, device::element_type_of<T>(), offset, count};
}

// Where DevicePrimitives::group_by writes, for n records (device spans, each with room for n
// unless said otherwise).
struct Grouping {
  DeviceSpan group_of;      // u32: the group of each record
  DeviceSpan order;         // u32: the records' indexes by group, each group's in record order
  DeviceSpan group_keys;    // the keys' type: the key of each group, ascending
  DeviceSpan group_starts;  // u32: where each group's records start in `order`
  DeviceSpan group_sizes;   // u32: how many records each group has
  DeviceSpan groups;        // one u64: how many groups
};

// What segmented_reduce computes per segment.
enum class Reduction : std::uint8_t { sum, min, max };

class DevicePrimitives {
 public:
  // Kernels are compiled for `device` on first use and kept.
  explicit DevicePrimitives(device::Device& device);
  // Waits for what it enqueued (its scratch buffers live until then).
  ~DevicePrimitives();
  DevicePrimitives(const DevicePrimitives&) = delete;
  DevicePrimitives& operator=(const DevicePrimitives&) = delete;

  device::Device& device() const { return device_; }

  // out[i] = in[0] + ... + in[i-1] (exclusive) or + in[i] (inclusive), for integers and floats
  // (i32, u32, i64, u64, f32, f64; unsigned sums wrap, signed ones must not overflow). `in` and
  // `out` have one type and count; they may be the same elements. Float sums are added in tiles:
  // results differ from a sequential sum by rounding only.
  device::Event exclusive_scan(const DeviceSpan& in, const DeviceSpan& out,
                               std::span<const device::Event> after = {});
  device::Event inclusive_scan(const DeviceSpan& in, const DeviceSpan& out,
                               std::span<const device::Event> after = {});

  // Keeps in[i] where flags[i] != 0 (u8 flags, one per element), in order, at the start of `out`
  // (as many elements as `in`, of its type); writes how many it kept to `kept` (one u64).
  device::Event compact(const DeviceSpan& in, const DeviceSpan& flags, const DeviceSpan& out,
                        const DeviceSpan& kept, std::span<const device::Event> after = {});

  // Sorts `keys` (i32, u32, i64, u64, f32, f64) in place, ascending and stable; `values` (none:
  // a null buffer; or u32 or u64, as many as the keys) move with their keys. Floats sort in IEEE
  // 754's total order: -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN (a NaN's payload orders
  // it among NaNs). At most 2^32 - 1 elements.
  device::Event radix_sort(const DeviceSpan& keys, const DeviceSpan& values,
                           std::span<const device::Event> after = {});

  // Groups records by key (i32, u32, i64, u64, f32, f64; keys are equal when their bits are:
  // -0 and +0 are two groups, NaNs group by payload): dense group ids in ascending key order
  // (floats in radix_sort's order), each group's key, start and size, and the records
  // shuffled into their groups (`order`). Sorts a copy of the keys; at most 2^32 - 1 records.
  device::Event group_by(const DeviceSpan& keys, const Grouping& out,
                         std::span<const device::Event> after = {});
  // sums[g] = the sum of the values of group g's records (added in record order; values one
  // per record of a scannable type, sums of that type with room for every group).
  device::Event group_sums(const DeviceSpan& values, const Grouping& grouping,
                           const DeviceSpan& sums, std::span<const device::Event> after = {});

  // Group and aggregate fused (the dandelion paper's §4.2): for each distinct key (equal bits,
  // as group_by), its key, its number of records (u32) and the sum of their values (the values'
  // type), and the number of groups to `groups` (one u64); the outputs have room for one group
  // per record. The groups come in no promised order: on the CPU device by hash partition, then
  // first appearance (records are hashed into tables per tile, merged per partition, never
  // sorted); on OpenCL and CUDA in ascending key order (through group_by).
  device::Event aggregate_by_key(const DeviceSpan& keys, const DeviceSpan& values,
                                 const DeviceSpan& group_keys, const DeviceSpan& counts,
                                 const DeviceSpan& sums, const DeviceSpan& groups,
                                 std::span<const device::Event> after = {});

  // out[s] = the sum (or min, max) of values[offsets[s] .. offsets[s + 1]) for each of the
  // out.count segments (CUB's DeviceSegmentedReduce convention: `offsets`, u32 or u64, has
  // out.count + 1 entries, non-decreasing, the last at most values.count; values before
  // offsets[0] or from the last on are in no segment). Values of a scannable type, `out` of
  // theirs. An empty segment gives 0 (sum), the type's largest value (min; +inf for floats) or
  // its lowest (max; -inf). Min and max skip NaNs (a segment of NaNs only gives the empty one's
  // result); float sums are added in tiles: they differ from a sequential sum by rounding only.
  // Checked on the host: the spans, their types and counts. The offsets themselves are on the
  // device: the CPU device checks them as it reduces (a decreasing offset or one past the
  // values fails the returned event, naming the segment); OpenCL and CUDA clamp them into the
  // values, so bad offsets give unspecified sums, never accesses outside the buffers. Balanced
  // by values, not segments: each tile of values reduces the parts of the segments it overlaps,
  // then segments that span tiles add up their tiles' parts.
  device::Event segmented_reduce(const DeviceSpan& values, const DeviceSpan& offsets,
                                 const DeviceSpan& out, Reduction reduction,
                                 std::span<const device::Event> after = {});
  device::Event segmented_reduce(const DeviceSpan& values, const DeviceSpan& offsets,
                                 const DeviceSpan& out, std::span<const device::Event> after = {}) {
    return segmented_reduce(values, offsets, out, Reduction::sum, after);
  }

  // Inner equi-join (the dandelion paper's §2 join, build and probe) of integer keys (i32, u32,
  // i64, u64; both sides of one type, at most 2^30 build and 2^32 - 1 probe keys; floats are
  // refused): for every pair (b, p) with build_keys[b] == probe_keys[p], b goes to out_build
  // and p to out_probe (u32, as many of each: the capacity), and the number of pairs to
  // `matches` (one u64). Pairs come ordered by probe index, then build index, ascending, on
  // every backend. When there are more pairs than the capacity, `matches` still gets their full
  // number and only the first `capacity` pairs (in that order) are written: retry with room for
  // `matches`. The CPU device builds a hash table of the build side (one call: the build side
  // is meant to be the smaller), then probes over the pool by tiles: a pass counting each
  // tile's matches, a scan of the counts, a pass writing them, which gives the order. OpenCL
  // and CUDA join by sort-merge instead: a copy of the build keys radix-sorted with their
  // indexes (stable), a binary search per probe key for its range, the ranges' sizes scanned,
  // then each probe key's pairs written.
  device::Event hash_join(const DeviceSpan& build_keys, const DeviceSpan& probe_keys,
                          const DeviceSpan& out_build, const DeviceSpan& out_probe,
                          const DeviceSpan& matches, std::span<const device::Event> after = {});

 private:
  using Scratch = std::vector<std::unique_ptr<device::DeviceBuffer>>;
  const device::CompiledKernel& kernel(device::KernelDefinition definition);
  device::Event scan(const DeviceSpan& in, const DeviceSpan& out, bool inclusive,
                     std::span<const device::Event> after);
  // Enqueues the scan of in into out, the scratch it needs added to `held`.
  device::Event enqueue_scan(const DeviceSpan& in, const DeviceSpan& out, bool inclusive,
                             std::span<const device::Event> after, Scratch& held);
  // Enqueues the sort of keys (and values; at least two keys), its scratch added to `held`.
  device::Event enqueue_radix_sort(const DeviceSpan& keys, const DeviceSpan& values,
                                   std::span<const device::Event> after, Scratch& held);
  // hash_join's two ways, for m build and n probe keys (both at least one), the checks done.
  device::Event cpu_hash_join(const DeviceSpan& build_keys, const DeviceSpan& probe_keys,
                              const DeviceSpan& out_build, const DeviceSpan& out_probe,
                              const DeviceSpan& matches, std::span<const device::Event> after);
  device::Event sort_merge_join(const DeviceSpan& build_keys, const DeviceSpan& probe_keys,
                                const DeviceSpan& out_build, const DeviceSpan& out_probe,
                                const DeviceSpan& matches, std::span<const device::Event> after);
  // Scans `count` tile sums in place (exclusive), their total after them.
  device::Event scan_sums(const device::DeviceBuffer& sums, device::ElementType type,
                          std::uint64_t count);
  // Elements per tile, and the geometry of a launch of one tile per CPU call or work-group.
  std::uint64_t tile() const;
  device::LaunchGeometry tiles_geometry(std::uint64_t tiles) const;
  // A buffer of at least `bytes` (a spare, else a new one), kept in `held`.
  device::DeviceBuffer& scratch(Scratch& held, std::uint64_t bytes);
  // Keeps `buffers` until `done`.
  void retire(const device::Event& done, Scratch buffers);
  // Moves the buffers of finished operations to the spares, trimmed to spare_limit.
  void recycle();

  device::Device& device_;
  const bool cpu_;
  std::mutex lock_;
  std::map<std::string, std::shared_ptr<const device::CompiledKernel>> kernels_;
  // Scratch buffers of operations enqueued and not known to be done, with their last event.
  std::vector<std::pair<device::Event, Scratch>> in_flight_;
  // Scratch buffers whose operations are done, kept for the next ones (largest first): a fresh
  // buffer costs page faults on the CPU and an allocation on a GPU. At most spare_limit bytes.
  static constexpr std::uint64_t spare_limit = std::uint64_t{1} << 30;
  Scratch spare_;
  std::uint64_t spare_bytes_ = 0;
};

}  // namespace strata::primitives
