#pragma once
// The demo's per-file computation: a byte histogram, an FNV-1a checksum, and a delta encoding
// (with its inverse, used to verify outputs), plus the generator of the demo's input signal.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace strata::cli {

// How often each byte value occurs in a block.
using ByteHistogram = std::array<std::uint64_t, 256>;

// Counts each byte value of `bytes` into `histogram` (adds to what is there).
void count_bytes(std::span<const std::uint8_t> bytes, ByteHistogram& histogram);

// 64-bit FNV-1a hash of `bytes`.
std::uint64_t fnv1a(std::span<const std::uint8_t> bytes);

// Replaces every byte by its difference to the previous one (the first keeps its value), in place.
void delta_encode(std::span<std::uint8_t> bytes);

// Inverts delta_encode in place.
void delta_decode(std::span<std::uint8_t> bytes);

// Fills `bytes` with a pseudo-random walk (a noisy sensor-like signal) determined by `seed`.
void fill_random_walk(std::span<std::uint8_t> bytes, std::uint64_t seed);

}  // namespace strata::cli
