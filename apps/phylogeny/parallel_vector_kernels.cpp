#include "phylogeny/parallel_vector_kernels.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <string>

#include "phylogeny/amino_acids.hpp"
#include "phylogeny/composition_vector.hpp"
#include "phylogeny/parallel_vector_cuda.hpp"
#include "strata/device/device.hpp"  // CpuBlock::array

namespace strata::apps::phylogeny {

using device::CpuBlock;
using device::ParamAccess;

namespace {

constexpr std::uint64_t min_table_slots = 256;
constexpr std::uint64_t keys_per_block =
    std::uint64_t{parallel_block_threads} * parallel_keys_per_thread;

// The OpenCL C shared by the kernels: the layout (as ScratchLayout) and the entry test.
const char* const opencl_common = R"(
typedef struct {
  ulong strings_k, strings_k1, strings_k2, blocks, table_slots;
  ulong counts_k1, counts_k2, block_entries, block_squares, block_offsets, table, words;
} Layout;

Layout layout_of(uint k, ulong residues) {
  Layout l;
  l.strings_k2 = 1;
  for (uint i = 2; i < k; ++i) l.strings_k2 *= 20;
  l.strings_k1 = l.strings_k2 * 20;
  l.strings_k = l.strings_k1 * 20;
  l.blocks = (l.strings_k + KEYS_PER_BLOCK - 1) / KEYS_PER_BLOCK;
  l.table_slots = MIN_TABLE_SLOTS;
  while (l.table_slots < 2 * residues) l.table_slots *= 2;
  l.counts_k1 = 4;
  l.counts_k2 = l.counts_k1 + l.strings_k1;
  l.block_entries = l.counts_k2 + l.strings_k2;
  l.block_squares = l.block_entries + l.blocks;
  l.block_offsets = l.block_squares + l.blocks;
  l.table = (l.block_offsets + l.blocks + 1) / 2 * 2;
  l.words = l.table + 2 * l.table_slots;
  return l;
}

uint mix(uint x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// The count of k-string x in the hash table.
uint count_of(__global const uint* s, const Layout* l, uint x) {
  const ulong mask = l->table_slots - 1;
  for (ulong h = mix(x) & mask;; h = (h + 1) & mask) {
    const uint stored = s[l->table + 2 * h];
    if (stored == 0) return 0;
    if (stored == x + 1) return s[l->table + 2 * h + 1];
  }
}

// Whether k-string x is an entry (p0 > 0) and, if so, its (p - p0) / p0.
bool entry_of(__global const uint* s, const Layout* l, ulong x, float* value) {
  const ulong prefix = x / 20, suffix = x % l->strings_k1, middle = prefix % l->strings_k2;
  const uint cp = s[l->counts_k1 + prefix], cs = s[l->counts_k1 + suffix];
  if (cp == 0 || cs == 0) return false;
  const float n0 = (float)s[0], n1 = (float)s[1], n2 = (float)s[2];
  const float p = n0 > 0 ? (float)count_of(s, l, (uint)x) / n0 : 0.0f;
  *value = p * (n1 / (float)cp) * (n1 / (float)cs) * ((float)s[l->counts_k2 + middle] / n2) - 1.0f;
  return true;
}
)";

std::uint32_t mix(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// The C++ twins of count_of and entry_of (in double).
std::uint32_t count_of(const std::uint32_t* s, const ScratchLayout& l, std::uint32_t x) {
  const std::uint64_t mask = l.table_slots - 1;
  for (std::uint64_t h = mix(x) & mask;; h = (h + 1) & mask) {
    const std::uint32_t stored = s[l.table + 2 * h];
    if (stored == 0) return 0;
    if (stored == x + 1) return s[l.table + 2 * h + 1];
  }
}

// The C++ twin of entry_of (in double).
bool entry_of(const std::uint32_t* s, const ScratchLayout& l, std::uint64_t x, double* value) {
  const std::uint64_t prefix = x / amino_acid_count, suffix = x % l.strings_k1,
                      middle = prefix % l.strings_k2;
  const std::uint32_t cp = s[l.counts_k1 + prefix], cs = s[l.counts_k1 + suffix];
  if (cp == 0 || cs == 0) return false;
  const auto n0 = static_cast<double>(s[0]), n1 = static_cast<double>(s[1]),
             n2 = static_cast<double>(s[2]);
  const double p = n0 > 0 ? count_of(s, l, static_cast<std::uint32_t>(x)) / n0 : 0.0;
  *value = p * (n1 / cp) * (n1 / cs) * (s[l.counts_k2 + middle] / n2) - 1.0;
  return true;
}

// The constants every backend's source uses, and the OpenCL C source.
device::KernelDefinition with_opencl(device::KernelDefinition kernel, const char* body) {
  return kernel.define("KEYS_PER_BLOCK", std::to_string(keys_per_block))
      .define("BLOCK_THREADS", std::to_string(parallel_block_threads))
      .define("KEYS_PER_THREAD", std::to_string(parallel_keys_per_thread))
      .define("MIN_TABLE_SLOTS", std::to_string(min_table_slots))
      .opencl(std::string(opencl_common) + body);
}

device::KernelDefinition clear_kernel() {
  auto kernel =
      device::KernelDefinition("phylogeny_cv_clear")
          .array<std::uint32_t>("parsed", ParamAccess::read_write)
          .scalar<std::uint64_t>("residues")
          .scalar<std::uint32_t>("k")
          .cpu([](const CpuBlock& block) {
            const auto residues = block.scalar<std::uint64_t>(1);
            std::uint32_t* s = block.array<std::uint32_t>(0) + residues / 4;
            const ScratchLayout l(static_cast<int>(block.scalar<std::uint32_t>(2)), residues);
            const std::uint64_t end = std::min(block.end.x, l.words);
            if (block.begin.x < end) std::fill(s + block.begin.x, s + end, 0u);
          });
  kernel.cuda(clear_cuda());
  return with_opencl(std::move(kernel), R"(
__kernel void phylogeny_cv_clear(__global uint* parsed, ulong residues, uint k) {
  const Layout l = layout_of(k, residues);
  const ulong i = get_global_id(0);
  if (i < l.words) parsed[residues / 4 + i] = 0;
}
)");
}

device::KernelDefinition count_kernel() {
  auto kernel =
      device::KernelDefinition("phylogeny_cv_count")
          .array<std::uint32_t>("parsed", ParamAccess::read_write)
          .scalar<std::uint64_t>("residues")
          .scalar<std::uint32_t>("k")
          .cpu([](const CpuBlock& block) {
            std::uint32_t* parsed = block.array<std::uint32_t>(0);
            const auto residues = block.scalar<std::uint64_t>(1);
            const auto k = block.scalar<std::uint32_t>(2);
            std::uint32_t* s = parsed + residues / 4;
            const ScratchLayout l(static_cast<int>(k), residues);
            const auto* codes = reinterpret_cast<const std::uint8_t*>(parsed);
            auto add = [](std::uint32_t& counter, std::uint32_t n) {
              std::atomic_ref<std::uint32_t>(counter).fetch_add(n, std::memory_order_relaxed);
            };
            auto count_string = [&](std::uint32_t key) {
              const std::uint64_t mask = l.table_slots - 1;
              for (std::uint64_t h = mix(key) & mask;; h = (h + 1) & mask) {
                std::uint32_t expected = 0;
                std::atomic_ref<std::uint32_t> slot(s[l.table + 2 * h]);
                if (slot.compare_exchange_strong(expected, key + 1, std::memory_order_relaxed) ||
                    expected == key + 1) {
                  add(s[l.table + 2 * h + 1], 1);
                  return;
                }
              }
            };
            std::uint32_t totals[3] = {0, 0, 0};
            for (std::uint64_t i = block.begin.x; i < block.end.x && i < residues; ++i) {
              std::uint32_t run = 0;
              while (run < k && run <= i && codes[i - run] < amino_acid_count)
                ++run;
              if (run + 2 < k) continue;
              std::uint64_t key2 = 0;
              for (std::uint64_t j = i + 3 - k; j <= i; ++j)
                key2 = key2 * amino_acid_count + codes[j];
              add(s[l.counts_k2 + key2], 1);
              ++totals[2];
              if (run + 1 < k) continue;
              const std::uint64_t key1 = codes[i + 2 - k] * l.strings_k2 + key2;
              add(s[l.counts_k1 + key1], 1);
              ++totals[1];
              if (run < k) continue;
              count_string(static_cast<std::uint32_t>(codes[i + 1 - k] * l.strings_k1 + key1));
              ++totals[0];
            }
            for (int t = 0; t < 3; ++t)
              if (totals[t] != 0) add(s[t], totals[t]);
          });
  kernel.cuda(count_cuda());
  return with_opencl(std::move(kernel), R"(
__kernel void phylogeny_cv_count(__global uint* parsed, ulong residues, uint k) {
  __global const uchar* codes = (__global const uchar*)parsed;
  __global uint* s = parsed + residues / 4;
  const Layout l = layout_of(k, residues);
  __local uint totals[3];
  const uint t = get_local_id(0);
  if (t < 3) totals[t] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  const ulong i = get_global_id(0);
  if (i < residues) {
    uint run = 0;
    while (run < k && run <= i && codes[i - run] < 20) ++run;
    if (run + 2 >= k) {
      ulong key2 = 0;
      for (ulong j = i + 3 - k; j <= i; ++j) key2 = key2 * 20 + codes[j];
      atomic_inc(&s[l.counts_k2 + key2]);
      atomic_inc(&totals[2]);
      if (run + 1 >= k) {
        const ulong key1 = codes[i + 2 - k] * l.strings_k2 + key2;
        atomic_inc(&s[l.counts_k1 + key1]);
        atomic_inc(&totals[1]);
        if (run >= k) {
          const uint key = (uint)(codes[i + 1 - k] * l.strings_k1 + key1);
          const ulong mask = l.table_slots - 1;
          for (ulong h = mix(key) & mask;; h = (h + 1) & mask) {
            const uint old = atomic_cmpxchg(&s[l.table + 2 * h], 0U, key + 1);
            if (old == 0 || old == key + 1) {
              atomic_inc(&s[l.table + 2 * h + 1]);
              break;
            }
          }
          atomic_inc(&totals[0]);
        }
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (t < 3 && totals[t] != 0) atomic_add(&s[t], totals[t]);
}
)");
}

device::KernelDefinition measure_kernel() {
  auto kernel =
      device::KernelDefinition("phylogeny_cv_measure")
          .array<std::uint32_t>("parsed", ParamAccess::read_write)
          .scalar<std::uint64_t>("residues")
          .scalar<std::uint32_t>("k")
          .cpu([](const CpuBlock& block) {
            const auto residues = block.scalar<std::uint64_t>(1);
            std::uint32_t* s = block.array<std::uint32_t>(0) + residues / 4;
            const ScratchLayout l(static_cast<int>(block.scalar<std::uint32_t>(2)), residues);
            const std::uint64_t group = block.begin.x / parallel_block_threads;
            const std::uint64_t first = group * keys_per_block;
            const std::uint64_t last = std::min(first + keys_per_block, l.strings_k);
            std::uint32_t entries = 0;
            double squares = 0;
            for (std::uint64_t x = first; x < last; ++x) {
              double value = 0;
              if (!entry_of(s, l, x, &value)) continue;
              ++entries;
              squares += value * value;
            }
            s[l.block_entries + group] = entries;
            s[l.block_squares + group] = std::bit_cast<std::uint32_t>(static_cast<float>(squares));
          });
  kernel.cuda(measure_cuda());
  return with_opencl(std::move(kernel), R"(
__kernel void phylogeny_cv_measure(__global uint* parsed, ulong residues, uint k) {
  __global uint* s = parsed + residues / 4;
  const Layout l = layout_of(k, residues);
  __local uint entries[BLOCK_THREADS];
  __local float squares[BLOCK_THREADS];
  const uint t = get_local_id(0);
  const ulong group = get_group_id(0);
  const ulong first = (group * BLOCK_THREADS + t) * KEYS_PER_THREAD;
  uint n = 0;
  float sum = 0.0f;
  for (uint i = 0; i < KEYS_PER_THREAD; ++i) {
    float value;
    if (first + i < l.strings_k && entry_of(s, &l, first + i, &value)) {
      ++n;
      sum += value * value;
    }
  }
  entries[t] = n;
  squares[t] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint stride = BLOCK_THREADS / 2; stride > 0; stride /= 2) {
    if (t < stride) {
      entries[t] += entries[t + stride];
      squares[t] += squares[t + stride];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) {
    s[l.block_entries + group] = entries[0];
    s[l.block_squares + group] = as_uint(squares[0]);
  }
}
)");
}

device::KernelDefinition scan_kernel() {
  auto kernel = device::KernelDefinition("phylogeny_cv_scan")
                    .array<std::uint32_t>("parsed", ParamAccess::read_write)
                    .scalar<std::uint64_t>("residues")
                    .scalar<std::uint32_t>("k")
                    .array<std::uint32_t>("item", ParamAccess::write)
                    .scalar<std::uint64_t>("item_words")
                    .cpu([](const CpuBlock& block) {
                      const auto residues = block.scalar<std::uint64_t>(1);
                      std::uint32_t* s = block.array<std::uint32_t>(0) + residues / 4;
                      const auto k = block.scalar<std::uint32_t>(2);
                      const ScratchLayout l(static_cast<int>(k), residues);
                      std::uint32_t* item = block.array<std::uint32_t>(3);
                      const auto item_words = block.scalar<std::uint64_t>(4);
                      std::uint64_t total = 0;
                      double squares = 0;
                      for (std::uint64_t b = 0; b < l.blocks; ++b) {
                        s[l.block_offsets + b] = static_cast<std::uint32_t>(total);
                        total += s[l.block_entries + b];
                        squares += std::bit_cast<float>(s[l.block_squares + b]);
                      }
                      const std::uint64_t capacity = (item_words - vector_header_words) / 2;
                      item[0] = static_cast<std::uint32_t>(std::min(total, capacity));
                      item[1] = k;
                      const float scale =
                          squares > 0 ? static_cast<float>(1.0 / std::sqrt(squares)) : 0.0f;
                      s[3] = std::bit_cast<std::uint32_t>(scale);
                    });
  kernel.cuda(scan_cuda());
  return with_opencl(std::move(kernel), R"(
__kernel void phylogeny_cv_scan(__global uint* parsed, ulong residues, uint k,
                                __global uint* item, ulong item_words) {
  if (get_global_id(0) != 0) return;
  __global uint* s = parsed + residues / 4;
  const Layout l = layout_of(k, residues);
  ulong total = 0;
  float squares = 0.0f;
  for (ulong b = 0; b < l.blocks; ++b) {
    s[l.block_offsets + b] = (uint)total;
    total += s[l.block_entries + b];
    squares += as_float(s[l.block_squares + b]);
  }
  const ulong capacity = (item_words - 2) / 2;
  item[0] = (uint)min(total, capacity);
  item[1] = k;
  s[3] = as_uint(squares > 0.0f ? rsqrt(squares) : 0.0f);
}
)");
}

device::KernelDefinition write_kernel() {
  auto kernel =
      device::KernelDefinition("phylogeny_cv_write")
          .array<std::uint32_t>("parsed", ParamAccess::read)
          .scalar<std::uint64_t>("residues")
          .scalar<std::uint32_t>("k")
          .array<std::uint32_t>("item", ParamAccess::write)
          .scalar<std::uint64_t>("item_words")
          .cpu([](const CpuBlock& block) {
            const auto residues = block.scalar<std::uint64_t>(1);
            const std::uint32_t* s = block.array<std::uint32_t>(0) + residues / 4;
            const ScratchLayout l(static_cast<int>(block.scalar<std::uint32_t>(2)), residues);
            std::uint32_t* item = block.array<std::uint32_t>(3);
            const auto item_words = block.scalar<std::uint64_t>(4);
            const std::uint64_t capacity = (item_words - vector_header_words) / 2;
            const float scale = std::bit_cast<float>(s[3]);
            const std::uint64_t group = block.begin.x / parallel_block_threads;
            const std::uint64_t first = group * keys_per_block;
            const std::uint64_t last = std::min(first + keys_per_block, l.strings_k);
            std::uint64_t at = s[l.block_offsets + group];
            for (std::uint64_t x = first; x < last; ++x) {
              double value = 0;
              if (!entry_of(s, l, x, &value)) continue;
              if (at < capacity) {
                item[vector_header_words + 2 * at] = static_cast<std::uint32_t>(x);
                item[vector_header_words + 2 * at + 1] =
                    std::bit_cast<std::uint32_t>(static_cast<float>(value) * scale);
              }
              ++at;
            }
          });
  kernel.cuda(write_cuda());
  return with_opencl(std::move(kernel), R"(
__kernel void phylogeny_cv_write(__global const uint* parsed, ulong residues, uint k,
                                 __global uint* item, ulong item_words) {
  __global const uint* s = parsed + residues / 4;
  const Layout l = layout_of(k, residues);
  __local uint ranks[BLOCK_THREADS];
  const uint t = get_local_id(0);
  const ulong group = get_group_id(0);
  const ulong first = (group * BLOCK_THREADS + t) * KEYS_PER_THREAD;
  uint n = 0;
  for (uint i = 0; i < KEYS_PER_THREAD; ++i) {
    float value;
    if (first + i < l.strings_k && entry_of(s, &l, first + i, &value)) ++n;
  }
  ranks[t] = n;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (t == 0) {
    uint sum = 0;
    for (uint i = 0; i < BLOCK_THREADS; ++i) {
      const uint own = ranks[i];
      ranks[i] = sum;
      sum += own;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const ulong capacity = (item_words - 2) / 2;
  const float scale = as_float(s[3]);
  ulong at = s[l.block_offsets + group] + ranks[t];
  for (uint i = 0; i < KEYS_PER_THREAD; ++i) {
    float value;
    if (first + i < l.strings_k && entry_of(s, &l, first + i, &value)) {
      if (at < capacity) {
        item[2 + 2 * at] = (uint)(first + i);
        item[3 + 2 * at] = as_uint(value * scale);
      }
      ++at;
    }
  }
}
)");
}

std::uint64_t round_up(std::uint64_t value, std::uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace

ScratchLayout::ScratchLayout(int k_, std::uint64_t residues) : k(k_) {
  strings_k2 = 1;
  for (int i = 2; i < k; ++i)
    strings_k2 *= amino_acid_count;
  strings_k1 = strings_k2 * amino_acid_count;
  strings_k = strings_k1 * amino_acid_count;
  blocks = (strings_k + keys_per_block - 1) / keys_per_block;
  table_slots = min_table_slots;
  while (table_slots < 2 * residues)
    table_slots *= 2;
  counts_k2 = counts_k1 + strings_k1;
  block_entries = counts_k2 + strings_k2;
  block_squares = block_entries + blocks;
  block_offsets = block_squares + blocks;
  table = (block_offsets + blocks + 1) / 2 * 2;
  words = table + 2 * table_slots;
}

std::uint64_t parsed_bytes_with_scratch(int k, std::uint64_t residues) {
  const std::uint64_t padded = round_up(residues, scratch_alignment);
  return padded + ScratchLayout(k, padded).bytes();
}

std::uint64_t residues_in_parsed(int k, std::uint64_t parsed_bytes) {
  // The largest multiple of the alignment whose parsed size fits (sizes grow with residues).
  std::uint64_t low = 0, high = parsed_bytes / scratch_alignment + 1;  // in units of alignment
  while (high - low > 1) {
    const std::uint64_t mid = (low + high) / 2;
    if (parsed_bytes_with_scratch(k, mid * scratch_alignment) <= parsed_bytes) {
      low = mid;
    } else {
      high = mid;
    }
  }
  return low * scratch_alignment;
}

ParallelVectorKernels::ParallelVectorKernels()
    : clear(clear_kernel()),
      count(count_kernel()),
      measure(measure_kernel()),
      scan(scan_kernel()),
      write(write_kernel()) {}

device::Event launch_parallel_composition_vector(allpairs::DeviceContext& context,
                                                 const ParallelVectorKernels& kernels, int k,
                                                 const memory::ChunkView& parsed,
                                                 std::uint64_t residues,
                                                 const memory::ChunkView& item) {
  using device::Dim3;
  using device::ElementType;
  using device::KernelArg;
  const ScratchLayout layout(k, residues);
  const auto k32 = static_cast<std::uint32_t>(k);
  const std::uint64_t item_words = item.bytes / 4;
  auto geometry = [](std::uint64_t global) {
    return device::LaunchGeometry{
        Dim3{round_up(std::max<std::uint64_t>(global, 1), parallel_block_threads)},
        Dim3{parallel_block_threads}, 1};
  };
  const KernelArg scratch = parsed.argument(ElementType::u32);
  const KernelArg size = KernelArg::value(residues);
  context.launch(kernels.clear, geometry(layout.words), {scratch, size, KernelArg::value(k32)});
  context.launch(kernels.count, geometry(residues), {scratch, size, KernelArg::value(k32)});
  context.launch(kernels.measure, geometry(layout.blocks * parallel_block_threads),
                 {scratch, size, KernelArg::value(k32)});
  context.launch(kernels.scan, device::LaunchGeometry{Dim3{1}, Dim3{1}, 1},
                 {scratch, size, KernelArg::value(k32), item.argument(ElementType::u32),
                  KernelArg::value(item_words)});
  return context.launch(kernels.write, geometry(layout.blocks * parallel_block_threads),
                        {scratch, size, KernelArg::value(k32), item.argument(ElementType::u32),
                         KernelArg::value(item_words)});
}

}  // namespace strata::apps::phylogeny
