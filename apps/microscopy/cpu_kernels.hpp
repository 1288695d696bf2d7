#pragma once
// The C++ implementations (CPU backend) of the registration kernels; registration_kernels.hpp
// describes what each does and its parameters.

#include "strata/device/kernel.hpp"

namespace strata::apps::microscopy {

void preprocess_cpu(const device::CpuBlock& block);
void candidate_scores_cpu(const device::CpuBlock& block);
void select_cpu(const device::CpuBlock& block);
void finish_cpu(const device::CpuBlock& block);

}  // namespace strata::apps::microscopy
