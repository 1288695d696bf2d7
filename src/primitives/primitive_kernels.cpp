#include "primitive_kernels.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cstring>
#include <initializer_list>
#include <thread>
#include <utility>

#include "strata/base/error.hpp"
#include "strata/device/device.hpp"

namespace strata::primitives::detail {
namespace {

using device::CpuBlock;
using device::ElementType;
using device::KernelDefinition;
using device::ParamAccess;

// Both languages, one text: the types, address spaces, barriers and helper functions' marks by
// name.
constexpr const char* prelude = R"(
#ifdef __OPENCL_VERSION__
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double f64;
#endif
typedef uchar u8; typedef ushort u16; typedef uint u32; typedef ulong u64;
typedef int i32; typedef long i64; typedef float f32;
#define GLOBAL __global
#define SHARED __local
#define LID ((u32)get_local_id(0))
#define GROUP ((u64)get_group_id(0))
#define SYNC() barrier(CLK_LOCAL_MEM_FENCE)
#define LOCAL_INC(p) atomic_inc(p)
#define DEVICE_FN
#else
typedef unsigned char u8; typedef unsigned short u16; typedef unsigned int u32;
typedef unsigned long long u64; typedef int i32; typedef long long i64; typedef float f32;
typedef double f64;
#define GLOBAL
#define SHARED __shared__
#define LID ((u32)threadIdx.x)
#define GROUP ((u64)blockIdx.x)
#define SYNC() __syncthreads()
#define LOCAL_INC(p) atomicAdd((p), 1u)
#define DEVICE_FN __device__
#endif
#define W 256
// Inclusive scan of s[0..W) in place by the W threads of the group.
#define GROUP_SCAN(T, s)                                   \
  for (u32 strata_step = 1; strata_step < W; strata_step <<= 1) {               \
    const T strata_prior = LID >= strata_step ? s[LID - strata_step] : (T)0; \
    SYNC();                                                \
    s[LID] += strata_prior;                                \
    SYNC();                                                \
  }
)";

const char* short_name(ElementType type) {
  switch (type) {
    case ElementType::u8:
      return "u8";
    case ElementType::u16:
      return "u16";
    case ElementType::i32:
      return "i32";
    case ElementType::u32:
      return "u32";
    case ElementType::i64:
      return "i64";
    case ElementType::u64:
      return "u64";
    case ElementType::f32:
      return "f32";
    case ElementType::f64:
      return "f64";
    default:
      throw Error(fmt::format("device primitives: no kernels for elements of type {}",
                              device::to_string(type)));
  }
}

ElementType unsigned_of_size(std::uint32_t bytes) {
  switch (bytes) {
    case 1:
      return ElementType::u8;
    case 2:
      return ElementType::u16;
    case 4:
      return ElementType::u32;
    case 8:
      return ElementType::u64;
    default:
      throw Error(fmt::format("device primitives: elements of {} bytes", bytes));
  }
}

// The source for both backends: @ENTRY@ becomes each one's entry-point declaration.
std::string with(std::string text,
                 std::initializer_list<std::pair<const char*, std::string>> replacements) {
  for (const auto& [from, to] : replacements) {
    const std::string key = from;
    for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + to.size()))
      text.replace(at, key.size(), to);
  }
  return text;
}

KernelDefinition& sources(KernelDefinition& kernel, const std::string& body) {
  kernel.opencl(std::string(prelude) + with(body, {{"@ENTRY@", "__kernel void " + kernel.name()}}));
  kernel.cuda(std::string(prelude) +
              with(body, {{"@ENTRY@", "extern \"C\" __global__ void " + kernel.name()}}));
  return kernel;
}

// One tile of the CPU launch: [first, last) of n.
struct Tile {
  std::uint64_t first;
  std::uint64_t last;
};
Tile tile_of(const CpuBlock& block, std::uint64_t n, std::uint64_t tile) {
  const std::uint64_t first = block.begin.x * tile;
  return Tile{first < n ? first : n, first + tile < n ? first + tile : n};
}

template <typename T>
void cpu_tile_sum(const CpuBlock& block) {
  const auto n = block.scalar<std::uint64_t>(0);
  const Tile t = tile_of(block, n, block.scalar<std::uint64_t>(1));
  const T* in = block.array<T>(2);
  T sum = 0;
  for (std::uint64_t i = t.first; i < t.last; ++i)
    sum += in[i];
  block.array<T>(3)[block.begin.x] = sum;
}

template <typename T>
void cpu_scan_sums(const CpuBlock& block) {
  const auto count = block.scalar<std::uint64_t>(0);
  T* sums = block.array<T>(1);
  T carry = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    const T value = sums[i];
    sums[i] = carry;
    carry += value;
  }
  sums[count] = carry;
}

template <typename T>
void cpu_tile_scan(const CpuBlock& block) {
  const auto n = block.scalar<std::uint64_t>(0);
  const Tile t = tile_of(block, n, block.scalar<std::uint64_t>(1));
  const bool inclusive = block.scalar<std::uint32_t>(2) != 0;
  const T* in = block.array<T>(3);
  T carry = block.array<T>(4)[block.begin.x];
  T* out = block.array<T>(5);
  if (inclusive) {
    for (std::uint64_t i = t.first; i < t.last; ++i) {
      carry += in[i];
      out[i] = carry;
    }
  } else {
    for (std::uint64_t i = t.first; i < t.last; ++i) {
      const T value = in[i];
      out[i] = carry;
      carry += value;
    }
  }
}

