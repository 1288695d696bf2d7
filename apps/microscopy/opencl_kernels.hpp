#pragma once
// The OpenCL C sources of the registration kernels (one work-group of layout::group_size per
// candidate, sums reduced in local memory); they expect the layout #defines that
// registration_kernels.cpp adds.

#include <string>

namespace strata::apps::microscopy {

std::string preprocess_opencl();
std::string candidate_scores_opencl();
std::string select_opencl();
std::string finish_opencl();

}  // namespace strata::apps::microscopy
