#pragma once
// The device kernel of a combine step: into[i] = into[i] op from[i] for i < n, generated per
// reduction operator and element type (C++, OpenCL C and CUDA).

#include "strata/device/device.hpp"
#include "strata/memory/combine.hpp"

namespace strata::node::detail {

// Parameters: n (u32), into (array of `type`, read_write), from (array of `type`, read).
device::KernelDefinition combine_kernel(memory::ReduceOp op, device::ElementType type);

}  // namespace strata::node::detail
