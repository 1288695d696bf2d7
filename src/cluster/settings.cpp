#include "strata/cluster/settings.hpp"

#include "strata/base/setting_kinds.hpp"
#include "strata/base/setting_table.hpp"

namespace strata::cluster {

bool declare_cluster_settings() {
  return declare_settings(
      {"cluster",
       Layer::cluster,
       "transfers between processes",
       {
           bytes_setting<&ClusterSettings::network_piece_bytes>(
               "network_piece_bytes", 1,
               "Largest piece a bulk transfer between processes moves at once, 1 B to "
               "18446744073709551615 B (16 EiB - 1 B)."),
       }});
}

}  // namespace strata::cluster
