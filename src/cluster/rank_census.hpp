#pragma once
// RankCensus: rank 0's list of every rank's process (pid, host), gathered as the network starts,
// so that when the MPI launcher ends the job because a rank died (SIGTERM), rank 0 can say which
// one. Every process of a cluster of several ranks handles SIGTERM: it writes what it knows and
// its termination notes (termination_note.hpp), then exits non-zero. The network owns the census,
// so every multi-process program (plans, all-pairs runs, ...) has it.

#include <csignal>
#include <string>

#include "strata/cluster/network.hpp"

namespace strata::cluster::detail {

// One rank's process.
struct RankProcess {
  int pid = 0;
  std::string host;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(pid, host);
  }
};

class RankCensus {
 public:
  // Workers report their process to rank 0; every rank installs the SIGTERM handler.
  explicit RankCensus(Network& network);
  // Restores SIGTERM's earlier handling.
  ~RankCensus();
  RankCensus(const RankCensus&) = delete;
  RankCensus& operator=(const RankCensus&) = delete;

 private:
  struct sigaction previous_ {};
};

}  // namespace strata::cluster::detail
