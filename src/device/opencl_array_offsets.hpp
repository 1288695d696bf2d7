#pragma once
// OpenCL array arguments as whole buffers plus element offsets: an OpenCL entry point takes each
// array's offset as a trailing `ulong` parameter named with this prefix, never a sub-buffer (the
// OpenCL specification leaves concurrent use of a buffer and its sub-buffers undefined, and
// NVIDIA's driver crashed on it). Internal to the device layer's source generation.

#include <optional>
#include <string>
#include <string_view>

#include "strata/device/kernel.hpp"

namespace strata::device {

inline constexpr std::string_view array_offset_prefix = "strata_offset_";

// A direct-style OpenCL source whose __kernel takes each array as its buffer and an element
// offset: the array parameters are renamed, an `ulong strata_offset_NAME` per array follows the
// declared parameters, and inside the body a macro gives each array its old name, shifted. Lines
// keep their numbers (#line). Nothing when the kernel has no arrays, or its declaration is not
// found or does not declare the signature's parameters (the compile then reports the mismatch).
std::optional<std::string> with_array_offsets(const KernelDefinition& kernel);

}  // namespace strata::device