template <typename T>
void cpu_chained_scan(const CpuBlock& block) {
  const auto n = block.scalar<std::uint64_t>(0);
  const Tile t = tile_of(block, n, block.scalar<std::uint64_t>(1));
  const bool inclusive = block.scalar<std::uint32_t>(2) != 0;
  const T* in = block.array<T>(3);
  T* prefixes = block.array<T>(4);
  std::uint32_t* ready = block.array<std::uint32_t>(5);
  T* out = block.array<T>(6);
  const std::uint64_t tile = block.begin.x;
  // Four sums side by side: the additions do not wait for each other.
  T sums[4] = {0, 0, 0, 0};
  std::uint64_t i = t.first;
  for (; i + 4 <= t.last; i += 4) {
    sums[0] += in[i];
    sums[1] += in[i + 1];
    sums[2] += in[i + 2];
    sums[3] += in[i + 3];
  }
  for (; i < t.last; ++i)
    sums[0] += in[i];
  const T total = (sums[0] + sums[1]) + (sums[2] + sums[3]);
  T carry = 0;
  if (tile > 0) {
    std::atomic_ref<std::uint32_t> before(ready[tile - 1]);
    while (before.load(std::memory_order_acquire) == 0)
      std::this_thread::yield();
    carry = prefixes[tile - 1];
  }
  prefixes[tile] = carry + total;
  std::atomic_ref<std::uint32_t>(ready[tile]).store(1, std::memory_order_release);
  // Four at a time: their own prefix sums first, which do not wait for the carry, so the chain
  // of dependent additions is one per four elements instead of one per element. (Streaming
  // stores, which skip reading the lines they fill, made it a third slower on this machine.)
  for (i = t.first; i + 4 <= t.last; i += 4) {
    const T a0 = in[i], a1 = in[i + 1], a2 = in[i + 2], a3 = in[i + 3];
    const T p1 = a0 + a1, p2 = p1 + a2, p3 = p2 + a3;
    out[i] = inclusive ? carry + a0 : carry;
    out[i + 1] = carry + (inclusive ? p1 : a0);
    out[i + 2] = carry + (inclusive ? p2 : p1);
    out[i + 3] = carry + (inclusive ? p3 : p2);
    carry += p3;
  }
  for (; i < t.last; ++i) {
    const T value = in[i];
    out[i] = inclusive ? carry + value : carry;
    carry += value;
  }
}

template <typename U>
U ordered(U bits, bool is_float, bool forward) {
  constexpr U top = U{1} << (sizeof(U) * 8 - 1);
  if (!is_float) return bits ^ top;
  if (forward) return (bits & top) != 0 ? static_cast<U>(~bits) : bits ^ top;
  return (bits & top) != 0 ? bits ^ top : static_cast<U>(~bits);
}

template <typename U>
void cpu_order_bits(const CpuBlock& block) {
  const auto n = block.scalar<std::uint64_t>(0);
  const Tile t = tile_of(block, n, block.scalar<std::uint64_t>(1));
  const bool is_float = block.scalar<std::uint32_t>(2) != 0;
  const bool forward = block.scalar<std::uint32_t>(3) != 0;
  U* keys = block.array<U>(4);
  for (std::uint64_t i = t.first; i < t.last; ++i)
    keys[i] = ordered(keys[i], is_float, forward);
}

void cpu_iota(const CpuBlock& block) {
  const auto n = block.scalar<std::uint64_t>(0);
  const Tile t = tile_of(block, n, block.scalar<std::uint64_t>(1));
  std::uint32_t* out = block.array<std::uint32_t>(2);
  for (std::uint64_t i = t.first; i < t.last; ++i)
    out[i] = static_cast<std::uint32_t>(i);
}

template <typename U>
void cpu_group_heads(const CpuBlock& block) {
  const auto n = block.scalar<std::uint64_t>(0);
  const Tile t = tile_of(block, n, block.scalar<std::uint64_t>(1));
  const U* keys = block.array<U>(2);
  std::uint32_t* heads = block.array<std::uint32_t>(3);
  for (std::uint64_t i = t.first; i < t.last; ++i)
    heads[i] = i == 0 || keys[i] != keys[i - 1] ? 1u : 0u;
}

template <typename U>
void cpu_group_assign(const CpuBlock& block) {
  const auto n = block.scalar<std::uint64_t>(0);
  const Tile t = tile_of(block, n, block.scalar<std::uint64_t>(1));
  const U* keys = block.array<U>(2);
  const std::uint32_t* order = block.array<std::uint32_t>(3);
  const std::uint32_t* ids = block.array<std::uint32_t>(4);
  std::uint32_t* group_of = block.array<std::uint32_t>(5);
  U* group_keys = block.array<U>(6);
  std::uint32_t* group_starts = block.array<std::uint32_t>(7);
  for (std::uint64_t i = t.first; i < t.last; ++i) {
    const std::uint32_t group = ids[i] - 1;
    group_of[order[i]] = group;
    if (i == 0 || ids[i] != ids[i - 1]) {
      group_keys[group] = keys[i];
      group_starts[group] = static_cast<std::uint32_t>(i);
    }
  }
}

void cpu_group_sizes(const CpuBlock& block) {
  const auto n = block.scalar<std::uint64_t>(0);
  const Tile t = tile_of(block, n, block.scalar<std::uint64_t>(1));
  const std::uint32_t* ids = block.array<std::uint32_t>(2);
  const std::uint32_t* starts = block.array<std::uint32_t>(3);
  std::uint32_t* sizes = block.array<std::uint32_t>(4);
  const std::uint64_t groups = n > 0 ? ids[n - 1] : 0;
  if (block.begin.x == 0) block.array<std::uint64_t>(5)[0] = groups;
  for (std::uint64_t g = t.first; g < t.last && g < groups; ++g)
    sizes[g] = static_cast<std::uint32_t>((g + 1 < groups ? starts[g + 1] : n) - starts[g]);
}

template <typename T>
void cpu_group_sum(const CpuBlock& block) {
  const auto n = block.scalar<std::uint64_t>(0);
  const Tile t = tile_of(block, n, block.scalar<std::uint64_t>(1));
  const std::uint64_t groups = block.array<std::uint64_t>(2)[0];
  const std::uint32_t* starts = block.array<std::uint32_t>(3);
  const std::uint32_t* sizes = block.array<std::uint32_t>(4);
  const std::uint32_t* order = block.array<std::uint32_t>(5);
  const T* values = block.array<T>(6);
  T* sums = block.array<T>(7);
  for (std::uint64_t g = t.first; g < t.last && g < groups; ++g) {
    T sum = 0;
    for (std::uint64_t j = starts[g]; j < std::uint64_t{starts[g]} + sizes[g]; ++j)
      sum += values[order[j]];
    sums[g] = sum;
  }
}

template <typename K>
void cpu_radix_histogram(const CpuBlock& block) {
  const auto n = block.scalar<std::uint64_t>(0);
  const Tile t = tile_of(block, n, block.scalar<std::uint64_t>(1));
  const auto shift = block.scalar<std::uint32_t>(2);
  const auto bits = block.scalar<std::uint32_t>(3);
  const auto tiles = block.scalar<std::uint64_t>(4);
  const K* keys = block.array<K>(5);
  std::uint32_t* hist = block.array<std::uint32_t>(6);
  const std::uint32_t radix = 1u << bits;
  const K mask = static_cast<K>(radix - 1);
  std::uint32_t counts[1u << cpu_radix_bits] = {};
  for (std::uint64_t i = t.first; i < t.last; ++i)
    ++counts[(keys[i] >> shift) & mask];
  for (std::uint32_t d = 0; d < radix; ++d)
    hist[d * tiles + block.begin.x] = counts[d];
}

