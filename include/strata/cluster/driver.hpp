#pragma once
// Driver: the user's program on rank 0. It keeps the directory of distributed chunks (which
// ranks hold a valid copy) and plans: an operation on a rank gets the chunks it reads, by
// matched sends and receives from a rank that holds them, and a write invalidates every other
// copy. A fetched copy stays a valid replica until the chunk is written.

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "strata/base/error.hpp"
#include "strata/cluster/device_load.hpp"
#include "strata/cluster/network.hpp"
#include "strata/cluster/operation.hpp"
#include "strata/cluster/plan.hpp"
#include "strata/cluster/plan_kinds.hpp"
#include "strata/device/element_type.hpp"
#include "strata/memory/box.hpp"
#include "strata/memory/combine.hpp"
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

// One box copy of Driver::copy_boxes: the elements of `from_box` in `from` into `to_box` (the
// same extents) of `to`, on the rank's devices()[device] (-1: where the chunks were written).
struct BoxCopyRequest {
  ChunkRef from;
  memory::Box from_box;
  ChunkRef to;
  memory::Box to_box;
  std::uint32_t element_bytes = 1;
  int device = -1;
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
  std::uint64_t messages = 0;      // plan messages sent to ranks (one per rank per batch)
  std::uint64_t window_waits = 0;  // times planning waited for the ranks (the plan window)
};

class Driver {
 public:
  // `window`: operations planned and not finished, over all ranks, beyond which planning waits
  // until the ranks finished half of them (ClusterSettings::plan_window).
  Driver(Network& network, detail::PlanExecutor& local, const OperationTable& operations,
         const PlanKindTable& kinds, std::uint64_t window);

  int size() const { return network_.size(); }

  // A chunk of `bytes` whose home is `home`; it has no contents until something writes it.
  ChunkRef create_chunk(std::string name, std::uint64_t bytes, int home = 0);
  // A chunk whose size is known only when the operation that writes it ends (a filter's output,
  // a group-by's groups): at most `capacity` bytes, held whole on each rank that has a copy. Its
  // writer sets the size (OperationContext::set_size, a kernel launch's late sizes, a write's
  // byte count); later readers on that rank see that many bytes, and a transfer to another rank
  // moves the size and then that many bytes. Reading it before a writer set its size fails
  // naming it. stats() counts its capacity as the bytes of a transfer.
  ChunkRef create_late_chunk(std::string name, std::uint64_t capacity, int home = 0);
  // Writes the driver's `bytes` into the chunk on its home rank: exactly the chunk's size, or
  // at most a late-sized chunk's capacity (which then becomes its size).
  void write(ChunkRef chunk, std::span<const std::byte> bytes);
  // The chunk's size: a late-sized chunk's as its last writer set it, asked of a rank that
  // holds it once what was planned on it there ran (the chunk stays where it is). Throws naming
  // the chunk when nothing wrote it.
  std::uint64_t size_of(ChunkRef chunk);
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
  // Plans an operation of a registered kind (plan_kinds.hpp) on `rank`, as run() plans a defined
  // operation: chunks it reads are brought to the rank, and a chunk it writes keeps only the
  // rank's copy. `label` names it in traces and errors (default: the kind).
  void plan(int rank, const std::string& kind, const std::vector<Use>& uses, std::string args = {},
            std::string label = {});
  template <class Args>
  void plan_with(int rank, const std::string& kind, const std::vector<Use>& uses, const Args& args,
                 std::string label = {}) {
    const std::vector<std::byte> bytes = encode(args);
    plan(rank, kind, uses, std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
         std::move(label));
  }

  // Plans as plan() does and returns the operation's id; once its tasks on the rank ended, the
  // rank tells the driver at once and wait_tracked() returns the id: what hands out work as
  // ranks finish (stage_graph.hpp).
  std::uint64_t plan_tracked(int rank, const std::string& kind, const std::vector<Use>& uses,
                             std::string args = {}, std::string label = {});
  // Sends what is batched, waits until a tracked operation finished and returns the ids of all
  // that finished since the last call; throws RankFailed if a rank failed.
  std::vector<std::uint64_t> wait_tracked();

  // Copies the elements of `from_box` in `from` into `to_box` (the same extents) of `to`, where
  // `to`'s copy is (its home if nothing wrote it yet; the rest of a fresh chunk is undefined).
  // Between ranks only the box's bytes travel: packed, sent, unpacked. On a node, the copy runs
  // on the rank's devices()[device], or with -1 on the device where the chunks' last writers
  // ran (where both ran on one), else on the host.
  void copy_box(ChunkRef from, const memory::Box& from_box, ChunkRef to, const memory::Box& to_box,
                std::uint32_t element_bytes, int device = -1);
  // Plans `copies` as copy_box() would each, in order except that a copy between ranks is
  // unpacked only when a later copy's box may meet its target box (or the target had no holder),
  // else after the last: every rank packs what it sends before it unpacks what it receives, so
  // that its sends do not wait on another rank's (slices of a replica written on every rank,
  // exchanged). Consecutive copies that stay within one rank (and name one device) go as one
  // operation, "copy_boxes", whose one task does them in order.
  void copy_boxes(std::span<const BoxCopyRequest> copies);

