#pragma once
// `strata dataset pagerank`: PageRank (the dandelion paper's Table 1) over the edges of a CSV
// file, as joins, group-bys and selects in a do_while, with networkx's rules (damping 0.85,
// dangling nodes' rank spread over all, stop when the L1 change is below N * tol).

#include "dataset_command.hpp"

namespace strata::cli {

int run_pagerank(const EffectiveConfig& effective, const DatasetOptions& options);

}  // namespace strata::cli