template <typename K, typename V, bool with_values>
void cpu_radix_scatter(const CpuBlock& block) {
  const auto n = block.scalar<std::uint64_t>(0);
  const Tile t = tile_of(block, n, block.scalar<std::uint64_t>(1));
  const auto shift = block.scalar<std::uint32_t>(2);
  const auto bits = block.scalar<std::uint32_t>(3);
  const auto tiles = block.scalar<std::uint64_t>(4);
  const K* keys_in = block.array<K>(5);
  const std::uint32_t* offsets = block.array<std::uint32_t>(6);
  K* keys_out = block.array<K>(7);
  const std::uint32_t radix = 1u << bits;
  const K mask = static_cast<K>(radix - 1);
  std::uint32_t next[1u << cpu_radix_bits];
  for (std::uint32_t d = 0; d < radix; ++d)
    next[d] = offsets[d * tiles + block.begin.x];
  if constexpr (with_values) {
    const V* values_in = block.array<V>(8);
    V* values_out = block.array<V>(9);
    for (std::uint64_t i = t.first; i < t.last; ++i) {
      const K key = keys_in[i];
      const std::uint32_t at = next[(key >> shift) & mask]++;
      keys_out[at] = key;
      values_out[at] = values_in[i];
    }
  } else {
    for (std::uint64_t i = t.first; i < t.last; ++i) {
      const K key = keys_in[i];
      keys_out[next[(key >> shift) & mask]++] = key;
    }
  }
}

template <typename T>
void cpu_compact(const CpuBlock& block) {
  const auto n = block.scalar<std::uint64_t>(0);
  const Tile t = tile_of(block, n, block.scalar<std::uint64_t>(1));
  const T* in = block.array<T>(2);
  const std::uint8_t* flags = block.array<std::uint8_t>(3);
  std::uint64_t at = block.array<std::uint64_t>(4)[block.begin.x];
  T* out = block.array<T>(5);
  for (std::uint64_t i = t.first; i < t.last; ++i)
    if (flags[i] != 0) out[at++] = in[i];
}

void cpu_count_flags(const CpuBlock& block) {
  const auto n = block.scalar<std::uint64_t>(0);
  const Tile t = tile_of(block, n, block.scalar<std::uint64_t>(1));
  const std::uint8_t* flags = block.array<std::uint8_t>(2);
  std::uint64_t count = 0;
  for (std::uint64_t i = t.first; i < t.last; ++i)
    count += flags[i] != 0 ? 1 : 0;
  block.array<std::uint64_t>(3)[block.begin.x] = count;
}

// a combined with b by reduction `op` (0 sum, 1 min, 2 max; min and max keep a when b is NaN).
template <typename T>
T combined(std::uint32_t op, T a, T b) {
  if (op == 0) return a + b;
  if (op == 1) return b < a ? b : a;
  return b > a ? b : a;
}

// values[from, to) reduced by `op`, from the identity on; the loop per reduction.
template <typename T>
T reduced(std::uint32_t op, T identity, const T* values, std::uint64_t from, std::uint64_t to) {
  T r = identity;
  if (op == 0) {
    for (std::uint64_t i = from; i < to; ++i)
      r += values[i];
  } else if (op == 1) {
    for (std::uint64_t i = from; i < to; ++i)
      r = values[i] < r ? values[i] : r;
  } else {
    for (std::uint64_t i = from; i < to; ++i)
      r = values[i] > r ? values[i] : r;
  }
  return r;
}

