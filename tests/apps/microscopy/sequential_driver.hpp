#pragma once
// What the microscopy tests look at besides results: every pair's raw comparison bytes and the
// preprocessed items, computed sequentially on one device (as allpairs::run_sequentially does,
// keeping the device-side bytes postprocessing drops).

#include <vector>

#include "microscopy/registration_result.hpp"
#include "strata/allpairs/application.hpp"
#include "strata/allpairs/results_file.hpp"

namespace strata::apps::microscopy::testing {

// One computed pair: the device's comparison floats and the postprocessed result.
struct ComparedPair {
  allpairs::ItemIndex left = 0;
  allpairs::ItemIndex right = 0;
  std::vector<float> comparison;
  RegistrationResult result;
};

// Every pair (left < right) of `application`'s items, in order, computed on `device`.
std::vector<ComparedPair> compare_all_pairs(
    const allpairs::Application<RegistrationResult>& application, device::Device& device);

// allpairs::run_sequentially's results as the results file holds them.
std::vector<allpairs::PairResult<RegistrationResult>> run_all_pairs(
    const allpairs::ApplicationBase& application, device::Device& device);

// The preprocessed floats of each item.
std::vector<std::vector<float>> preprocess_all(const allpairs::ApplicationBase& application,
                                               device::Device& device);

}  // namespace strata::apps::microscopy::testing
