#pragma once
// RunHistory: measured run times of operations per input-size bucket and executor kind, the way
// StarPU's history-based performance models keep them; the source of learned speedups for PATS,
// kept across runs in a small JSON file (the setting runtime.history).

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "strata/runtime/executor_kind.hpp"

namespace strata::runtime {

class RunHistory {
 public:
  // Input sizes are grouped by powers of two: bucket b > 0 holds [2^(b-1), 2^b) bytes, bucket 0
  // holds 0 bytes.
  static unsigned bucket_of(std::uint64_t bytes);

  // One measured run of `operation` (a kernel's name, say) on `bytes` of input.
  void record(std::string_view operation, std::uint64_t bytes, ExecutorKind kind, double seconds);
  // The mean seconds per kind measured for `operation` in the bucket of `bytes`, as cost hints
  // (CostHints::effective_speedup() gives the learned speedup once CPU and device runs are both
  // known); null when nothing was measured there. Shared: tasks may keep them.
  std::shared_ptr<const CostHints> hints(std::string_view operation, std::uint64_t bytes) const;

  // What is known of one operation, bucket and kind.
  struct Entry {
    std::string operation;
    unsigned bucket = 0;
    ExecutorKind kind = ExecutorKind::cpu;
    std::uint64_t runs = 0;
    double mean_seconds = 0;
    double stddev_seconds = 0;
  };
  // Ordered by operation, bucket and kind.
  std::vector<Entry> entries() const;
  bool empty() const;

  // Adds the runs a file written by save() holds. A missing file adds nothing; one that is not
  // such a file throws naming it.
  void load(const std::string& path);
  // Writes every entry (to a temporary file renamed over `path`, so a reader never sees half a
  // file); throws naming the file when it cannot.
  void save(const std::string& path) const;

 private:
  struct Runs {
    std::uint64_t count = 0;
    double mean = 0;
    double m2 = 0;  // Welford's sum of squared deviations
  };
  struct Bucket {
    std::array<Runs, executor_kinds> kinds{};
    mutable std::shared_ptr<const CostHints> hints;  // rebuilt after a record
  };
  using Key = std::tuple<std::string, unsigned>;

  mutable std::mutex lock_;
  std::map<Key, Bucket, std::less<>> buckets_;
};

}  // namespace strata::runtime
