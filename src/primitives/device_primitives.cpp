#include "strata/primitives/device_primitives.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <type_traits>

#include "hash_aggregate.hpp"
#include "hash_join.hpp"
#include "primitive_kernels.hpp"
#include "strata/base/error.hpp"

namespace strata::primitives {
namespace {

using device::ElementType;
using device::Event;
using device::KernelArg;
using device::KernelArgs;

constexpr std::uint64_t cpu_tile = std::uint64_t{1} << 16;  // elements per CPU call
// Elements per OpenCL or CUDA work-group: each thread takes 16.
constexpr std::uint64_t device_tile = std::uint64_t{detail::group_threads} * 16;
// Elements per tile of the CPU device's one-pass scan: a tile stays in cache between its sum
// and its scan.
constexpr std::uint64_t chained_tile = std::uint64_t{1} << 15;

bool is_scannable(ElementType type) {
  switch (type) {
    case ElementType::i32:
    case ElementType::u32:
    case ElementType::i64:
    case ElementType::u64:
    case ElementType::f32:
    case ElementType::f64:
      return true;
    default:
      return false;
  }
}

KernelArg array_arg(const DeviceSpan& span) {
  return KernelArg::array_of(*span.buffer, span.type, span.offset * device::size_of(span.type));
}

// The span's elements as unsigned integers of their size (what compaction moves).
KernelArg as_bits(const DeviceSpan& span) {
  const std::uint64_t bytes = device::size_of(span.type);
  const ElementType type = bytes == 1   ? ElementType::u8
                           : bytes == 2 ? ElementType::u16
                           : bytes == 4 ? ElementType::u32
                                        : ElementType::u64;
  return KernelArg::array_of(*span.buffer, type, span.offset * bytes);
}

void check_span(const char* operation, const char* what, const DeviceSpan& span) {
  if (span.buffer == nullptr || !*span.buffer) {
    throw Error(fmt::format("{}: the {} has no device buffer", operation, what));
  }
  const std::uint64_t bytes = (span.offset + span.count) * device::size_of(span.type);
  if (bytes > span.buffer->bytes()) {
    throw Error(
        fmt::format("{}: the {} ({} elements of {} from element {}) ends past its buffer "
                    "of {} bytes",
                    operation, what, span.count, device::to_string(span.type), span.offset,
                    span.buffer->bytes()));
  }
}

void wait_for(std::span<const Event> after) {
  for (const Event& event : after)
    event.wait();
}

}  // namespace

DevicePrimitives::DevicePrimitives(device::Device& device)
    : device_(device), cpu_(device.info().backend == device::BackendKind::cpu) {}

DevicePrimitives::~DevicePrimitives() {
  for (auto& [event, buffers] : in_flight_) {
    try {
      event.wait();
    } catch (...) {  // NOLINT(bugprone-empty-catch): its error went to whoever waited
    }
  }
}

const device::CompiledKernel& DevicePrimitives::kernel(device::KernelDefinition definition) {
  const std::string name = definition.name();
  auto found = kernels_.find(name);
  if (found == kernels_.end()) found = kernels_.emplace(name, device_.compile(definition)).first;
  return *found->second;
}

device::DeviceBuffer& DevicePrimitives::scratch(Scratch& held, std::uint64_t bytes) {
  bytes = std::max<std::uint64_t>(bytes, 8);
  recycle();
  // The smallest spare buffer that fits, else a new one (each its own: a queued kernel refers to
  // its buffers by address until it ran).
  auto best = spare_.end();
  for (auto it = spare_.begin(); it != spare_.end(); ++it)
    if ((*it)->bytes() >= bytes && (best == spare_.end() || (*it)->bytes() < (*best)->bytes()))
      best = it;
  if (best != spare_.end()) {
    spare_bytes_ -= (*best)->bytes();
    held.push_back(std::move(*best));
    spare_.erase(best);
  } else {
    held.push_back(std::make_unique<device::DeviceBuffer>(device_.allocate(bytes)));
  }
  return *held.back();
}

void DevicePrimitives::recycle() {
  for (auto& [event, buffers] : in_flight_) {
    if (!event.done()) continue;
    for (auto& buffer : buffers) {
      spare_bytes_ += buffer->bytes();
      spare_.push_back(std::move(buffer));
    }
    buffers.clear();
  }
  std::erase_if(in_flight_, [](const auto& entry) { return entry.second.empty(); });
  // Over the limit: the smallest go first, the large ones are what allocating costs most.
  std::sort(spare_.begin(), spare_.end(),
            [](const auto& a, const auto& b) { return a->bytes() > b->bytes(); });
  while (spare_bytes_ > spare_limit) {
    spare_bytes_ -= spare_.back()->bytes();
    spare_.pop_back();
  }
}

void DevicePrimitives::retire(const Event& done, Scratch buffers) {
  in_flight_.emplace_back(done, std::move(buffers));
}

device::LaunchGeometry DevicePrimitives::tiles_geometry(std::uint64_t tiles) const {
  if (cpu_) return device::LaunchGeometry{device::Dim3{tiles}, device::Dim3{1}, 1};
  return device::LaunchGeometry{device::Dim3{tiles * detail::group_threads},
                                device::Dim3{detail::group_threads}, 1};
}

std::uint64_t DevicePrimitives::tile() const {
  return cpu_ ? cpu_tile : device_tile;
}

Event DevicePrimitives::scan_sums(const device::DeviceBuffer& sums, ElementType type,
                                  std::uint64_t count) {
  return device_.queue(device::QueueKind::compute)
      .launch(kernel(detail::scan_sums_kernel(type)), tiles_geometry(1),
              {KernelArg::value(count), KernelArg::array_of(sums, type)});
}

Event DevicePrimitives::exclusive_scan(const DeviceSpan& in, const DeviceSpan& out,
                                       std::span<const Event> after) {
  return scan(in, out, false, after);
}

Event DevicePrimitives::inclusive_scan(const DeviceSpan& in, const DeviceSpan& out,
                                       std::span<const Event> after) {
  return scan(in, out, true, after);
}

Event DevicePrimitives::scan(const DeviceSpan& in, const DeviceSpan& out, bool inclusive,
                             std::span<const Event> after) {
  const char* operation = inclusive ? "inclusive_scan" : "exclusive_scan";
  check_span(operation, "input", in);
  check_span(operation, "output", out);
  if (!is_scannable(in.type) || in.type != out.type || in.count != out.count) {
    throw Error(fmt::format(
        "{}: input and output must be as many elements of one type of i32, "
        "u32, i64, u64, f32, f64 (given {} {} and {} {})",
        operation, in.count, device::to_string(in.type), out.count, device::to_string(out.type)));
  }
  std::lock_guard guard(lock_);
  if (in.count == 0) {
    wait_for(after);
    return {};
  }
  Scratch held;
  Event done = enqueue_scan(in, out, inclusive, after, held);
  retire(done, std::move(held));
  return done;
}

Event DevicePrimitives::enqueue_scan(const DeviceSpan& in, const DeviceSpan& out, bool inclusive,
                                     std::span<const Event> after, Scratch& held) {
  const std::uint64_t n = in.count;
  const std::uint64_t element = device::size_of(in.type);
  device::Queue& queue = device_.queue(device::QueueKind::compute);
  const KernelArg inclusive_arg = KernelArg::value(std::uint32_t{inclusive ? 1u : 0u});
  if (cpu_) {
    // One pass: each tile waits for the one before to publish its prefix (chained_scan_kernel).
    const std::uint64_t tiles = (n + chained_tile - 1) / chained_tile;
    device::DeviceBuffer& prefixes = scratch(held, tiles * element);
    device::DeviceBuffer& ready = scratch(held, tiles * sizeof(std::uint32_t));
    const std::uint32_t zero = 0;
    queue.fill(ready, 0, std::as_bytes(std::span(&zero, 1)), tiles * sizeof(std::uint32_t), after);
    return queue.launch(kernel(detail::chained_scan_kernel(in.type)), tiles_geometry(tiles),
                        {KernelArg::value(n), KernelArg::value(chained_tile), inclusive_arg,
                         array_arg(in), KernelArg::array_of(prefixes, in.type),
                         KernelArg::array<std::uint32_t>(ready), array_arg(out)});
  }
  const std::uint64_t tiles = (n + tile() - 1) / tile();
  device::DeviceBuffer& sums = scratch(held, (tiles + 1) * element);
  queue.launch(kernel(detail::tile_sum_kernel(in.type)), tiles_geometry(tiles),
               {KernelArg::value(n), KernelArg::value(tile()), array_arg(in),
                KernelArg::array_of(sums, in.type)},
               after);
  scan_sums(sums, in.type, tiles);
  return queue.launch(kernel(detail::tile_scan_kernel(in.type)), tiles_geometry(tiles),
                      {KernelArg::value(n), KernelArg::value(tile()), inclusive_arg, array_arg(in),
                       KernelArg::array_of(sums, in.type), array_arg(out)});
}

Event DevicePrimitives::compact(const DeviceSpan& in, const DeviceSpan& flags,
                                const DeviceSpan& out, const DeviceSpan& kept,
                                std::span<const Event> after) {
  constexpr const char* operation = "compact";
  check_span(operation, "input", in);
  check_span(operation, "flags", flags);
  check_span(operation, "output", out);
  check_span(operation, "count of kept elements", kept);
  if (flags.type != ElementType::u8 || flags.count != in.count || out.type != in.type ||
      out.count < in.count || kept.type != ElementType::u64 || kept.count < 1) {
    throw Error(fmt::format(
        "compact: takes as many u8 flags as input elements ({} {} given), an output of the "
        "input's type and size ({} {} given) and one u64 for the count ({} {} given)",
        flags.count, device::to_string(flags.type), out.count, device::to_string(out.type),
        kept.count, device::to_string(kept.type)));
  }
  std::lock_guard guard(lock_);
  device::Queue& queue = device_.queue(device::QueueKind::compute);
  const std::uint64_t n = in.count;
  const std::uint64_t tiles = std::max<std::uint64_t>(1, (n + tile() - 1) / tile());
  Scratch held;
  device::DeviceBuffer& counts = scratch(held, (tiles + 1) * sizeof(std::uint64_t));
  queue.launch(kernel(detail::count_flags_kernel()), tiles_geometry(tiles),
               {KernelArg::value(n), KernelArg::value(tile()), array_arg(flags),
                KernelArg::array<std::uint64_t>(counts)},
               after);
  scan_sums(counts, ElementType::u64, tiles);
  queue.launch(kernel(detail::compact_kernel(static_cast<std::uint32_t>(device::size_of(in.type)))),
               tiles_geometry(tiles),
               {KernelArg::value(n), KernelArg::value(tile()), as_bits(in), array_arg(flags),
                KernelArg::array<std::uint64_t>(counts), as_bits(out)});
  Event done = queue.copy_on_device(*kept.buffer, kept.offset * sizeof(std::uint64_t), counts,
                                    tiles * sizeof(std::uint64_t), sizeof(std::uint64_t));
  retire(done, std::move(held));
  return done;
}

Event DevicePrimitives::radix_sort(const DeviceSpan& keys, const DeviceSpan& values,
                                   std::span<const Event> after) {
  constexpr const char* operation = "radix_sort";
  check_span(operation, "keys", keys);
  const bool with_values = values.buffer != nullptr;
  if (with_values) check_span(operation, "values", values);
  if (!is_scannable(keys.type) ||
      (with_values && ((values.type != ElementType::u32 && values.type != ElementType::u64) ||
                       values.count != keys.count))) {
    throw Error(
        fmt::format("radix_sort: sorts i32, u32, i64, u64, f32 or f64 keys ({} given), with as "
                    "many u32 or u64 values or none ({} {} given)",
                    device::to_string(keys.type), with_values ? values.count : 0,
                    with_values ? device::to_string(values.type) : "none"));
  }
  if (keys.count > std::numeric_limits<std::uint32_t>::max()) {
    throw Error(fmt::format("radix_sort: {} keys; at most {} in one sort", keys.count,
                            std::numeric_limits<std::uint32_t>::max()));
  }
  std::lock_guard guard(lock_);
  if (keys.count <= 1) {
    wait_for(after);
    return {};
  }
  Scratch held;
  Event done = enqueue_radix_sort(keys, values, after, held);
  retire(done, std::move(held));
  return done;
}

Event DevicePrimitives::enqueue_radix_sort(const DeviceSpan& keys, const DeviceSpan& values,
                                           std::span<const Event> after, Scratch& held) {
  const std::uint64_t n = keys.count;
  const bool with_values = values.buffer != nullptr;
  const std::uint64_t key_bytes = device::size_of(keys.type);
  const std::uint32_t bits = cpu_ ? detail::cpu_radix_bits : detail::device_radix_bits;
  const std::uint32_t radix = 1u << bits;
  const std::uint64_t tiles = (n + tile() - 1) / tile();
  const ElementType key_bits = key_bytes == 4 ? ElementType::u32 : ElementType::u64;
  const std::uint64_t value_bytes = with_values ? device::size_of(values.type) : 0;
  device::DeviceBuffer& keys_scratch = scratch(held, n * key_bytes);
  device::DeviceBuffer* values_scratch = with_values ? &scratch(held, n * value_bytes) : nullptr;
  const std::uint64_t bins = radix * tiles;
  device::DeviceBuffer& hist = scratch(held, bins * sizeof(std::uint32_t));
  const DeviceSpan hist_span = span_of<std::uint32_t>(hist, bins);
  // Keys and values go back and forth between the caller's buffers and the scratch ones; the
  // number of passes is even, so the last lands in the caller's.
  const DeviceSpan scratch_keys = DeviceSpan{&keys_scratch, key_bits, 0, n};
  const DeviceSpan scratch_values =
      with_values ? DeviceSpan{values_scratch, values.type, 0, n} : DeviceSpan{};
  const std::uint32_t passes = static_cast<std::uint32_t>(key_bytes * 8) / bits;
  device::Queue& queue = device_.queue(device::QueueKind::compute);
  // Signed and float keys are sorted as unsigned integers of the same order, and mapped back.
  const bool mapped = keys.type != key_bits;
  const DeviceSpan sorted_keys{keys.buffer, key_bits, keys.offset, n};
  const auto map_keys = [&](bool forward, std::span<const Event> wait_for_these) {
    const bool is_float = keys.type == ElementType::f32 || keys.type == ElementType::f64;
    return queue.launch(
        kernel(detail::order_bits_kernel(key_bits)), tiles_geometry(tiles),
        {KernelArg::value(n), KernelArg::value(tile()),
         KernelArg::value(std::uint32_t{is_float ? 1u : 0u}),
         KernelArg::value(std::uint32_t{forward ? 1u : 0u}), array_arg(sorted_keys)},
        wait_for_these);
  };
  if (mapped) map_keys(true, after);
  const device::CompiledKernel& histogram = kernel(detail::radix_histogram_kernel(key_bits));
  const device::CompiledKernel& scatter =
      kernel(detail::radix_scatter_kernel(key_bits, with_values ? values.type : ElementType::u8));
  Event done;
  for (std::uint32_t pass = 0; pass < passes; ++pass) {
    const bool forth = pass % 2 == 0;
    const DeviceSpan& from_keys = forth ? sorted_keys : scratch_keys;
    const DeviceSpan& to_keys = forth ? scratch_keys : sorted_keys;
    const std::uint32_t shift = pass * bits;
    const KernelArgs head{KernelArg::value(n), KernelArg::value(tile()), KernelArg::value(shift),
                          KernelArg::value(bits), KernelArg::value(tiles)};
    KernelArgs counting = head;
    counting.values.push_back(array_arg(from_keys));
    counting.values.push_back(KernelArg::array<std::uint32_t>(hist));
    queue.launch(histogram, tiles_geometry(tiles), counting,
                 pass == 0 && !mapped ? after : std::span<const Event>{});
    // The digit-major histogram scanned: each tile's first place for each digit.
    enqueue_scan(hist_span, hist_span, false, {}, held);
    KernelArgs moving = head;
    moving.values.push_back(array_arg(from_keys));
    moving.values.push_back(KernelArg::array<std::uint32_t>(hist));
    moving.values.push_back(array_arg(to_keys));
    if (with_values) {
      moving.values.push_back(array_arg(forth ? values : scratch_values));
      moving.values.push_back(array_arg(forth ? scratch_values : values));
    }
    done = queue.launch(scatter, tiles_geometry(tiles), moving);
  }
  if (mapped) done = map_keys(false, {});
  return done;
}

namespace {

void check_type(const char* operation, const char* what, const DeviceSpan& span, ElementType type,
                std::uint64_t at_least) {
  check_span(operation, what, span);
  if (span.type != type || span.count < at_least) {
    throw Error(fmt::format("{}: the {} must be at least {} elements of {} ({} {} given)",
                            operation, what, at_least, device::to_string(type), span.count,
                            device::to_string(span.type)));
  }
}

}  // namespace

Event DevicePrimitives::group_by(const DeviceSpan& keys, const Grouping& out,
                                 std::span<const Event> after) {
  constexpr const char* operation = "group_by";
  check_span(operation, "keys", keys);
  const std::uint64_t n = keys.count;
  if (!is_scannable(keys.type) || n > std::numeric_limits<std::uint32_t>::max()) {
    throw Error(fmt::format(
        "group_by: groups up to {} keys of i32, u32, i64, u64, f32 or f64 ({} {} given)",
        std::numeric_limits<std::uint32_t>::max(), n, device::to_string(keys.type)));
  }
  check_type(operation, "group of each record", out.group_of, ElementType::u32, n);
  check_type(operation, "order of the records", out.order, ElementType::u32, n);
  check_type(operation, "group keys", out.group_keys, keys.type, n);
  check_type(operation, "group starts", out.group_starts, ElementType::u32, n);
  check_type(operation, "group sizes", out.group_sizes, ElementType::u32, n);
  check_type(operation, "count of groups", out.groups, ElementType::u64, 1);
  std::lock_guard guard(lock_);
  device::Queue& queue = device_.queue(device::QueueKind::compute);
  const std::uint64_t zero = 0;
  if (n == 0) {
    return queue.fill(*out.groups.buffer, out.groups.offset * sizeof(std::uint64_t),
                      std::as_bytes(std::span(&zero, 1)), sizeof(std::uint64_t), after);
  }
  const std::uint64_t key_bytes = device::size_of(keys.type);
  const ElementType key_bits = key_bytes == 4 ? ElementType::u32 : ElementType::u64;
  const std::uint64_t tiles = (n + tile() - 1) / tile();
  Scratch held;
  device::DeviceBuffer& sorted = scratch(held, n * key_bytes);
  device::DeviceBuffer& ids = scratch(held, n * sizeof(std::uint32_t));
  queue.copy_on_device(sorted, 0, *keys.buffer, keys.offset * key_bytes, n * key_bytes, after);
  const KernelArg n_arg = KernelArg::value(n);
  const KernelArg tile_arg = KernelArg::value(tile());
  queue.launch(kernel(detail::iota_kernel()), tiles_geometry(tiles),
               {n_arg, tile_arg, array_arg(out.order)});
  if (n > 1) enqueue_radix_sort(DeviceSpan{&sorted, keys.type, 0, n}, out.order, {}, held);
  // The first record of each key flagged, the flags scanned: ids[i] - 1 is sorted record i's
  // group.
  const DeviceSpan sorted_bits{&sorted, key_bits, 0, n};
  const DeviceSpan ids_span = span_of<std::uint32_t>(ids, n);
  queue.launch(kernel(detail::group_heads_kernel(key_bits)), tiles_geometry(tiles),
               {n_arg, tile_arg, array_arg(sorted_bits), array_arg(ids_span)});
  enqueue_scan(ids_span, ids_span, true, {}, held);
  queue.launch(kernel(detail::group_assign_kernel(key_bits)), tiles_geometry(tiles),
               {n_arg, tile_arg, array_arg(sorted_bits), array_arg(out.order), array_arg(ids_span),
                array_arg(out.group_of), as_bits(out.group_keys), array_arg(out.group_starts)});
  Event done = queue.launch(kernel(detail::group_sizes_kernel()), tiles_geometry(tiles),
                            {n_arg, tile_arg, array_arg(ids_span), array_arg(out.group_starts),
                             array_arg(out.group_sizes), array_arg(out.groups)});
  retire(done, std::move(held));
  return done;
}

Event DevicePrimitives::group_sums(const DeviceSpan& values, const Grouping& grouping,
                                   const DeviceSpan& sums, std::span<const Event> after) {
  constexpr const char* operation = "group_sums";
  check_span(operation, "values", values);
  const std::uint64_t n = values.count;
  if (!is_scannable(values.type)) {
    throw Error(fmt::format("group_sums: adds i32, u32, i64, u64, f32 or f64 values ({} given)",
                            device::to_string(values.type)));
  }
  check_type(operation, "sums", sums, values.type, n);
  check_type(operation, "order of the records", grouping.order, ElementType::u32, n);
  check_type(operation, "group starts", grouping.group_starts, ElementType::u32, n);
  check_type(operation, "group sizes", grouping.group_sizes, ElementType::u32, n);
  check_type(operation, "count of groups", grouping.groups, ElementType::u64, 1);
  std::lock_guard guard(lock_);
  if (n == 0) {
    wait_for(after);
    return {};
  }
  const std::uint64_t tiles = (n + tile() - 1) / tile();
  return device_.queue(device::QueueKind::compute)
      .launch(kernel(detail::group_sum_kernel(values.type)), tiles_geometry(tiles),
              {KernelArg::value(n), KernelArg::value(tile()), array_arg(grouping.groups),
               array_arg(grouping.group_starts), array_arg(grouping.group_sizes),
               array_arg(grouping.order), array_arg(values), array_arg(sums)},
              after);
}

Event DevicePrimitives::aggregate_by_key(const DeviceSpan& keys, const DeviceSpan& values,
                                         const DeviceSpan& group_keys, const DeviceSpan& counts,
                                         const DeviceSpan& sums, const DeviceSpan& groups,
                                         std::span<const Event> after) {
  constexpr const char* operation = "aggregate_by_key";
  check_span(operation, "keys", keys);
  check_span(operation, "values", values);
  const std::uint64_t n = keys.count;
  if (!is_scannable(keys.type) || !is_scannable(values.type) || values.count != n ||
      n > std::numeric_limits<std::uint32_t>::max()) {
    throw Error(fmt::format(
        "aggregate_by_key: takes up to {} keys and as many values, each of i32, u32, i64, u64, "
        "f32 or f64 ({} {} keys and {} {} values given)",
        std::numeric_limits<std::uint32_t>::max(), n, device::to_string(keys.type), values.count,
        device::to_string(values.type)));
  }
  check_type(operation, "group keys", group_keys, keys.type, n);
  check_type(operation, "counts", counts, ElementType::u32, n);
  check_type(operation, "sums", sums, values.type, n);
  check_type(operation, "count of groups", groups, ElementType::u64, 1);
  if (!cpu_ || n == 0) {
    // Through the sort: the grouping's other outputs in scratch, which the lock below covers.
    device::DeviceBuffer group_of = device_.allocate(std::max<std::uint64_t>(n, 1) * 4);
    device::DeviceBuffer order = device_.allocate(std::max<std::uint64_t>(n, 1) * 4);
    device::DeviceBuffer starts = device_.allocate(std::max<std::uint64_t>(n, 1) * 4);
    const Grouping grouping{span_of<std::uint32_t>(group_of, n),
                            span_of<std::uint32_t>(order, n),
                            group_keys,
                            span_of<std::uint32_t>(starts, n),
                            counts,
                            groups};
    Event grouped = group_by(keys, grouping, after);
    Event summed = group_sums(values, grouping, sums, std::span(&grouped, grouped ? 1 : 0));
    if (!summed) summed = grouped;
    std::lock_guard guard(lock_);
    Scratch held;
    held.push_back(std::make_unique<device::DeviceBuffer>(std::move(group_of)));
    held.push_back(std::make_unique<device::DeviceBuffer>(std::move(order)));
    held.push_back(std::make_unique<device::DeviceBuffer>(std::move(starts)));
    retire(summed, std::move(held));
    return summed;
  }
  std::lock_guard guard(lock_);
  const std::uint64_t key_bytes = device::size_of(keys.type);
  const std::uint64_t value_bytes = device::size_of(values.type);
  const ElementType bits = key_bytes == 4 ? ElementType::u32 : ElementType::u64;
  constexpr std::uint64_t partitions = detail::hash_partitions;
  const std::uint64_t tiles = (n + cpu_tile - 1) / cpu_tile;
  Scratch held;
  device::DeviceBuffer& entry_keys = scratch(held, n * key_bytes);
  device::DeviceBuffer& entry_counts = scratch(held, n * 4);
  device::DeviceBuffer& entry_sums = scratch(held, n * value_bytes);
  device::DeviceBuffer& bucket_starts = scratch(held, tiles * partitions * 4);
  device::DeviceBuffer& bucket_sizes = scratch(held, tiles * partitions * 4);
  device::DeviceBuffer& bucket_offsets = scratch(held, tiles * partitions * 4);
  device::DeviceBuffer& merged_keys = scratch(held, n * key_bytes);
  device::DeviceBuffer& merged_counts = scratch(held, n * 4);
  device::DeviceBuffer& merged_sums = scratch(held, n * value_bytes);
  device::DeviceBuffer& partition_groups = scratch(held, (partitions + 1) * 8);
  device::Queue& queue = device_.queue(device::QueueKind::compute);
  const auto cpu_geometry = [](std::uint64_t blocks) {
    return device::LaunchGeometry{device::Dim3{blocks}, device::Dim3{1}, 1};
  };
  const KernelArg n_arg = KernelArg::value(n);
  const KernelArg tile_arg = KernelArg::value(cpu_tile);
  const KernelArg tiles_arg = KernelArg::value(tiles);
  queue.launch(
      kernel(detail::hash_tile_aggregate_kernel(bits, values.type)), cpu_geometry(tiles),
      {n_arg, tile_arg, tiles_arg, as_bits(keys), array_arg(values),
       KernelArg::array_of(entry_keys, bits), KernelArg::array<std::uint32_t>(entry_counts),
       KernelArg::array_of(entry_sums, values.type), KernelArg::array<std::uint32_t>(bucket_starts),
       KernelArg::array<std::uint32_t>(bucket_sizes),
       KernelArg::array<std::uint32_t>(bucket_offsets)},
      after);
  // Partition-major bucket sizes scanned: where each partition's region starts.
  const DeviceSpan offsets = span_of<std::uint32_t>(bucket_offsets, tiles * partitions);
  enqueue_scan(offsets, offsets, false, {}, held);
  queue.launch(
      kernel(detail::hash_partition_merge_kernel(bits, values.type)), cpu_geometry(partitions),
      {n_arg, tile_arg, tiles_arg, KernelArg::array_of(entry_keys, bits),
       KernelArg::array<std::uint32_t>(entry_counts), KernelArg::array_of(entry_sums, values.type),
       KernelArg::array<std::uint32_t>(bucket_starts),
       KernelArg::array<std::uint32_t>(bucket_sizes),
       KernelArg::array<std::uint32_t>(bucket_offsets), KernelArg::array_of(merged_keys, bits),
       KernelArg::array<std::uint32_t>(merged_counts),
       KernelArg::array_of(merged_sums, values.type),
       KernelArg::array<std::uint64_t>(partition_groups)});
  scan_sums(partition_groups, ElementType::u64, partitions);
  Event done = queue.launch(
      kernel(detail::hash_pack_kernel(bits, values.type)), cpu_geometry(partitions),
      {tiles_arg, KernelArg::array<std::uint32_t>(bucket_offsets),
       KernelArg::array<std::uint64_t>(partition_groups), KernelArg::array_of(merged_keys, bits),
       KernelArg::array<std::uint32_t>(merged_counts),
       KernelArg::array_of(merged_sums, values.type), as_bits(group_keys), array_arg(counts),
       array_arg(sums), array_arg(groups)});
  retire(done, std::move(held));
  return done;
}

namespace {

// An empty segment's result for `reduction`, a scalar of the values' type.
template <typename T>
KernelArg identity_as(Reduction reduction) {
  if (reduction == Reduction::sum) return KernelArg::value(T{0});
  if constexpr (std::is_floating_point_v<T>) {
    const T infinity = std::numeric_limits<T>::infinity();
    return KernelArg::value(reduction == Reduction::min ? infinity : -infinity);
  } else {
    return KernelArg::value(reduction == Reduction::min ? std::numeric_limits<T>::max()
                                                        : std::numeric_limits<T>::lowest());
  }
}

KernelArg identity_of(ElementType type, Reduction reduction) {
  switch (type) {
    case ElementType::i32:
      return identity_as<std::int32_t>(reduction);
    case ElementType::u32:
      return identity_as<std::uint32_t>(reduction);
    case ElementType::i64:
      return identity_as<std::int64_t>(reduction);
    case ElementType::u64:
      return identity_as<std::uint64_t>(reduction);
    case ElementType::f32:
      return identity_as<float>(reduction);
    default:
      return identity_as<double>(reduction);
  }
}

bool is_offset(ElementType type) {
  return type == ElementType::u32 || type == ElementType::u64;
}

bool is_join_key(ElementType type) {
  return type == ElementType::i32 || type == ElementType::u32 || type == ElementType::i64 ||
         type == ElementType::u64;
}

}  // namespace

Event DevicePrimitives::segmented_reduce(const DeviceSpan& values, const DeviceSpan& offsets,
                                         const DeviceSpan& out, Reduction reduction,
                                         std::span<const Event> after) {
  constexpr const char* operation = "segmented_reduce";
  check_span(operation, "values", values);
  check_span(operation, "offsets", offsets);
  check_span(operation, "output", out);
  if (!is_scannable(values.type) || out.type != values.type || !is_offset(offsets.type) ||
      offsets.count != out.count + 1) {
    throw Error(fmt::format(
        "segmented_reduce: reduces i32, u32, i64, u64, f32 or f64 values ({} given) into an "
        "output of their type ({} given), one element per segment, with one more u32 or u64 "
        "offsets than segments ({} {} offsets for {} segments given)",
        device::to_string(values.type), device::to_string(out.type), offsets.count,
        device::to_string(offsets.type), out.count));
  }
  std::lock_guard guard(lock_);
  const std::uint64_t segments = out.count;
  if (segments == 0) {
    wait_for(after);
    return {};
  }
  const std::uint64_t n = values.count;
  const std::uint64_t tiles = (n + tile() - 1) / tile();
  const std::uint64_t element = device::size_of(values.type);
  Scratch held;
  device::DeviceBuffer& heads = scratch(held, std::max<std::uint64_t>(tiles, 1) * element);
  device::DeviceBuffer& tails = scratch(held, std::max<std::uint64_t>(tiles, 1) * element);
  device::Queue& queue = device_.queue(device::QueueKind::compute);
  const KernelArg head_args[] = {
      KernelArg::value(n), KernelArg::value(tile()), KernelArg::value(segments),
      KernelArg::value(static_cast<std::uint32_t>(reduction)), identity_of(values.type, reduction)};
  const auto args = [&](std::initializer_list<KernelArg> arrays) {
    KernelArgs all;
    all.values.assign(std::begin(head_args), std::end(head_args));
    all.values.insert(all.values.end(), arrays);
    return all;
  };
  // No values: every segment is empty (or its offsets are bad), which the second pass finds.
  if (n > 0) {
    queue.launch(
        kernel(detail::segment_tile_kernel(values.type, offsets.type)), tiles_geometry(tiles),
        args({array_arg(values), array_arg(offsets), array_arg(out),
              KernelArg::array_of(heads, values.type), KernelArg::array_of(tails, values.type)}),
        after);
  }
  Event done = queue.launch(kernel(detail::segment_combine_kernel(values.type, offsets.type)),
                            tiles_geometry((segments + tile() - 1) / tile()),
                            args({array_arg(offsets), KernelArg::array_of(heads, values.type),
                                  KernelArg::array_of(tails, values.type), array_arg(out)}),
                            n > 0 ? std::span<const Event>{} : after);
  retire(done, std::move(held));
  return done;
}

Event DevicePrimitives::hash_join(const DeviceSpan& build_keys, const DeviceSpan& probe_keys,
                                  const DeviceSpan& out_build, const DeviceSpan& out_probe,
                                  const DeviceSpan& matches, std::span<const Event> after) {
  constexpr const char* operation = "hash_join";
  check_span(operation, "build keys", build_keys);
  check_span(operation, "probe keys", probe_keys);
  if (!is_join_key(build_keys.type) || probe_keys.type != build_keys.type) {
    throw Error(fmt::format(
        "hash_join: joins i32, u32, i64 or u64 keys, both sides of one type ({} and {} given)",
        device::to_string(build_keys.type), device::to_string(probe_keys.type)));
  }
  if (build_keys.count > (std::uint64_t{1} << 30) ||
      probe_keys.count > std::numeric_limits<std::uint32_t>::max()) {
    throw Error(fmt::format(
        "hash_join: joins up to {} build keys with up to {} probe keys ({} and {} given)",
        std::uint64_t{1} << 30, std::numeric_limits<std::uint32_t>::max(), build_keys.count,
        probe_keys.count));
  }
  check_type(operation, "build indexes", out_build, ElementType::u32, 0);
  check_type(operation, "probe indexes", out_probe, ElementType::u32, out_build.count);
  if (out_probe.count != out_build.count) {
    throw Error(fmt::format("hash_join: room for as many build as probe indexes ({} and {} given)",
                            out_build.count, out_probe.count));
  }
  check_type(operation, "count of matches", matches, ElementType::u64, 1);
  std::lock_guard guard(lock_);
  if (build_keys.count == 0 || probe_keys.count == 0) {
    const std::uint64_t zero = 0;
    return device_.queue(device::QueueKind::compute)
        .fill(*matches.buffer, matches.offset * sizeof(std::uint64_t),
              std::as_bytes(std::span(&zero, 1)), sizeof(std::uint64_t), after);
  }
  if (cpu_) return cpu_hash_join(build_keys, probe_keys, out_build, out_probe, matches, after);
  return sort_merge_join(build_keys, probe_keys, out_build, out_probe, matches, after);
}

Event DevicePrimitives::cpu_hash_join(const DeviceSpan& build_keys, const DeviceSpan& probe_keys,
                                      const DeviceSpan& out_build, const DeviceSpan& out_probe,
                                      const DeviceSpan& matches, std::span<const Event> after) {
  const std::uint64_t m = build_keys.count;
  const std::uint64_t n = probe_keys.count;
  const ElementType bits =
      device::size_of(build_keys.type) == 4 ? ElementType::u32 : ElementType::u64;
  const std::uint64_t slots = detail::join_slots(m);
  const std::uint64_t tiles = (n + cpu_tile - 1) / cpu_tile;
  Scratch held;
  device::DeviceBuffer& table = scratch(held, slots * sizeof(detail::JoinSlot));
  device::DeviceBuffer& slot_of = scratch(held, m * 4);
  device::DeviceBuffer& order = scratch(held, m * 4);
  device::DeviceBuffer& probe_slots = scratch(held, n * 4);
  device::DeviceBuffer& counts = scratch(held, (tiles + 1) * sizeof(std::uint64_t));
  device::Queue& queue = device_.queue(device::QueueKind::compute);
  const KernelArg table_arg = KernelArg::array<std::uint64_t>(table);
  queue.launch(kernel(detail::hash_join_build_kernel(bits)), tiles_geometry(1),
               {KernelArg::value(m), KernelArg::value(slots), as_bits(build_keys), table_arg,
                KernelArg::array<std::uint32_t>(slot_of), KernelArg::array<std::uint32_t>(order)},
               after);
  const KernelArg n_arg = KernelArg::value(n);
  const KernelArg tile_arg = KernelArg::value(cpu_tile);
  queue.launch(
      kernel(detail::hash_join_count_kernel(bits)), tiles_geometry(tiles),
      {n_arg, tile_arg, KernelArg::value(slots), as_bits(probe_keys), table_arg,
       KernelArg::array<std::uint32_t>(probe_slots), KernelArg::array<std::uint64_t>(counts)});
  // Each tile's pairs counted, then scanned: where its pairs start, the total after them.
  scan_sums(counts, ElementType::u64, tiles);
  queue.launch(
      kernel(detail::hash_join_write_kernel()), tiles_geometry(tiles),
      {n_arg, tile_arg, KernelArg::value(out_build.count), table_arg,
       KernelArg::array<std::uint32_t>(probe_slots), KernelArg::array<std::uint32_t>(order),
       KernelArg::array<std::uint64_t>(counts), array_arg(out_build), array_arg(out_probe)});
  Event done = queue.copy_on_device(*matches.buffer, matches.offset * sizeof(std::uint64_t), counts,
                                    tiles * sizeof(std::uint64_t), sizeof(std::uint64_t));
  retire(done, std::move(held));
  return done;
}

Event DevicePrimitives::sort_merge_join(const DeviceSpan& build_keys, const DeviceSpan& probe_keys,
                                        const DeviceSpan& out_build, const DeviceSpan& out_probe,
                                        const DeviceSpan& matches, std::span<const Event> after) {
  const std::uint64_t m = build_keys.count;
  const std::uint64_t n = probe_keys.count;
  const std::uint64_t key_bytes = device::size_of(build_keys.type);
  const ElementType bits = key_bytes == 4 ? ElementType::u32 : ElementType::u64;
  Scratch held;
  device::DeviceBuffer& sorted = scratch(held, m * key_bytes);
  device::DeviceBuffer& order = scratch(held, m * 4);
  device::DeviceBuffer& first = scratch(held, n * 4);
  device::DeviceBuffer& ends = scratch(held, n * sizeof(std::uint64_t));
  device::Queue& queue = device_.queue(device::QueueKind::compute);
  // The build keys' bits sorted with their indexes (stable: a key's indexes ascend); any order
  // of the bits will do, equal keys are what the join finds.
  queue.copy_on_device(sorted, 0, *build_keys.buffer, build_keys.offset * key_bytes, m * key_bytes,
                       after);
  const DeviceSpan order_span = span_of<std::uint32_t>(order, m);
  const KernelArg tile_arg = KernelArg::value(tile());
  queue.launch(kernel(detail::iota_kernel()), tiles_geometry((m + tile() - 1) / tile()),
               {KernelArg::value(m), tile_arg, array_arg(order_span)});
  if (m > 1) enqueue_radix_sort(DeviceSpan{&sorted, bits, 0, m}, order_span, {}, held);
  // Each probe key's range of equal build keys; the ranges' sizes scanned: where its pairs end.
  const std::uint64_t tiles = (n + tile() - 1) / tile();
  const KernelArg n_arg = KernelArg::value(n);
  const DeviceSpan ends_span = span_of<std::uint64_t>(ends, n);
  queue.launch(kernel(detail::join_ranges_kernel(bits)), tiles_geometry(tiles),
               {n_arg, tile_arg, KernelArg::value(m), KernelArg::array_of(sorted, bits),
                as_bits(probe_keys), KernelArg::array<std::uint32_t>(first), array_arg(ends_span)});
  enqueue_scan(ends_span, ends_span, true, {}, held);
  Event done = queue.launch(
      kernel(detail::join_write_kernel()), tiles_geometry(tiles),
      {n_arg, tile_arg, KernelArg::value(out_build.count), KernelArg::array<std::uint32_t>(first),
       array_arg(ends_span), array_arg(order_span), array_arg(out_build), array_arg(out_probe),
       array_arg(matches)});
  retire(done, std::move(held));
  return done;
}

}  // namespace strata::primitives