// The segment holding value `at`: the last s below `segments` with offsets[s] <= at (0 when
// none is); a binary search of the segments + 1 offsets.
template <typename O>
std::uint64_t segment_at(const O* offsets, std::uint64_t segments, std::uint64_t at) {
  std::uint64_t low = 0;
  std::uint64_t high = segments + 1;
  while (low < high) {
    const std::uint64_t middle = (low + high) / 2;
    if (offsets[middle] <= at) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low == 0 ? 0 : std::min(low - 1, segments - 1);
}

template <typename T, typename O>
void cpu_segment_tile(const CpuBlock& block) {
  const auto n = block.scalar<std::uint64_t>(0);
  const Tile t = tile_of(block, n, block.scalar<std::uint64_t>(1));
  const auto segments = block.scalar<std::uint64_t>(2);
  const auto op = block.scalar<std::uint32_t>(3);
  const T identity = block.scalar<T>(4);
  const T* values = block.array<T>(5);
  const O* offsets = block.array<O>(6);
  T* out = block.array<T>(7);
  T* heads = block.array<T>(8);
  T* tails = block.array<T>(9);
  heads[block.begin.x] = identity;
  tails[block.begin.x] = identity;
  const std::uint64_t first = segment_at(offsets, segments, t.first);
  const std::uint64_t last = segment_at(offsets, segments, t.last - 1);
  for (std::uint64_t s = first; s <= last; ++s) {
    const std::uint64_t begin = offsets[s];
    const std::uint64_t end = offsets[s + 1];
    // Clipped to the tile: bad offsets cannot reach outside it (the combining pass reports them).
    const std::uint64_t from = std::max(begin, t.first);
    const std::uint64_t to = std::min(end, t.last);
    if (from >= to) continue;
    const T part = reduced(op, identity, values, from, to);
    if (begin >= t.first && end <= t.last) out[s] = part;
    if (begin <= t.first && t.first < end) heads[block.begin.x] = part;
    if (begin <= t.last - 1 && t.last - 1 < end) tails[block.begin.x] = part;
  }
}

template <typename T, typename O>
void cpu_segment_combine(const CpuBlock& block) {
  const auto n = block.scalar<std::uint64_t>(0);
  const auto tile = block.scalar<std::uint64_t>(1);
  const auto segments = block.scalar<std::uint64_t>(2);
  const Tile t = tile_of(block, segments, tile);
  const auto op = block.scalar<std::uint32_t>(3);
  const T identity = block.scalar<T>(4);
  const O* offsets = block.array<O>(5);
  const T* heads = block.array<T>(6);
  const T* tails = block.array<T>(7);
  T* out = block.array<T>(8);
  for (std::uint64_t s = t.first; s < t.last; ++s) {
    const std::uint64_t begin = offsets[s];
    const std::uint64_t end = offsets[s + 1];
    if (end < begin) {
      throw Error(
          fmt::format("segmented_reduce: offsets[{}] = {} is below offsets[{}] = {} (the "
                      "offsets must not decrease)",
                      s + 1, end, s, begin));
    }
    if (end > n) {
      throw Error(
          fmt::format("segmented_reduce: offsets[{}] = {} is past the {} values", s + 1, end, n));
    }
    if (begin == end) {
      out[s] = identity;
      continue;
    }
    const std::uint64_t first = begin / tile;
    const std::uint64_t last = (end - 1) / tile;
    if (first == last) continue;  // inside one tile: the tile pass wrote it
    T r = tails[first];
    for (std::uint64_t inner = first + 1; inner < last; ++inner)
      r = combined(op, r, heads[inner]);
    out[s] = combined(op, r, heads[last]);
  }
}

// The first of the m sorted keys not below `key` (below: upper != 0, not above it).
template <typename U>
std::uint64_t bound_of(const U* sorted, std::uint64_t m, U key, bool upper) {
  std::uint64_t low = 0;
  std::uint64_t high = m;
  while (low < high) {
    const std::uint64_t middle = (low + high) / 2;
    if (sorted[middle] < key || (upper && sorted[middle] == key)) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low;
}

template <typename U>
void cpu_join_ranges(const CpuBlock& block) {
  const auto n = block.scalar<std::uint64_t>(0);
  const Tile t = tile_of(block, n, block.scalar<std::uint64_t>(1));
  const auto m = block.scalar<std::uint64_t>(2);
  const U* sorted = block.array<U>(3);
  const U* probe = block.array<U>(4);
  std::uint32_t* first = block.array<std::uint32_t>(5);
  std::uint64_t* counts = block.array<std::uint64_t>(6);
  for (std::uint64_t i = t.first; i < t.last; ++i) {
    const std::uint64_t low = bound_of(sorted, m, probe[i], false);
    first[i] = static_cast<std::uint32_t>(low);
    counts[i] = bound_of(sorted, m, probe[i], true) - low;
  }
}

void cpu_join_write(const CpuBlock& block) {
  const auto n = block.scalar<std::uint64_t>(0);
  const Tile t = tile_of(block, n, block.scalar<std::uint64_t>(1));
  const auto capacity = block.scalar<std::uint64_t>(2);
  const std::uint32_t* first = block.array<std::uint32_t>(3);
  const std::uint64_t* ends = block.array<std::uint64_t>(4);
  const std::uint32_t* order = block.array<std::uint32_t>(5);
  std::uint32_t* out_build = block.array<std::uint32_t>(6);
  std::uint32_t* out_probe = block.array<std::uint32_t>(7);
  if (block.begin.x == 0) block.array<std::uint64_t>(8)[0] = ends[n - 1];
  for (std::uint64_t i = t.first; i < t.last; ++i) {
    const std::uint64_t from = i > 0 ? ends[i - 1] : 0;
    const std::uint64_t to = std::min(ends[i], capacity);
    for (std::uint64_t j = from; j < to; ++j) {
      out_build[j] = order[first[i] + (j - from)];
      out_probe[j] = static_cast<std::uint32_t>(i);
    }
  }
}

template <typename F>
decltype(auto) by_type(ElementType type, F&& f) {
  switch (type) {
    case ElementType::u8:
      return f(std::uint8_t{});
    case ElementType::u16:
      return f(std::uint16_t{});
    case ElementType::i32:
      return f(std::int32_t{});
    case ElementType::u32:
      return f(std::uint32_t{});
    case ElementType::i64:
      return f(std::int64_t{});
    case ElementType::u64:
      return f(std::uint64_t{});
    case ElementType::f32:
      return f(float{});
    case ElementType::f64:
      return f(double{});
    default:
      throw Error(fmt::format("device primitives: no kernels for elements of type {}",
                              device::to_string(type)));
  }
}

}  // namespace

std::string kernel_name(const std::string& operation, ElementType type) {
  return fmt::format("strata_{}_{}", operation, short_name(type));
}

KernelDefinition tile_sum_kernel(ElementType type) {
  KernelDefinition kernel(kernel_name("tile_sum", type));
  kernel.scalar<std::uint64_t>("n").scalar<std::uint64_t>("tile");
  kernel.array("in", type, ParamAccess::read).array("sums", type, ParamAccess::write);
  by_type(type, [&](auto t) { kernel.cpu(&cpu_tile_sum<decltype(t)>); });
  return sources(kernel, with(R"(
@ENTRY@(u64 n, u64 tile, GLOBAL const @T@* in, GLOBAL @T@* sums) {
  SHARED @T@ s[W];
  const u64 first = GROUP * tile;
  const u64 last = first + tile < n ? first + tile : n;
  @T@ sum = 0;
  for (u64 i = first + LID; i < last; i += W) sum += in[i];
  s[LID] = sum;
  SYNC();
  for (u32 width = W / 2; width > 0; width >>= 1) {
    if (LID < width) s[LID] += s[LID + width];
    SYNC();
  }
  if (LID == 0) sums[GROUP] = s[0];
}
)",
                              {{"@T@", short_name(type)}}));
}

KernelDefinition scan_sums_kernel(ElementType type) {
  KernelDefinition kernel(kernel_name("scan_sums", type));
  kernel.scalar<std::uint64_t>("count").array("sums", type, ParamAccess::read_write);
  by_type(type, [&](auto t) { kernel.cpu(&cpu_scan_sums<decltype(t)>); });
  return sources(kernel, with(R"(
@ENTRY@(u64 count, GLOBAL @T@* sums) {
  SHARED @T@ s[W];
  @T@ carry = 0;
  for (u64 base = 0; base < count; base += W) {
    const u64 i = base + LID;
    s[LID] = i < count ? sums[i] : (@T@)0;
    SYNC();
    GROUP_SCAN(@T@, s)
    if (i < count) sums[i] = carry + (LID > 0 ? s[LID - 1] : (@T@)0);
    carry += s[W - 1];
    SYNC();
  }
  if (LID == 0) sums[count] = carry;
}
)",
                              {{"@T@", short_name(type)}}));
}

