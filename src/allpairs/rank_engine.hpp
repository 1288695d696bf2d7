#pragma once
// RankEngine: one rank's part of an all-pairs run, on the rank's node (its runtime, devices,
// memory manager and network) — its item cache and distributed cache, its device workers taking
// blocks of the pair matrix from the work stealing pool, and the jobs they submit (compare two
// items on a device, postprocess on the CPU). Rank 0 also collects every rank's results into the
// journal and their figures into the report.

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "device_stage.hpp"
#include "job_slots.hpp"
#include "strata/allpairs/distributed_cache.hpp"
#include "strata/allpairs/engine.hpp"
#include "strata/allpairs/item_cache.hpp"
#include "strata/allpairs/results_journal.hpp"
#include "strata/cluster/message_kinds.hpp"
#include "strata/cluster/remote_chunks.hpp"
#include "strata/cluster/termination_note.hpp"
#include "strata/cluster/work_stealing.hpp"
#include "strata/device/backends.hpp"
#include "strata/node/node.hpp"
#include "strata/runtime/chunk_staging.hpp"
#include "strata/runtime/device_executors.hpp"

namespace strata::allpairs::detail {

// The message kinds of one run. Each run of the process (every rank runs the same sequence)
// has kinds of its own, so that a late message of an earlier run never reaches a later one and a
// message that arrives before its run's handlers exist is held for them.
struct RunKinds {
  static constexpr cluster::MessageKind first = cluster::kinds::user_kinds + 100;
  static constexpr unsigned per_run = 32;
  static constexpr unsigned runs = (65536 - first) / per_run;
  cluster::MessageKind base;

  static RunKinds next();
  cluster::MessageKind results() const { return base; }        // rank -> 0: result records
  cluster::MessageKind figures() const { return base + 1; }    // rank -> 0: its figures
  cluster::MessageKind resume() const { return base + 2; }     // 0 -> rank: pairs done before
  cluster::MessageKind directory() const { return base + 3; }  // .. base + 5
  cluster::MessageKind stealing() const { return base + 10; }  // .. base + 13
  cluster::MessageKind fetch() const { return base + 20; }     // and base + 21
};

// A rank's figures, sent to rank 0 at the end of the round.
struct RankFigures {
  std::uint64_t computed = 0, skipped_pairs = 0, loads = 0;
  std::vector<ItemIndex> skipped_items;  // items this rank found unusable
  std::uint64_t remote_hits = 0, remote_misses = 0, bytes_read = 0;
  std::uint64_t steals_local = 0, steals_remote = 0, results_sent = 0;
  unsigned devices = 0;
  std::vector<std::uint64_t> counts;  // per stage (RankEngine::Stage)
  std::vector<double> seconds;
  template <class Archive>
  void serialize(Archive& archive) {
    archive(computed, skipped_pairs, skipped_items, loads, remote_hits, remote_misses, bytes_read,
            steals_local, steals_remote, results_sent, devices, counts, seconds);
  }
};

class RankEngine {
 public:
  // Computes on the node's devices of the backends options.devices lists.
  RankEngine(const ApplicationBase& application, const EngineOptions& options, node::Node& node);
  ~RankEngine();
  RankEngine(const RankEngine&) = delete;
  RankEngine& operator=(const RankEngine&) = delete;

  // Runs this rank's part; on rank 0 returns the cluster's report.
  EngineReport run();

 private:
  enum Stage {
    read_stage,
    parse_stage,
    preprocess_stage,
    compare_stage,
    postprocess_stage,
    calibrated_preprocess_stage,
    calibrated_compare_stage,
    stages
  };
  void choose_devices(node::Node& node);
  void calibrate();
  void worker(unsigned device);
  void leaf(unsigned device, const PairBlock& block);
  void submit_job(unsigned device, ItemIndex left, ItemIndex right);
  // Postprocesses a finished comparison (or records why there is nothing to postprocess).
  void finish_job(const runtime::TaskHandle& compare, ItemIndex left, ItemIndex right,
                  std::span<const std::byte> comparison);
  runtime::TaskHandle load(ItemIndex item, unsigned device, runtime::DataHandle data);
  runtime::TaskHandle load_locally(ItemIndex item, unsigned device, runtime::DataHandle data);
  runtime::TaskHandle obtain(ItemIndex item, unsigned device, runtime::DataHandle data);
  void discard(ItemIndex item, runtime::DataHandle data, std::optional<memory::ChunkId> chunk);
  void record_result(ItemIndex left, ItemIndex right, std::span<const std::byte> result);
  void send_results();  // caller holds results_lock_ (non-zero ranks)
  void add_time(Stage stage, double seconds);
  void fail(std::exception_ptr error);
  // Posts `work` to the CPU pool; an exception it throws fails the run (the runtime only logs it).
  void post_or_fail(std::string name, std::function<void()> work);
  void report_progress();
  // Rank 0: says in the note how many pairs the journal holds.
  void update_note(std::uint64_t written);
  RankFigures figures() const;
  EngineReport collect(const RankFigures& own, double seconds);

  const ApplicationBase& app_;
  const EngineOptions options_;
  cluster::Network& network_;
  const PairSpace space_;
  const int rank_;
  const int size_;
  const RunKinds kinds_;

  runtime::Runtime& runtime_;
  memory::MemoryManager& memory_;
  runtime::ChunkStaging& staging_;
  std::vector<device::Device*> devices_;  // the node's devices this run computes on
  std::vector<runtime::DeviceExecutors> executors_;
  std::vector<std::unique_ptr<DeviceStage>> stages_;
  std::vector<std::unique_ptr<JobSlots>> jobs_;
  std::unique_ptr<ItemCache> cache_;
  std::unique_ptr<cluster::RemoteChunks> remote_;
  std::unique_ptr<DistributedCache> directory_;
  std::unique_ptr<cluster::WorkStealing> stealing_;
  std::unique_ptr<ResultsJournal> journal_;  // rank 0
  // Rank 0: what the journal holds, written if the launcher ends the job (a rank died).
  std::unique_ptr<cluster::TerminationNote> note_;

  std::set<std::pair<ItemIndex, ItemIndex>> resumed_;
  std::vector<std::atomic<bool>> skipped_items_;
  std::atomic<bool> failed_{false};
  std::exception_ptr first_error_;
  std::mutex error_lock_;

  std::mutex results_lock_;
  std::vector<std::byte> outgoing_;  // results batched for rank 0
  std::uint64_t outgoing_records_ = 0;
  std::uint64_t results_sent_ = 0;

  std::mutex figures_lock_;
  std::condition_variable figures_arrived_;
  std::vector<RankFigures> rank_figures_;  // rank 0: from every other rank
  bool resume_received_ = false;

  mutable std::mutex stage_lock_;
  StageTime stage_times_[stages];
  std::atomic<std::uint64_t> computed_{0}, skipped_pairs_{0}, loads_{0}, bytes_read_{0};
  std::atomic<std::uint64_t> remote_hits_{0}, remote_misses_{0};
};

}  // namespace strata::allpairs::detail
