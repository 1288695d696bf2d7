#pragma once
// OpenCL status codes as names, and the check that turns a failed call into a DeviceError.

#include <CL/cl.h>

#include <string>
#include <string_view>

namespace strata::device::detail {

// "CL_OUT_OF_RESOURCES (-5)" for a status code.
std::string cl_error_name(cl_int status);

// Throws DeviceError "opencl <device>: <what> failed: <status>" unless status is CL_SUCCESS.
void cl_check(cl_int status, std::string_view device, std::string_view what);

}  // namespace strata::device::detail