KernelDefinition tile_scan_kernel(ElementType type) {
  KernelDefinition kernel(kernel_name("tile_scan", type));
  kernel.scalar<std::uint64_t>("n").scalar<std::uint64_t>("tile").scalar<std::uint32_t>(
      "inclusive");
  kernel.array("in", type, ParamAccess::read)
      .array("offsets", type, ParamAccess::read)
      .array("out", type, ParamAccess::write);
  by_type(type, [&](auto t) { kernel.cpu(&cpu_tile_scan<decltype(t)>); });
  return sources(kernel, with(R"(
@ENTRY@(u64 n, u64 tile, u32 inclusive, GLOBAL const @T@* in, GLOBAL const @T@* offsets,
        GLOBAL @T@* out) {
  SHARED @T@ s[W];
  const u64 first = GROUP * tile;
  const u64 last = first + tile < n ? first + tile : n;
  @T@ carry = offsets[GROUP];
  for (u64 base = first; base < last; base += W) {
    const u64 i = base + LID;
    s[LID] = i < last ? in[i] : (@T@)0;
    SYNC();
    GROUP_SCAN(@T@, s)
    if (i < last) out[i] = carry + (inclusive ? s[LID] : (LID > 0 ? s[LID - 1] : (@T@)0));
    carry += s[W - 1];
    SYNC();
  }
}
)",
                              {{"@T@", short_name(type)}}));
}

KernelDefinition chained_scan_kernel(ElementType type) {
  KernelDefinition kernel(kernel_name("chained_scan", type));
  kernel.scalar<std::uint64_t>("n").scalar<std::uint64_t>("tile").scalar<std::uint32_t>(
      "inclusive");
  kernel.array("in", type, ParamAccess::read)
      .array("prefixes", type, ParamAccess::read_write)
      .array<std::uint32_t>("ready", ParamAccess::read_write)
      .array("out", type, ParamAccess::write);
  by_type(type, [&](auto t) { kernel.cpu(&cpu_chained_scan<decltype(t)>); });
  return kernel;
}

KernelDefinition count_flags_kernel() {
  KernelDefinition kernel("strata_count_flags");
  kernel.scalar<std::uint64_t>("n").scalar<std::uint64_t>("tile");
  kernel.array<std::uint8_t>("flags", ParamAccess::read)
      .array<std::uint64_t>("counts", ParamAccess::write);
  kernel.cpu(&cpu_count_flags);
  return sources(kernel, R"(
@ENTRY@(u64 n, u64 tile, GLOBAL const u8* flags, GLOBAL u64* counts) {
  SHARED u64 s[W];
  const u64 first = GROUP * tile;
  const u64 last = first + tile < n ? first + tile : n;
  u64 count = 0;
  for (u64 i = first + LID; i < last; i += W) count += flags[i] != 0 ? 1 : 0;
  s[LID] = count;
  SYNC();
  for (u32 width = W / 2; width > 0; width >>= 1) {
    if (LID < width) s[LID] += s[LID + width];
    SYNC();
  }
  if (LID == 0) counts[GROUP] = s[0];
}
)");
}

KernelDefinition compact_kernel(std::uint32_t element_bytes) {
  const ElementType type = unsigned_of_size(element_bytes);
  KernelDefinition kernel(kernel_name("compact", type));
  kernel.scalar<std::uint64_t>("n").scalar<std::uint64_t>("tile");
  kernel.array("in", type, ParamAccess::read)
      .array<std::uint8_t>("flags", ParamAccess::read)
      .array<std::uint64_t>("offsets", ParamAccess::read)
      .array("out", type, ParamAccess::write);
  by_type(type, [&](auto t) { kernel.cpu(&cpu_compact<decltype(t)>); });
  return sources(kernel, with(R"(
@ENTRY@(u64 n, u64 tile, GLOBAL const @T@* in, GLOBAL const u8* flags, GLOBAL const u64* offsets,
        GLOBAL @T@* out) {
  SHARED u32 s[W];
  const u64 first = GROUP * tile;
  const u64 last = first + tile < n ? first + tile : n;
  u64 at = offsets[GROUP];
  for (u64 base = first; base < last; base += W) {
    const u64 i = base + LID;
    const u32 keep = i < last && flags[i] != 0 ? 1u : 0u;
    s[LID] = keep;
    SYNC();
    GROUP_SCAN(u32, s)
    if (keep) out[at + s[LID] - 1] = in[i];
    at += s[W - 1];
    SYNC();
  }
}
)",
                              {{"@T@", short_name(type)}}));
}

KernelDefinition order_bits_kernel(ElementType bits) {
  KernelDefinition kernel(kernel_name("order_bits", bits));
  kernel.scalar<std::uint64_t>("n")
      .scalar<std::uint64_t>("tile")
      .scalar<std::uint32_t>("is_float")
      .scalar<std::uint32_t>("forward");
  kernel.array("keys", bits, ParamAccess::read_write);
  if (bits == ElementType::u32) kernel.cpu(&cpu_order_bits<std::uint32_t>);
  if (bits == ElementType::u64) kernel.cpu(&cpu_order_bits<std::uint64_t>);
  return sources(kernel, with(R"(
@ENTRY@(u64 n, u64 tile, u32 is_float, u32 forward, GLOBAL @U@* keys) {
  const @U@ top = ((@U@)1) << (sizeof(@U@) * 8 - 1);
  const u64 first = GROUP * tile;
  const u64 last = first + tile < n ? first + tile : n;
  for (u64 i = first + LID; i < last; i += W) {
    const @U@ bits = keys[i];
    const int negative = (bits & top) != 0;
    keys[i] = !is_float ? bits ^ top
              : forward ? (negative ? (@U@)~bits : bits ^ top)
                        : (negative ? bits ^ top : (@U@)~bits);
  }
}
)",
                              {{"@U@", short_name(bits)}}));
}

KernelDefinition iota_kernel() {
  KernelDefinition kernel("strata_iota_u32");
  kernel.scalar<std::uint64_t>("n").scalar<std::uint64_t>("tile");
  kernel.array<std::uint32_t>("out", ParamAccess::write);
  kernel.cpu(&cpu_iota);
  return sources(kernel, R"(
@ENTRY@(u64 n, u64 tile, GLOBAL u32* out) {
  const u64 first = GROUP * tile;
  const u64 last = first + tile < n ? first + tile : n;
  for (u64 i = first + LID; i < last; i += W) out[i] = (u32)i;
}
)");
}

