#pragma once
// A small sequential all-pairs driver for the tests (no engine): parses every item, preprocesses
// it on one device through a memory manager, then compares every pair and postprocesses it.

#include <cstddef>
#include <vector>

#include "strata/allpairs/application.hpp"
#include "strata/device/device.hpp"

namespace strata::apps::phylogeny::testing {

// One computed pair: items and the result record's bytes.
struct PairRecord {
  allpairs::ItemIndex left = 0;
  allpairs::ItemIndex right = 0;
  std::vector<std::byte> result;
};

// Every pair left < right that the application wants, in row order.
std::vector<PairRecord> run_all_pairs(const allpairs::ApplicationBase& application,
                                      device::Device& device);

}  // namespace strata::apps::phylogeny::testing
