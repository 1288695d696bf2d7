#pragma once
// What the three applications' engine tests share: the process's network, which their common
// main holds (a plain start is a cluster of one), and the engine options they run with.

#include <cstdint>
#include <filesystem>
#include <string>

#include "strata/allpairs/engine.hpp"
#include "strata/cluster/network.hpp"

namespace strata::apps::engine_testing {

// The network the engine runs over (engine_test_main.cpp).
cluster::Network& network();

// A small run: 2 CPU threads, no kernel cache on disk, 8 jobs per device, and a device cache of
// `device_slots` items (fewer than the data set's, so that items are evicted and reloaded).
allpairs::EngineOptions engine_options(const std::filesystem::path& output,
                                       const std::string& devices, std::uint64_t device_slots);

}  // namespace strata::apps::engine_testing