KernelDefinition group_heads_kernel(ElementType bits) {
  KernelDefinition kernel(kernel_name("group_heads", bits));
  kernel.scalar<std::uint64_t>("n").scalar<std::uint64_t>("tile");
  kernel.array("keys", bits, ParamAccess::read).array<std::uint32_t>("heads", ParamAccess::write);
  if (bits == ElementType::u32) kernel.cpu(&cpu_group_heads<std::uint32_t>);
  if (bits == ElementType::u64) kernel.cpu(&cpu_group_heads<std::uint64_t>);
  return sources(kernel, with(R"(
@ENTRY@(u64 n, u64 tile, GLOBAL const @U@* keys, GLOBAL u32* heads) {
  const u64 first = GROUP * tile;
  const u64 last = first + tile < n ? first + tile : n;
  for (u64 i = first + LID; i < last; i += W) heads[i] = i == 0 || keys[i] != keys[i - 1] ? 1u : 0u;
}
)",
                              {{"@U@", short_name(bits)}}));
}

KernelDefinition group_assign_kernel(ElementType bits) {
  KernelDefinition kernel(kernel_name("group_assign", bits));
  kernel.scalar<std::uint64_t>("n").scalar<std::uint64_t>("tile");
  kernel.array("keys", bits, ParamAccess::read)
      .array<std::uint32_t>("order", ParamAccess::read)
      .array<std::uint32_t>("ids", ParamAccess::read)
      .array<std::uint32_t>("group_of", ParamAccess::write)
      .array("group_keys", bits, ParamAccess::write)
      .array<std::uint32_t>("group_starts", ParamAccess::write);
  if (bits == ElementType::u32) kernel.cpu(&cpu_group_assign<std::uint32_t>);
  if (bits == ElementType::u64) kernel.cpu(&cpu_group_assign<std::uint64_t>);
  return sources(kernel, with(R"(
@ENTRY@(u64 n, u64 tile, GLOBAL const @U@* keys, GLOBAL const u32* order, GLOBAL const u32* ids,
        GLOBAL u32* group_of, GLOBAL @U@* group_keys, GLOBAL u32* group_starts) {
  const u64 first = GROUP * tile;
  const u64 last = first + tile < n ? first + tile : n;
  for (u64 i = first + LID; i < last; i += W) {
    const u32 group = ids[i] - 1;
    group_of[order[i]] = group;
    if (i == 0 || ids[i] != ids[i - 1]) {
      group_keys[group] = keys[i];
      group_starts[group] = (u32)i;
    }
  }
}
)",
                              {{"@U@", short_name(bits)}}));
}

KernelDefinition group_sizes_kernel() {
  KernelDefinition kernel("strata_group_sizes");
  kernel.scalar<std::uint64_t>("n").scalar<std::uint64_t>("tile");
  kernel.array<std::uint32_t>("ids", ParamAccess::read)
      .array<std::uint32_t>("starts", ParamAccess::read)
      .array<std::uint32_t>("sizes", ParamAccess::write)
      .array<std::uint64_t>("groups", ParamAccess::write);
  kernel.cpu(&cpu_group_sizes);
  return sources(kernel, R"(
@ENTRY@(u64 n, u64 tile, GLOBAL const u32* ids, GLOBAL const u32* starts, GLOBAL u32* sizes,
        GLOBAL u64* groups) {
  const u64 count = n > 0 ? ids[n - 1] : 0;
  if (GROUP == 0 && LID == 0) groups[0] = count;
  const u64 first = GROUP * tile;
  const u64 last = first + tile < n ? first + tile : n;
  for (u64 g = first + LID; g < last && g < count; g += W)
    sizes[g] = (u32)((g + 1 < count ? starts[g + 1] : n) - starts[g]);
}
)");
}

KernelDefinition group_sum_kernel(ElementType type) {
  KernelDefinition kernel(kernel_name("group_sum", type));
  kernel.scalar<std::uint64_t>("n").scalar<std::uint64_t>("tile");
  kernel.array<std::uint64_t>("groups", ParamAccess::read)
      .array<std::uint32_t>("starts", ParamAccess::read)
      .array<std::uint32_t>("sizes", ParamAccess::read)
      .array<std::uint32_t>("order", ParamAccess::read)
      .array("values", type, ParamAccess::read)
      .array("sums", type, ParamAccess::write);
  by_type(type, [&](auto t) { kernel.cpu(&cpu_group_sum<decltype(t)>); });
  return sources(kernel, with(R"(
@ENTRY@(u64 n, u64 tile, GLOBAL const u64* groups, GLOBAL const u32* starts,
        GLOBAL const u32* sizes, GLOBAL const u32* order, GLOBAL const @T@* values,
        GLOBAL @T@* sums) {
  const u64 count = groups[0];
  const u64 first = GROUP * tile;
  const u64 last = first + tile < n ? first + tile : n;
  for (u64 g = first + LID; g < last && g < count; g += W) {
    @T@ sum = 0;
    const u64 end = (u64)starts[g] + sizes[g];
    for (u64 j = starts[g]; j < end; ++j) sum += values[order[j]];
    sums[g] = sum;
  }
}
)",
                              {{"@T@", short_name(type)}}));
}

KernelDefinition radix_histogram_kernel(ElementType key) {
  KernelDefinition kernel(kernel_name("radix_histogram", key));
  kernel.scalar<std::uint64_t>("n")
      .scalar<std::uint64_t>("tile")
      .scalar<std::uint32_t>("shift")
      .scalar<std::uint32_t>("bits")
      .scalar<std::uint64_t>("tiles");
  kernel.array("keys", key, ParamAccess::read).array<std::uint32_t>("hist", ParamAccess::write);
  by_type(key, [&](auto t) {
    if constexpr (std::is_unsigned_v<decltype(t)>) kernel.cpu(&cpu_radix_histogram<decltype(t)>);
  });
  return sources(kernel, with(R"(
@ENTRY@(u64 n, u64 tile, u32 shift, u32 bits, u64 tiles, GLOBAL const @K@* keys,
        GLOBAL u32* hist) {
  SHARED u32 counts[16];
  const u32 radix = 1u << bits;
  const u64 first = GROUP * tile;
  const u64 last = first + tile < n ? first + tile : n;
  if (LID < radix) counts[LID] = 0;
  SYNC();
  for (u64 i = first + LID; i < last; i += W)
    LOCAL_INC(&counts[(u32)(keys[i] >> shift) & (radix - 1)]);
  SYNC();
  if (LID < radix) hist[LID * tiles + GROUP] = counts[LID];
}
)",
                              {{"@K@", short_name(key)}}));
}

