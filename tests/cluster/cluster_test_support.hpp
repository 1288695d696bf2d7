#pragma once
// Operations and helpers shared by the cluster tests: chunks of 64-bit words, written and mixed
// by deterministic functions a test can recompute sequentially.

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "strata/cluster/program.hpp"

namespace strata::cluster::testing {

extern Driver* the_driver;
extern runtime::Runtime* the_runtime;  // this rank's (the driver's) runtime
extern Network* the_network;           // this rank's (the driver's) network

// Arguments of the "mix" operation: the first chunk is written (or updated), the rest read.
struct MixArgs {
  std::uint64_t seed = 0;
  bool update = false;  // the written chunk is also read (read_write)

  template <class Archive>
  void serialize(Archive& archive) {
    archive(seed, update);
  }
};

// word i of the output from the inputs' words (cycled) and the seed: what "mix" computes.
void mix(std::span<std::uint64_t> out, const std::vector<std::span<const std::uint64_t>>& inputs,
         const MixArgs& args);
std::vector<std::byte> as_bytes(const std::vector<std::uint64_t>& words);
// What "fill" writes into a chunk of `words` words.
std::vector<std::uint64_t> filled(std::size_t words, std::uint64_t seed);
std::vector<std::uint64_t> as_words(const std::vector<std::byte>& bytes);

// The stealing round "steal_round" runs on every rank: units 0..steal_units-1, all starting on
// rank 0. Its chunk receives one count byte per unit, then the rank's remote steals (8 bytes).
inline constexpr std::uint64_t steal_units = 20000;
inline constexpr std::uint64_t steal_result_bytes = steal_units + 8;

// The plan window the tests' program runs with (ClusterSettings::plan_window): small, so that
// every test plans under back-pressure.
inline constexpr std::uint64_t test_plan_window = 64;

// "hold" operations wait (at most 20 s) until this is set, then count themselves in held_ran:
// work that cannot finish until the test lets it go.
extern std::atomic<bool> hold_released;
extern std::atomic<std::uint64_t> held_ran;

// Arguments of the "mix_stage" stage: chunk 0 is written from the others (read) by three
// fine-grain tasks, two in parallel (one of them on the CPU pool or the I/O pool, as the
// placement policy picks) into scratch, then one that combines them and sleeps `sleep_us`.
struct StageMixArgs {
  std::uint64_t seed = 0;
  std::uint64_t sleep_us = 0;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(seed, sleep_us);
  }
};
// What "mix_stage" writes, computed sequentially.
std::vector<std::uint64_t> stage_mixed(std::size_t words,
                                       const std::vector<std::span<const std::uint64_t>>& inputs,
                                       const StageMixArgs& args);

// Defines "fill" (chunk 0 := seed-derived words), "mix", "fail" (throws), "hold" and
// "steal_round" on every rank, the plan operation kind "scale" (words of chunk 0 *= the u64
// argument) and the stage "mix_stage".
void define_operations(Program& program);

}  // namespace strata::cluster::testing
