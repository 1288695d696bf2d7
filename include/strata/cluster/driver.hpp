#pragma once
// Driver: the user's program on rank 0. It keeps the directory of distributed chunks (which
// ranks hold a valid copy) and plans: an operation on a rank gets the chunks it reads, by
// matched sends and receives from a rank that holds them, and a write invalidates every other
// copy. A fetched copy stays a valid replica until the chunk is written.

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "strata/base/error.hpp"
#include "strata/cluster/network.hpp"
#include "strata/cluster/operation.hpp"
#include "strata/cluster/plan.hpp"
#include "strata/runtime/data_handle.hpp"

namespace strata::cluster {

namespace detail {
class PlanExecutor;
}

// A chunk distributed over the ranks, as the driver names it.
struct ChunkRef {
  std::uint64_t id = 0;
};

// One chunk an operation declares, and how it touches it.
struct Use {
  ChunkRef chunk;
  runtime::Access mode = runtime::Access::read;
};

// A rank failed: names the rank, the task and the original error.
class RankFailed : public Error {
 public:
  RankFailed(int rank, std::string task, std::string error);
  int rank() const { return rank_; }
  const std::string& task() const { return task_; }
  const std::string& error() const { return error_; }

 private:
  int rank_;
  std::string task_;
  std::string error_;
};

// What the driver planned so far.
struct PlanStats {
  std::uint64_t operations = 0;  // every planned operation, transfers and drops included
  std::uint64_t transfers = 0;   // matched send/receive pairs
  std::uint64_t bytes_transferred = 0;
  std::uint64_t replicas_dropped = 0;
};

class Driver {
 public:
  Driver(Network& network, detail::PlanExecutor& local, const OperationTable& operations);

  int size() const { return network_.size(); }

  // A chunk of `bytes` whose home is `home`; it has no contents until something writes it.
  ChunkRef create_chunk(std::string name, std::uint64_t bytes, int home = 0);
  // Writes the driver's `bytes` (exactly the chunk's size) into the chunk on its home rank.
  void write(ChunkRef chunk, std::span<const std::byte> bytes);
  // Runs the defined operation `operation` on `rank` with the chunks in `uses` (in order) and
  // encoded arguments. Returns at once; conflicting uses are ordered in planning order.
  void run(int rank, const std::string& operation, const std::vector<Use>& uses,
           std::string args = {});
  template <class Args>
  void run_with(int rank, const std::string& operation, const std::vector<Use>& uses,
                const Args& args) {
    const std::vector<std::byte> bytes = encode(args);
    run(rank, operation, uses,
        std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  }
  // Frees every rank's copy of the chunk (after the operations planned on it); the reference
  // must not be used again.
  void destroy(ChunkRef chunk);
  // The chunk's current contents, brought to the driver (which keeps the copy as a replica).
  std::vector<std::byte> fetch(ChunkRef chunk);
  // Waits until every rank finished everything planned; throws RankFailed if one failed.
  void wait_all();

  // Ranks holding a valid copy of the chunk.
  std::set<int> holders(ChunkRef chunk) const;
  PlanStats stats() const { return stats_; }

  // Called by the network thread with a rank's reports.
  void on_progress(int rank, const Progress& progress);
  void on_failure(int rank, const FailureReport& report);
  // Throws RankFailed if a rank reported a failure.
  void check_failure() const;

 private:
  // The driver's record of one chunk.
  struct Entry {
    std::string name;
    std::uint64_t bytes = 0;
    int home = 0;
    std::set<int> holders;
  };
  using Batch = std::map<int, Plan>;
  Entry& entry(ChunkRef chunk, const char* what);
  PlannedAccess access_of(ChunkRef chunk, const Entry& entry, runtime::Access mode) const;
  void make_present(ChunkRef chunk, Entry& entry, int rank, Batch& batch);
  void add(Batch& batch, int rank, PlanOp op);
  void post(Batch& batch);
  void check_rank(int rank, const char* what) const;

  Network& network_;
  detail::PlanExecutor& local_;
  const OperationTable& operations_;
  std::map<std::uint64_t, Entry> chunks_;
  std::uint64_t next_chunk_ = 1;
  std::uint64_t next_op_ = 1;
  std::uint64_t next_transfer_ = 1;
  std::vector<std::uint64_t> planned_;  // per rank
  PlanStats stats_;

  mutable std::mutex lock_;  // guards what the network thread reports
  std::condition_variable changed_;
  std::vector<std::uint64_t> finished_;
  std::optional<RankFailed> failure_;
};

}  // namespace strata::cluster
