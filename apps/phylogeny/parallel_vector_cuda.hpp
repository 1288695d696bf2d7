#pragma once
// The CUDA C++ sources of the five composition-vector kernels (parallel_vector_kernels.hpp), the
// OpenCL C ones' twins: the same arguments, one block of parallel_block_threads per work-group,
// the same results. They expect the #defines that parallel_vector_kernels.cpp adds.

#include <string>

namespace strata::apps::phylogeny {

std::string clear_cuda();
std::string count_cuda();
std::string measure_cuda();
std::string scan_cuda();
std::string write_cuda();

}  // namespace strata::apps::phylogeny
