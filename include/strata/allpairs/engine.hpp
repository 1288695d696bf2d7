#pragma once
// The all-pairs engine (the rocket paper): computes f(load(i), load(j)) for every pair of a pair
// space on every device of every rank. Items are loaded once and reused through the item cache
// (device and host, over the memory manager) and the distributed cache (ranks ask the point of
// contact i mod p who loaded an item lately); the pair matrix is split divide-and-conquer and
// balanced by work stealing, local first, then across ranks; a per-device limit on jobs in flight
// gives back-pressure; file reads, parsing, transfers and device work overlap on their own
// executors. Results stream to a journal beside the output and are sorted into the results file
// at the end; an interrupted run resumes from the journal.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "strata/allpairs/application.hpp"
#include "strata/allpairs/pair_space.hpp"
#include "strata/allpairs/settings.hpp"
#include "strata/base/config.hpp"
#include "strata/cluster/network.hpp"
#include "strata/node/node.hpp"

namespace strata::allpairs {

// Cache sizes, in bytes or in slots (a slot is the application's slot_bytes()); below the
// physical memory to emulate small machines (the rocket paper's Fig. 9).
struct CacheOptions {
  std::uint64_t device_bytes = 0;  // per device; 0: device_slots slots, else 90% of the device
  std::uint64_t device_slots = 0;
  std::uint64_t host_bytes = 0;  // per rank; 0: host_slots slots, else no item limit
  std::uint64_t host_slots = 0;
  bool distributed = true;  // ask other ranks' host caches before loading (level 3)
  unsigned hops = 1;        // h: candidates asked per request (the paper's Fig. 11)

  // The cache settings of config's "allpairs" section (allpairs_device_cache, ...).
  static CacheOptions from(const Config& config);
};

// What a file the application cannot use does to the run.
enum class BadInput : std::uint8_t {
  stop,  // the run fails with the error naming the file
  skip,  // the item is skipped with a warning; its pairs are counted as skipped
};

// Where a run stands, for a progress bar (called on rank 0 about four times a second).
struct Progress {
  std::uint64_t done = 0;   // pairs finished (computed, resumed or skipped)
  std::uint64_t total = 0;  // pairs of the pair space
  double seconds = 0;       // since the start
};

// A run's options. The cache, jobs, leaf and stealing start from config's "allpairs" section
// (settings.hpp: STRATA_ALLPAIRS_* variables, `strata` flags); code may change them afterwards.
struct EngineOptions {
  // The settings of the run: the runtime's (threads, trace, ...) of a node built by
  // node_options(), and the "allpairs" section the fields below start from.
  Config config = Config::from_environment();
  std::filesystem::path output;  // the results file (its journal is "<output>.journal")
  bool resume = false;           // continue an interrupted run from its journal
  PairSpace pairs;               // empty (0 rows): every pair i < j of the application's items
  CacheOptions cache = CacheOptions::from(config);
  // Concurrent job limit per device (back-pressure).
  unsigned jobs_per_device = config.section<AllPairsSettings>().jobs_per_device;
  // Blocks of at most leaf x leaf pairs are not split further.
  ItemIndex leaf = config.section<AllPairsSettings>().leaf;
  // A thief prefers the block whose items its process holds (held_items.hpp).
  bool cache_aware_stealing = config.section<AllPairsSettings>().cache_aware_stealing;
  std::string devices = "cpu";  // backends to compute on: "cpu", "opencl", "cuda" (comma list)
  BadInput bad_input = BadInput::stop;
  // Before the run, each rank times preprocessing this many items and comparing their pairs on
  // each of its devices with nothing else running; their medians are the model's stage times
  // (0: use the means measured during the run, as the paper did, which include waiting for a
  // busy CPU when the CPU backend is the device).
  ItemIndex calibration_items = 8;
  std::function<void(const Progress&)> progress;

  // Options with `config` as their configuration, and the cache, jobs_per_device, leaf and
  // cache_aware_stealing of its "allpairs" section.
  static EngineOptions from(Config config);
};

// Seconds spent in one stage, over how many executions.
struct StageTime {
  std::uint64_t count = 0;
  double seconds = 0;
  double mean() const { return count == 0 ? 0.0 : seconds / static_cast<double>(count); }
};

// What a run did (on rank 0: the whole cluster's figures).
struct EngineReport {
  std::string application;
  int ranks = 1;
  unsigned devices = 0;  // over all ranks
  std::uint64_t items = 0;
  std::uint64_t pairs_total = 0;
  std::uint64_t pairs_computed = 0;  // by this run
  std::uint64_t pairs_resumed = 0;   // found in the journal of an interrupted run
  std::uint64_t pairs_skipped = 0;   // filtered out or involving a skipped item
  std::uint64_t items_skipped = 0;
  std::uint64_t loads = 0;          // load pipelines run (file read, parse, preprocess)
  std::uint64_t remote_hits = 0;    // items fetched from another rank's cache instead
  std::uint64_t remote_misses = 0;  // distributed lookups that found no holder
  std::uint64_t bytes_read = 0;     // from input files
  std::uint64_t steals_local = 0, steals_remote = 0;
  StageTime read, parse, preprocess, compare, postprocess;
  StageTime calibrated_preprocess, calibrated_compare;  // measured alone before the run
  double seconds = 0;
  std::string runtime_summary;  // rank 0's executors' busy time and utilization
  std::string memory_summary;   // rank 0's memory spaces

  // R: loads per item (the paper's data-reuse factor).
  double loads_per_item() const;
  double pairs_per_second() const;
  // The §6.1 model: T_min = n t_preprocess + C(n,2) t_compare over the devices with the stage
  // means of the run (as the paper), and the system efficiency T_min / T.
  double model_minimum_seconds() const;
  double efficiency() const;
  // The same with the calibrated stage times (the device alone; 0 without a calibration). On a
  // device that shares the CPU with the rest of the run the means of the run include waiting.
  double calibrated_minimum_seconds() const;
  double calibrated_efficiency() const;
  std::string format() const;
};

// The node a run of its own needs: options.config with options.devices as its backends, and
// memory spaces sized for the caches (cache.device_*, cache.host_*) and the jobs in flight.
node::NodeOptions node_options(const ApplicationBase& application, const EngineOptions& options);

// Runs `application` over the node's ranks (a cluster of one when started plainly) on the node's
// devices of the backends options.devices lists, beside any other work on the node: every rank
// calls it alike; rank 0 writes the results and returns the cluster's report. The node's memory
// capacities bound the caches (build it with node_options() for cache sizes below memory).
EngineReport run_all_pairs(const ApplicationBase& application, const EngineOptions& options,
                           node::Node& node);
// The same on a node of its own, built by node_options() over `network`.
EngineReport run_all_pairs(const ApplicationBase& application, const EngineOptions& options,
                           cluster::Network& network);

}  // namespace strata::allpairs
