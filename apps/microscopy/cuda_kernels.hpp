#pragma once
// The CUDA C++ sources of the registration kernels, the OpenCL C ones' twins (opencl_kernels.hpp):
// the same arguments, one block of layout::group_size threads per candidate, sums reduced in
// shared memory; they expect the layout #defines that registration_kernels.cpp adds.

#include <string>

namespace strata::apps::microscopy {

std::string preprocess_cuda();
std::string candidate_scores_cuda();
std::string select_cuda();
std::string finish_cuda();

}  // namespace strata::apps::microscopy
