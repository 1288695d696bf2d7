#pragma once
// RankCensus: the driver's list of every rank's process (pid, host), gathered at start, so that
// when the MPI launcher ends the job because a rank died, the driver can say which one.

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
  explicit RankCensus(Network& network) : network_(network) {}
  // Worker side: tells the driver this rank's process.
  void report();
  // Driver side: waits for every worker's report, then handles SIGTERM (what the launcher sends
  // when a rank died) by naming the ranks whose processes are gone, and exiting non-zero.
  void collect();

 private:
  Network& network_;
};

}  // namespace strata::cluster::detail
