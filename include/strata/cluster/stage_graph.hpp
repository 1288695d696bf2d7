#pragma once
// StageGraph: stage instances whose inputs other instances produce, handed out by the driver to
// the ranks as they become ready (the region-templates paper's manager-worker scheme, §3.3): a
// ready instance goes to a rank with a free slot, preferably one that already holds its inputs;
// with cost estimates, the ready instance with the longest path to the end goes first.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "strata/cluster/driver.hpp"
#include "strata/cluster/serialization.hpp"

namespace strata::cluster {

// One instance of a defined stage (Program::define_stage) with its chunks and arguments.
struct StageInstance {
  std::string stage;
  std::vector<Use> uses;
  std::string args;   // encoded (encode())
  std::string label;  // traces and errors; default "<stage> <index>"
  // Estimated seconds (0: unknown). With estimates, ready instances are handed out longest path
  // to the end first (a list schedule's priority); without, oldest first.
  double cost = 0;
};

class StageGraph {
 public:
  // Adds an instance and returns its index. It depends on the instances added before it that
  // write a chunk it uses, and on those that read a chunk it writes (since its last writer).
  std::size_t add(StageInstance instance);
  template <class Args>
  std::size_t add_with(std::string stage, std::vector<Use> uses, const Args& args,
                       std::string label = {}, double cost = 0) {
    const std::vector<std::byte> bytes = encode(args);
    return add({std::move(stage), std::move(uses),
                std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                std::move(label), cost});
  }

  std::size_t size() const { return instances_.size(); }
  const StageInstance& instance(std::size_t index) const { return instances_.at(index); }
  // The instances `index` waits for (each once, in increasing order).
  std::span<const std::size_t> predecessors(std::size_t index) const {
    return predecessors_.at(index);
  }

 private:
  struct ChunkUsers {
    std::optional<std::size_t> writer;
    std::vector<std::size_t> readers;  // since the writer
  };
  std::vector<StageInstance> instances_;
  std::vector<std::vector<std::size_t>> predecessors_;
  std::map<std::uint64_t, ChunkUsers> users_;  // by chunk id
};

struct HandOutOptions {
  // Instances a rank runs at once: it is handed a new one whenever one of its own ended. One
  // value for every rank, or one per rank.
  std::vector<unsigned> slots{2};
  // The next ready instance goes to the free rank that holds most of its inputs (by bytes); off,
  // or among equals: the rank with the most free slots, taking turns.
  bool prefer_held_inputs = true;
  // Instances a rank runs side by side (e.g. its CPU workers), one for every rank or one per
  // rank; empty: its slots. With cost estimates, an instance goes to the free rank where it is
  // estimated to start first (a list schedule's choice): a rank whose workers are all busy starts
  // its next instance when the earliest of them ends, by their costs (slots beyond the workers
  // hide the round trip to the driver). Held inputs then decide among ranks that start it alike.
  std::vector<unsigned> workers{};
};

// What happened to one instance, in seconds since hand_out() began.
struct HandedInstance {
  int rank = -1;
  double ready = 0;          // its last predecessor ended
  double handed = 0;         // planned on its rank
  double ended = 0;          // the driver heard it ended
  bool held_inputs = false;  // its rank held all the bytes it reads when it was handed out
};

struct HandOutReport {
  std::vector<HandedInstance> instances;  // by index
  double seconds = 0;                     // from the start to the last end
  std::vector<std::size_t> per_rank;      // instances each rank ran
};

// Runs every instance of `graph` over the driver's ranks and returns when all ended; throws
// RankFailed (naming the rank, the instance's task and its error) when one fails, and Error for
// an instance whose stage or chunks the driver refuses.
HandOutReport hand_out(Driver& driver, const StageGraph& graph, const HandOutOptions& options = {});

}  // namespace strata::cluster
