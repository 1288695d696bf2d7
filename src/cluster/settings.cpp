#include "strata/cluster/settings.hpp"

#include "strata/base/setting_kinds.hpp"
#include "strata/base/setting_table.hpp"

namespace strata::cluster {

bool declare_cluster_settings() {
  return declare_settings(
      {"cluster",
       Layer::cluster,
       "transfers between processes, the driver's planning window",
       {
           bytes_setting<&ClusterSettings::network_piece_bytes>(
               "network_piece_bytes", 1,
               "Largest piece a bulk transfer between processes moves at once, 1 B to "
               "18446744073709551615 B (16 EiB - 1 B)."),
           count_setting<&ClusterSettings::plan_window>(
               "plan_window", 1,
               "Operations the driver plans ahead of the ranks (planned, not finished) before it "
               "waits for half of them (back-pressure on the program), 1 to "
               "18446744073709551615."),
       }});
}

}  // namespace strata::cluster
