#pragma once
// What the engine tests share: the process's network (every rank runs the same tests in the
// same order; a plain start is a cluster of one) and a barrier and a directory that all ranks
// agree on.

#include <filesystem>

#include "strata/cluster/network.hpp"

namespace strata::allpairs::testing {

cluster::Network& network();
// Waits until every rank arrived here.
void barrier();
// A fresh directory named by rank 0 (all ranks run on one machine in the tests).
std::filesystem::path shared_directory(const std::string& name);

}  // namespace strata::allpairs::testing
