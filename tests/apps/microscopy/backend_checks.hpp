#pragma once
// The checks an accelerator backend's microscopy kernels pass, the same for every backend: its
// results equal the CPU kernels' on generated particles.

#include "strata/device/device.hpp"

namespace strata::apps::microscopy::testing {

// Each particle's preprocessed floats, and every pair's registration (angle, score,
// Bhattacharyya coefficient), as the CPU kernels give them.
void expect_registration_matches_cpu(device::Device& device);

// Every coarse candidate angle's score of a pair (no refinement), as the CPU kernel gives it.
void expect_coarse_scores_match_cpu(device::Device& device);

}  // namespace strata::apps::microscopy::testing