  // Combines the partial results (chunks of `result`'s size, not late-sized, elements of `type`)
  // into `result`
  // with `op`, level by level: each rank combines the partials it holds, then a binary tree over
  // those ranks combines their accumulators, moving one per step. `result` ends on the tree's
  // root (the lowest rank holding a partial).
  void reduce(const std::vector<ChunkRef>& partials, ChunkRef result, memory::ReduceOp op,
              device::ElementType type);
  // One combine step on `rank`: into = into op from[0] op from[1] ... (chunks of one size,
  // elements of `type`); on a node it runs on the device where all of them were last written,
  // if there is one. A reduction's first level where partials share a device.
  void combine(int rank, ChunkRef into, const std::vector<ChunkRef>& from, memory::ReduceOp op,
               device::ElementType type);

  // Between begin_batch() and end_batch() (nested pairs count as one) everything planned goes
  // to each rank as one message at the end: one per rank for a user call however many
  // operations it plans. fetch() and wait_all() send what is batched first.
  void begin_batch();
  void end_batch();

  // Frees every rank's copy of the chunk (after the operations planned on it); the reference
  // must not be used again.
  void destroy(ChunkRef chunk);
  // The chunk's current contents, brought to the driver (which keeps the copy as a replica).
  std::vector<std::byte> fetch(ChunkRef chunk);
  // Waits until every rank finished everything planned; throws RankFailed if one failed.
  void wait_all();

  // Ranks holding a valid copy of the chunk.
  std::set<int> holders(ChunkRef chunk) const;
  // The chunk's bytes as created (a late-sized chunk's capacity); 0 for an unknown chunk.
  std::uint64_t capacity_of(ChunkRef chunk) const;
  // Per rank, per device: how loaded it is (free device memory, planned operations not finished).
  // The driver's own devices are read now; another rank's are what it last reported: when it
  // started, after each plan it took, every few hundred operations and whenever it ran out of
  // work (so after wait_all() every rank's are current). Empty for a rank that reported none yet
  // or has no load reporter (Program::set_load_reporter; a node installs one).
  std::vector<std::vector<DeviceLoad>> loads() const;
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
    std::uint64_t bytes = 0;  // late-sized: the capacity
    int home = 0;
    std::set<int> holders;
    bool late = false;
    std::uint64_t writer_op = 0;  // the operation that last wrote it, if planned by add_planned
  };
  using Batch = std::map<int, Plan>;
  Entry& entry(ChunkRef chunk, const char* what);
  PlannedAccess access_of(ChunkRef chunk, const Entry& entry, runtime::Access mode) const;
  void make_present(ChunkRef chunk, Entry& entry, int rank, Batch& batch);
  void add(Batch& batch, int rank, PlanOp op);
  // Returns the operation's id.
  std::uint64_t add_planned(int rank, const std::string& kind, const std::string& name,
                            const std::vector<Use>& uses, std::string args, bool urgent = false,
                            bool tracked = false);
  // Marks the operation urgent if it is still batched (not yet sent to its rank).
  void hurry(int rank, std::uint64_t op);
  int source_of(const Entry& entry) const;  // the home's copy, else the lowest holder's
  class CopyGroup;
  // A box copy between ranks, packed into `box` on its reader and not yet unpacked.
  struct Unpack {
    BoxCopyRequest copy;
    ChunkRef box;
    int writer;
  };
  // Packs a box copy between ranks on `reader`; unpack() sends it and unpacks it on `writer`.
  Unpack pack(const BoxCopyRequest& copy, int reader, int writer);
  void unpack(const Unpack& packed);
  void post(Batch& batch);
  // Beyond the window, waits until half of it is left (or a rank failed: the next call throws),
  // so that a loop of launches does not hold every iteration's operations at once.
  void keep_window();
  // Operations planned and not finished, over all ranks; with lock_ held.
  std::uint64_t unfinished() const;
  void flush();
  void check_rank(int rank, const char* what) const;

  Network& network_;
  detail::PlanExecutor& local_;
  const OperationTable& operations_;
  const PlanKindTable& kinds_;
  std::map<std::uint64_t, Entry> chunks_;
  unsigned batching_ = 0;
  Batch pending_;
  std::uint64_t next_chunk_ = 1;
  std::uint64_t next_op_ = 1;
  std::uint64_t next_transfer_ = 1;
  std::vector<std::uint64_t> planned_;  // per rank
  std::uint64_t window_;
  PlanStats stats_;

  mutable std::mutex lock_;  // guards what the network thread reports
  std::condition_variable changed_;
  std::vector<std::uint64_t> finished_;
  std::vector<std::vector<DeviceLoad>> loads_;  // per rank, as last reported
  std::vector<std::uint64_t> tracked_done_;     // tracked operations finished, not yet taken
  std::optional<RankFailed> failure_;
};

// Batches what is planned while it lives (Driver::begin_batch / end_batch).
class PlanBatch {
 public:
  explicit PlanBatch(Driver& driver) : driver_(driver), exceptions_(std::uncaught_exceptions()) {
    driver_.begin_batch();
  }
  // Sends the batch; while an exception unwinds, an error sending it is dropped for that one.
  ~PlanBatch() noexcept(false) {
    if (std::uncaught_exceptions() == exceptions_) {
      driver_.end_batch();
      return;
    }
    try {
      driver_.end_batch();
    } catch (...) {
    }
  }
  PlanBatch(const PlanBatch&) = delete;
  PlanBatch& operator=(const PlanBatch&) = delete;

 private:
  Driver& driver_;
  int exceptions_;
};

}  // namespace strata::cluster
