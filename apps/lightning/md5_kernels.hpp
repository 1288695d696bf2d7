#pragma once
// MD5 (the lightning paper's §4.2, after SHOC's MD5Hash) as distributed kernels: every thread
// hashes one candidate key derived from its index and compares the digest with a target's, the
// index found going into a `reduce(min)`; no data is involved but the target, so the benchmark
// is purely compute-bound.

#include <array>
#include <cstdint>
#include <vector>

#include "strata/array/array_kernel.hpp"

namespace strata::lightning {

// Candidate i's key: the 8 bytes, little-endian, of i * 0x9E3779B97F4A7C15 + 0x0123456789ABCDEF
// (mod 2^64). The multiplier is odd, so distinct indices have distinct keys: only the planted
// index hashes to the planted digest (short of an MD5 collision).
std::uint64_t md5_key(std::uint64_t index);

// RFC 1321's MD5 of the 8-byte message `key` (little-endian): one 64-byte block, the key in its
// words 0 and 1, the padding bit in word 2, the length in bits (64) in word 14; the digest as the
// four state words A, B, C, D (the digest's bytes are each word's, little-endian). The kernels'
// C++ implementation; the OpenCL C one spells out the same rounds.
std::array<std::uint32_t, 4> md5_of_key(std::uint64_t key);

// found[0] = the least index i < n whose key's digest is (t0, t1, t2, t3), combined with
// `reduce(min)`; the identity, the largest i32, when no key matches (a reduction's result
// replaces the element: no reset between searches). The element is the same in every launch, so
// each superblock's kernel is compiled once.
// Arguments: n, t0, t1, t2, t3 (u32), found (i32, one element).
array::ArrayKernel md5_search_kernel();

// digests[i, :] = the digest of key i, for i < n (the cross-check of the kernels' MD5 with an
// independent implementation). Arguments: n, digests (n x 4 u32).
array::ArrayKernel md5_digest_kernel();

std::vector<array::ArrayKernel> md5_kernels();

}  // namespace strata::lightning