KernelDefinition radix_scatter_kernel(ElementType key, ElementType value) {
  const bool values = value != ElementType::u8;
  KernelDefinition kernel(values ? kernel_name("radix_scatter", key) + "_" + short_name(value)
                                 : kernel_name("radix_scatter", key));
  kernel.scalar<std::uint64_t>("n")
      .scalar<std::uint64_t>("tile")
      .scalar<std::uint32_t>("shift")
      .scalar<std::uint32_t>("bits")
      .scalar<std::uint64_t>("tiles");
  kernel.array("keys_in", key, ParamAccess::read)
      .array<std::uint32_t>("offsets", ParamAccess::read)
      .array("keys_out", key, ParamAccess::write);
  if (values) {
    kernel.array("values_in", value, ParamAccess::read)
        .array("values_out", value, ParamAccess::write);
  }
  by_type(key, [&](auto k) {
    using K = decltype(k);
    if constexpr (std::is_unsigned_v<K>) {
      if (!values) {
        kernel.cpu(&cpu_radix_scatter<K, K, false>);
        return;
      }
      by_type(value, [&](auto v) { kernel.cpu(&cpu_radix_scatter<K, decltype(v), true>); });
    }
  });
  return sources(
      kernel,
      with(R"(
@ENTRY@(u64 n, u64 tile, u32 shift, u32 bits, u64 tiles, GLOBAL const @K@* keys_in,
        GLOBAL const u32* offsets, GLOBAL @K@* keys_out@VALUE_PARAMS@) {
  SHARED u32 next[16];
  SHARED u32 s[W];
  const u32 radix = 1u << bits;
  const u64 first = GROUP * tile;
  const u64 last = first + tile < n ? first + tile : n;
  if (LID < radix) next[LID] = offsets[LID * tiles + GROUP];
  SYNC();
  for (u64 base = first; base < last; base += W) {
    const u64 i = base + LID;
    const @K@ key = i < last ? keys_in[i] : (@K@)0;
    @VALUE_LOAD@
    const u32 digit = i < last ? (u32)(key >> shift) & (radix - 1) : radix;
    // The digits in turn: a key's place is its digit's next free one plus the keys of that
    // digit before it in this step (a scan of the flags), so the order of equal digits holds.
    for (u32 d = 0; d < radix; ++d) {
      s[LID] = digit == d ? 1u : 0u;
      SYNC();
      GROUP_SCAN(u32, s)
      if (digit == d) {
        const u32 at = next[d] + s[LID] - 1;
        keys_out[at] = key;
        @VALUE_STORE@
      }
      SYNC();
      if (LID == 0) next[d] += s[W - 1];
      SYNC();
    }
  }
}
)",
           {{"@VALUE_PARAMS@", values ? std::string(",\n        GLOBAL const @V@* values_in, "
                                                    "GLOBAL @V@* values_out")
                                      : std::string()},
            {"@VALUE_LOAD@", values ? std::string("const @V@ value = i < last ? values_in[i] "
                                                  ": (@V@)0;")
                                    : std::string()},
            {"@VALUE_STORE@", values ? std::string("values_out[at] = value;") : std::string()},
            {"@K@", short_name(key)},
            {"@V@", values ? short_name(value) : "u8"}}));
}

// Calls f(T{}, O{}) for a scannable value type and u32 or u64 offsets.
template <typename F>
void by_value_and_offset(ElementType type, ElementType offset, F&& f) {
  by_type(type, [&](auto t) {
    if (offset == ElementType::u32) return f(t, std::uint32_t{});
    if (offset == ElementType::u64) return f(t, std::uint64_t{});
    throw Error(fmt::format("segmented_reduce: offsets of type {}", device::to_string(offset)));
  });
}

// The reduction `op` of a and b in both languages (min and max keep a when b is NaN).
constexpr const char* combine_text = R"(
#define COMBINE(a, b) (op == 0 ? (a) + (b) : op == 1 ? ((b) < (a) ? (b) : (a)) : ((b) > (a) ? (b) : (a)))
)";

KernelDefinition segment_tile_kernel(ElementType type, ElementType offset) {
  KernelDefinition kernel(kernel_name("segment_tile", type) + "_" + short_name(offset));
  kernel.scalar<std::uint64_t>("n")
      .scalar<std::uint64_t>("tile")
      .scalar<std::uint64_t>("segments")
      .scalar<std::uint32_t>("op")
      .scalar("identity", type);
  kernel.array("values", type, ParamAccess::read)
      .array("offsets", offset, ParamAccess::read)
      .array("out", type, ParamAccess::write)
      .array("heads", type, ParamAccess::write)
      .array("tails", type, ParamAccess::write);
  by_value_and_offset(type, offset, [&](auto t, auto o) {
    kernel.cpu(&cpu_segment_tile<decltype(t), decltype(o)>);
  });
  return sources(kernel, with(std::string(combine_text) + R"(
// The last s below segments with offsets[s] <= at (0 when none is).
DEVICE_FN u64 segment_at(GLOBAL const @O@* offsets, u64 segments, u64 at) {
  u64 low = 0, high = segments + 1;
  while (low < high) {
    const u64 middle = (low + high) / 2;
    if ((u64)offsets[middle] <= at) low = middle + 1; else high = middle;
  }
  return low == 0 ? 0 : (low - 1 < segments - 1 ? low - 1 : segments - 1);
}

@ENTRY@(u64 n, u64 tile, u64 segments, u32 op, @T@ identity, GLOBAL const @T@* values,
        GLOBAL const @O@* offsets, GLOBAL @T@* out, GLOBAL @T@* heads, GLOBAL @T@* tails) {
  SHARED @T@ s[W];
  SHARED u64 range[2];
  const u64 first = GROUP * tile;
  const u64 last = first + tile < n ? first + tile : n;
  if (LID == 0) {
    range[0] = segment_at(offsets, segments, first);
    range[1] = segment_at(offsets, segments, last - 1);
    heads[GROUP] = identity;
    tails[GROUP] = identity;
  }
  SYNC();
  const u64 low = range[0], high = range[1];
  // Few segments: the group reduces each in turn; many: a thread per segment.
  const int together = high - low < 8;
  for (u64 seg = together ? low : low + LID; seg <= high; seg += together ? 1 : W) {
    const u64 begin = offsets[seg], end = offsets[seg + 1];
    const u64 from = begin > first ? begin : first;
    const u64 to = end < last ? end : last;
    @T@ part = identity;
    if (together) {
      for (u64 i = from + LID; i < to; i += W) part = COMBINE(part, values[i]);
      s[LID] = part;
      SYNC();
      for (u32 width = W / 2; width > 0; width >>= 1) {
        if (LID < width) s[LID] = COMBINE(s[LID], s[LID + width]);
        SYNC();
      }
      part = s[0];
      SYNC();
      if (LID != 0) continue;
    } else {
      for (u64 i = from; i < to; ++i) part = COMBINE(part, values[i]);
    }
    if (from >= to) continue;
    if (begin >= first && end <= last) out[seg] = part;
    if (begin <= first && first < end) heads[GROUP] = part;
    if (begin <= last - 1 && last - 1 < end) tails[GROUP] = part;
  }
}
)",
                              {{"@T@", short_name(type)}, {"@O@", short_name(offset)}}));
}

