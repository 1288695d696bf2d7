#include "phylogeny/parallel_vector_cuda.hpp"

namespace strata::apps::phylogeny {
namespace {

// What the kernels share: the layout (as ScratchLayout) and the entry test, as in OpenCL C.
constexpr const char* common = R"(
typedef unsigned int u32;
typedef unsigned long long u64;

struct Layout {
  u64 strings_k, strings_k1, strings_k2, blocks, table_slots;
  u64 counts_k1, counts_k2, block_entries, block_squares, block_offsets, table, words;
};

__device__ Layout layout_of(u32 k, u64 residues) {
  Layout l;
  l.strings_k2 = 1;
  for (u32 i = 2; i < k; ++i) l.strings_k2 *= 20;
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

__device__ u32 mix(u32 x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// The count of k-string x in the hash table.
__device__ u32 count_of(const u32* s, const Layout* l, u32 x) {
  const u64 mask = l->table_slots - 1;
  for (u64 h = mix(x) & mask;; h = (h + 1) & mask) {
    const u32 stored = s[l->table + 2 * h];
    if (stored == 0) return 0;
    if (stored == x + 1) return s[l->table + 2 * h + 1];
  }
}

// Whether k-string x is an entry (p0 > 0) and, if so, its (p - p0) / p0.
__device__ bool entry_of(const u32* s, const Layout* l, u64 x, float* value) {
  const u64 prefix = x / 20, suffix = x % l->strings_k1, middle = prefix % l->strings_k2;
  const u32 cp = s[l->counts_k1 + prefix], cs = s[l->counts_k1 + suffix];
  if (cp == 0 || cs == 0) return false;
  const float n0 = (float)s[0], n1 = (float)s[1], n2 = (float)s[2];
  const float p = n0 > 0 ? (float)count_of(s, l, (u32)x) / n0 : 0.0f;
  *value = p * (n1 / (float)cp) * (n1 / (float)cs) * ((float)s[l->counts_k2 + middle] / n2) - 1.0f;
  return true;
}
)";

constexpr const char* clear = R"(
extern "C" __global__ void phylogeny_cv_clear(u32* parsed, u64 residues, u32 k) {
  const Layout l = layout_of(k, residues);
  const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < l.words) parsed[residues / 4 + i] = 0;
}
)";

constexpr const char* count = R"(
extern "C" __global__ void phylogeny_cv_count(u32* parsed, u64 residues, u32 k) {
  const unsigned char* codes = (const unsigned char*)parsed;
  u32* s = parsed + residues / 4;
  const Layout l = layout_of(k, residues);
  __shared__ u32 totals[3];
  const u32 t = threadIdx.x;
  if (t < 3) totals[t] = 0;
  __syncthreads();
  const u64 i = (u64)blockIdx.x * blockDim.x + t;
  if (i < residues) {
    u32 run = 0;
    while (run < k && run <= i && codes[i - run] < 20) ++run;
    if (run + 2 >= k) {
      u64 key2 = 0;
      for (u64 j = i + 3 - k; j <= i; ++j) key2 = key2 * 20 + codes[j];
      atomicAdd(&s[l.counts_k2 + key2], 1u);
      atomicAdd(&totals[2], 1u);
      if (run + 1 >= k) {
        const u64 key1 = codes[i + 2 - k] * l.strings_k2 + key2;
        atomicAdd(&s[l.counts_k1 + key1], 1u);
        atomicAdd(&totals[1], 1u);
        if (run >= k) {
          const u32 key = (u32)(codes[i + 1 - k] * l.strings_k1 + key1);
          const u64 mask = l.table_slots - 1;
          for (u64 h = mix(key) & mask;; h = (h + 1) & mask) {
            const u32 old = atomicCAS(&s[l.table + 2 * h], 0u, key + 1);
            if (old == 0 || old == key + 1) {
              atomicAdd(&s[l.table + 2 * h + 1], 1u);
              break;
            }
          }
          atomicAdd(&totals[0], 1u);
        }
      }
    }
  }
  __syncthreads();
  if (t < 3 && totals[t] != 0) atomicAdd(&s[t], totals[t]);
}
)";

