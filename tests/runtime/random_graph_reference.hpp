#pragma once
// The sequential reference of the randomized stress tests: what one planned task does to the data
// (reads are recorded, writes derive from the task and its reads, reductions add, so their order
// within a group does not matter). A stress test runs the same tasks on the runtime and compares.

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "strata/runtime/data_handle.hpp"

namespace strata::runtime::stress {

inline constexpr int max_accesses = 3;

struct PlannedAccess {
  int datum;
  Access mode;
};

inline std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull + (a << 6) + (a >> 2));
  x ^= x >> 31;
  return x * 0xBF58476D1CE4E5B9ull;
}

// `task` has an `id` and `accesses` (PlannedAccess, at most max_accesses).
template <class Task>
void apply(const Task& task, std::vector<std::uint64_t>& data,
           std::array<std::uint64_t, max_accesses>& observed) {
  std::uint64_t seen = task.id;
  for (std::size_t i = 0; i < task.accesses.size(); ++i) {
    const PlannedAccess& access = task.accesses[i];
    if (access.mode == Access::read || access.mode == Access::read_write) {
      observed[i] = data[access.datum];
      seen = mix(seen, observed[i]);
    }
  }
  for (const PlannedAccess& access : task.accesses) {
    auto& value = data[access.datum];
    switch (access.mode) {
      case Access::read:
        break;
      case Access::write:
        value = mix(seen, 1);
        break;
      case Access::read_write:
        value = mix(value, seen);
        break;
      case Access::reduce:
        value += task.id * 0x100000001B3ull;
        break;
    }
  }
}

// The sequential execution of `planned` (tasks as apply() takes them) over `data_items` data that
// start at mix(seed, d): where a run starts, what each task read, and the data at the end.
struct SequentialRun {
  std::vector<std::uint64_t> start;
  std::vector<std::array<std::uint64_t, max_accesses>> seen;
  std::vector<std::uint64_t> data;
};
template <class Task>
SequentialRun run_sequentially(const std::vector<Task>& planned, std::uint64_t seed,
                               int data_items) {
  SequentialRun run;
  for (int d = 0; d < data_items; ++d)
    run.start.push_back(mix(seed, static_cast<std::uint64_t>(d)));
  run.data = run.start;
  run.seen.resize(planned.size());
  for (std::size_t t = 0; t < planned.size(); ++t)
    apply(planned[t], run.data, run.seen[t]);
  return run;
}

// Whether a run read what the sequential execution read, task by task, and left every datum as it
// did; else the first difference.
template <class Seen>
::testing::AssertionResult same_as_sequential(const std::vector<Seen>& actual_seen,
                                              const std::vector<Seen>& expected_seen,
                                              const std::vector<std::uint64_t>& actual_data,
                                              const std::vector<std::uint64_t>& expected_data,
                                              std::uint64_t seed) {
  for (std::size_t t = 0; t < expected_seen.size(); ++t) {
    if (!(actual_seen[t] == expected_seen[t]))
      return ::testing::AssertionFailure()
             << "task " << t << " read other values (seed " << seed << ")";
  }
  for (std::size_t d = 0; d < expected_data.size(); ++d) {
    if (actual_data[d] != expected_data[d])
      return ::testing::AssertionFailure()
             << "datum " << d << " is " << actual_data[d] << ", sequentially " << expected_data[d]
             << " (seed " << seed << ")";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace strata::runtime::stress