KernelDefinition segment_combine_kernel(ElementType type, ElementType offset) {
  KernelDefinition kernel(kernel_name("segment_combine", type) + "_" + short_name(offset));
  kernel.scalar<std::uint64_t>("n")
      .scalar<std::uint64_t>("tile")
      .scalar<std::uint64_t>("segments")
      .scalar<std::uint32_t>("op")
      .scalar("identity", type);
  kernel.array("offsets", offset, ParamAccess::read)
      .array("heads", type, ParamAccess::read)
      .array("tails", type, ParamAccess::read)
      .array("out", type, ParamAccess::write);
  by_value_and_offset(type, offset, [&](auto t, auto o) {
    kernel.cpu(&cpu_segment_combine<decltype(t), decltype(o)>);
  });
  return sources(kernel, with(std::string(combine_text) + R"(
@ENTRY@(u64 n, u64 tile, u64 segments, u32 op, @T@ identity, GLOBAL const @O@* offsets,
        GLOBAL const @T@* heads, GLOBAL const @T@* tails, GLOBAL @T@* out) {
  const u64 first = GROUP * tile;
  const u64 last = first + tile < segments ? first + tile : segments;
  for (u64 seg = first + LID; seg < last; seg += W) {
    // Clamped into the values: bad offsets give unspecified results, not stray accesses.
    const u64 begin = (u64)offsets[seg] < n ? (u64)offsets[seg] : n;
    u64 end = (u64)offsets[seg + 1] < n ? (u64)offsets[seg + 1] : n;
    end = end < begin ? begin : end;
    if (begin == end) {
      out[seg] = identity;
      continue;
    }
    const u64 from = begin / tile, to = (end - 1) / tile;
    if (from == to) continue;
    @T@ r = tails[from];
    for (u64 inner = from + 1; inner < to; ++inner) r = COMBINE(r, heads[inner]);
    out[seg] = COMBINE(r, heads[to]);
  }
}
)",
                              {{"@T@", short_name(type)}, {"@O@", short_name(offset)}}));
}

KernelDefinition join_ranges_kernel(ElementType bits) {
  KernelDefinition kernel(kernel_name("join_ranges", bits));
  kernel.scalar<std::uint64_t>("n").scalar<std::uint64_t>("tile").scalar<std::uint64_t>("m");
  kernel.array("sorted", bits, ParamAccess::read)
      .array("probe", bits, ParamAccess::read)
      .array<std::uint32_t>("first", ParamAccess::write)
      .array<std::uint64_t>("counts", ParamAccess::write);
  if (bits == ElementType::u32) kernel.cpu(&cpu_join_ranges<std::uint32_t>);
  if (bits == ElementType::u64) kernel.cpu(&cpu_join_ranges<std::uint64_t>);
  return sources(kernel, with(R"(
// The first of the m sorted keys not below key (upper: above it).
DEVICE_FN u64 bound_of(GLOBAL const @U@* sorted, u64 m, @U@ key, int upper) {
  u64 low = 0, high = m;
  while (low < high) {
    const u64 middle = (low + high) / 2;
    if (sorted[middle] < key || (upper && sorted[middle] == key)) low = middle + 1;
    else high = middle;
  }
  return low;
}

@ENTRY@(u64 n, u64 tile, u64 m, GLOBAL const @U@* sorted, GLOBAL const @U@* probe,
        GLOBAL u32* first, GLOBAL u64* counts) {
  const u64 begin = GROUP * tile;
  const u64 end = begin + tile < n ? begin + tile : n;
  for (u64 i = begin + LID; i < end; i += W) {
    const u64 low = bound_of(sorted, m, probe[i], 0);
    first[i] = (u32)low;
    counts[i] = bound_of(sorted, m, probe[i], 1) - low;
  }
}
)",
                              {{"@U@", short_name(bits)}}));
}

KernelDefinition join_write_kernel() {
  KernelDefinition kernel("strata_join_write");
  kernel.scalar<std::uint64_t>("n").scalar<std::uint64_t>("tile").scalar<std::uint64_t>("capacity");
  kernel.array<std::uint32_t>("first", ParamAccess::read)
      .array<std::uint64_t>("ends", ParamAccess::read)
      .array<std::uint32_t>("order", ParamAccess::read)
      .array<std::uint32_t>("out_build", ParamAccess::write)
      .array<std::uint32_t>("out_probe", ParamAccess::write)
      .array<std::uint64_t>("matches", ParamAccess::write);
  kernel.cpu(&cpu_join_write);
  return sources(kernel, R"(
@ENTRY@(u64 n, u64 tile, u64 capacity, GLOBAL const u32* first, GLOBAL const u64* ends,
        GLOBAL const u32* order, GLOBAL u32* out_build, GLOBAL u32* out_probe,
        GLOBAL u64* matches) {
  if (GROUP == 0 && LID == 0) matches[0] = ends[n - 1];
  const u64 begin = GROUP * tile;
  const u64 end = begin + tile < n ? begin + tile : n;
  for (u64 i = begin + LID; i < end; i += W) {
    const u64 from = i > 0 ? ends[i - 1] : 0;
    const u64 to = ends[i] < capacity ? ends[i] : capacity;
    for (u64 j = from; j < to; ++j) {
      out_build[j] = order[first[i] + (j - from)];
      out_probe[j] = (u32)i;
    }
  }
}
)");
}

}  // namespace strata::primitives::detail
