#pragma once
// The cluster layer's settings: how bulk transfers between processes are cut, and how far the
// driver plans ahead of the ranks.
// Declared into the configuration table by every program that includes this.

#include <cstdint>

namespace strata::cluster {

struct ClusterSettings {
  std::uint64_t network_piece_bytes = 8ull << 20;  // bulk transfers move in pieces of this
  std::uint64_t plan_window = 16384;  // operations planned and not finished before the driver waits
};

// Adds the section "cluster" to the table (once); true.
bool declare_cluster_settings();
inline const bool cluster_settings_declared = declare_cluster_settings();

}  // namespace strata::cluster
