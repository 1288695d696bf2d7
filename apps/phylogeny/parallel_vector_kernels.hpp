#pragma once
// Composition vectors built data-parallel on any device (k <= 6), in five kernels (C++, OpenCL C
// and CUDA each): count every window of the proteome — strings of lengths k-1 and k-2 in dense
// arrays, k-strings in a hash table of twice the residues — then, over every k-string, count
// the vector's entries and their squares per block, scan the blocks, and write each entry at
// its rank, so the keys come out sorted without a sort. The counts live in scratch memory after
// the parsed residues (parse() leaves room for it), about 32 bytes per residue plus the dense
// arrays (672 KB at k = 5).

#include <cstdint>

#include "strata/allpairs/application.hpp"
#include "strata/device/kernel.hpp"

namespace strata::apps::phylogeny {

// The largest k the kernels take (the (k-1)-string array of 20^6 counters is 256 MB at k = 7).
inline constexpr int longest_parallel_k = 6;

// k-strings per block of the entry passes: 256 threads of 16 consecutive keys.
inline constexpr std::uint32_t parallel_block_threads = 256;
inline constexpr std::uint32_t parallel_keys_per_thread = 16;

// Parsed residues are padded with separators to a multiple of this, then the scratch follows;
// it stays as aligned as the chunk.
inline constexpr std::uint64_t scratch_alignment = 256;

// Where things lie in the scratch for `residues` (padded) residues, in 32-bit words from its
// start. The OpenCL kernels compute the same.
struct ScratchLayout {
  ScratchLayout(int k, std::uint64_t residues);
  int k;
  std::uint64_t strings_k = 0, strings_k1 = 0, strings_k2 = 0;  // 20^k, 20^(k-1), 20^(k-2)
  std::uint64_t blocks = 0;                                     // of the entry passes
  std::uint64_t table_slots = 0;  // of the k-string hash table: a power of 2 >= 2 * residues
  // [0..3): window totals for lengths k, k-1, k-2; [3]: the normalizing scale (a float).
  std::uint64_t counts_k1 = 4, counts_k2 = 0;
  std::uint64_t block_entries = 0, block_squares = 0, block_offsets = 0;
  std::uint64_t table = 0;  // slots of (key + 1, count); key 0 marks an empty slot
  std::uint64_t words = 0;
  std::uint64_t bytes() const { return words * 4; }
};

// Bytes of a parsed item for `residues` residues: padded residues, then the scratch.
std::uint64_t parsed_bytes_with_scratch(int k, std::uint64_t residues);
// The padded residues of a parsed item of `parsed_bytes` (the inverse of the above on the
// sizes it gives; below them, a lower value whose parsed size fits).
std::uint64_t residues_in_parsed(int k, std::uint64_t parsed_bytes);

// The five kernels, built once per application.
struct ParallelVectorKernels {
  ParallelVectorKernels();
  device::KernelDefinition clear;    // zeroes the scratch
  device::KernelDefinition count;    // counts the windows of lengths k, k-1, k-2
  device::KernelDefinition measure;  // per block of k-strings: entries and sum of squares
  device::KernelDefinition scan;     // block offsets, the entry count, the scale
  device::KernelDefinition write;    // every entry at its rank, scaled
};

// Enqueues the five kernels that build the vector of the `residues` (padded) first bytes of
// `parsed`, whose scratch follows them, into `item`. Returns the last kernel's event.
device::Event launch_parallel_composition_vector(allpairs::DeviceContext& context,
                                                 const ParallelVectorKernels& kernels, int k,
                                                 const memory::ChunkView& parsed,
                                                 std::uint64_t residues,
                                                 const memory::ChunkView& item);

}  // namespace strata::apps::phylogeny