constexpr const char* measure = R"(
extern "C" __global__ void phylogeny_cv_measure(u32* parsed, u64 residues, u32 k) {
  u32* s = parsed + residues / 4;
  const Layout l = layout_of(k, residues);
  __shared__ u32 entries[BLOCK_THREADS];
  __shared__ float squares[BLOCK_THREADS];
  const u32 t = threadIdx.x;
  const u64 group = blockIdx.x;
  const u64 first = (group * BLOCK_THREADS + t) * KEYS_PER_THREAD;
  u32 n = 0;
  float sum = 0.0f;
  for (u32 i = 0; i < KEYS_PER_THREAD; ++i) {
    float value;
    if (first + i < l.strings_k && entry_of(s, &l, first + i, &value)) {
      ++n;
      sum += value * value;
    }
  }
  entries[t] = n;
  squares[t] = sum;
  __syncthreads();
  for (u32 stride = BLOCK_THREADS / 2; stride > 0; stride /= 2) {
    if (t < stride) {
      entries[t] += entries[t + stride];
      squares[t] += squares[t + stride];
    }
    __syncthreads();
  }
  if (t == 0) {
    s[l.block_entries + group] = entries[0];
    s[l.block_squares + group] = __float_as_uint(squares[0]);
  }
}
)";

constexpr const char* scan = R"(
extern "C" __global__ void phylogeny_cv_scan(u32* parsed, u64 residues, u32 k, u32* item,
                                             u64 item_words) {
  if (blockIdx.x * blockDim.x + threadIdx.x != 0) return;
  u32* s = parsed + residues / 4;
  const Layout l = layout_of(k, residues);
  u64 total = 0;
  float squares = 0.0f;
  for (u64 b = 0; b < l.blocks; ++b) {
    s[l.block_offsets + b] = (u32)total;
    total += s[l.block_entries + b];
    squares += __uint_as_float(s[l.block_squares + b]);
  }
  const u64 capacity = (item_words - 2) / 2;
  item[0] = (u32)(total < capacity ? total : capacity);
  item[1] = k;
  s[3] = __float_as_uint(squares > 0.0f ? rsqrtf(squares) : 0.0f);
}
)";

constexpr const char* write = R"(
extern "C" __global__ void phylogeny_cv_write(const u32* parsed, u64 residues, u32 k, u32* item,
                                              u64 item_words) {
  const u32* s = parsed + residues / 4;
  const Layout l = layout_of(k, residues);
  __shared__ u32 ranks[BLOCK_THREADS];
  const u32 t = threadIdx.x;
  const u64 group = blockIdx.x;
  const u64 first = (group * BLOCK_THREADS + t) * KEYS_PER_THREAD;
  u32 n = 0;
  for (u32 i = 0; i < KEYS_PER_THREAD; ++i) {
    float value;
    if (first + i < l.strings_k && entry_of(s, &l, first + i, &value)) ++n;
  }
  ranks[t] = n;
  __syncthreads();
  if (t == 0) {
    u32 sum = 0;
    for (u32 i = 0; i < BLOCK_THREADS; ++i) {
      const u32 own = ranks[i];
      ranks[i] = sum;
      sum += own;
    }
  }
  __syncthreads();
  const u64 capacity = (item_words - 2) / 2;
  const float scale = __uint_as_float(s[3]);
  u64 at = s[l.block_offsets + group] + ranks[t];
  for (u32 i = 0; i < KEYS_PER_THREAD; ++i) {
    float value;
    if (first + i < l.strings_k && entry_of(s, &l, first + i, &value)) {
      if (at < capacity) {
        item[2 + 2 * at] = (u32)(first + i);
        item[3 + 2 * at] = __float_as_uint(value * scale);
      }
      ++at;
    }
  }
}
)";

}  // namespace

std::string clear_cuda() {
  return std::string(common) + clear;
}
std::string count_cuda() {
  return std::string(common) + count;
}
std::string measure_cuda() {
  return std::string(common) + measure;
}
std::string scan_cuda() {
  return std::string(common) + scan;
}
std::string write_cuda() {
  return std::string(common) + write;
}

}  // namespace strata::apps::phylogeny
