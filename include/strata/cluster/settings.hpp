#pragma once
// The cluster layer's settings: how bulk transfers between processes are cut.
// Declared into the configuration table by every program that includes this.

#include <cstdint>

namespace strata::cluster {

struct ClusterSettings {
  std::uint64_t network_piece_bytes = 8ull << 20;  // bulk transfers move in pieces of this
};

// Adds the section "cluster" to the table (once); true.
bool declare_cluster_settings();
inline const bool cluster_settings_declared = declare_cluster_settings();

}  // namespace strata::cluster
