#pragma once
// CUDA runtime error codes as text, and the DeviceError thrown when a CUDA call fails.

#include <cuda_runtime_api.h>

#include <exception>
#include <string>

namespace strata::device::cuda {

// "cudaErrorInsufficientDriver (CUDA driver version is insufficient for CUDA runtime version)".
std::string error_text(cudaError_t error);
// Throws DeviceError "cuda:N <what>: <error_text>" unless `error` is cudaSuccess.
void check(cudaError_t error, const std::string& device_id, const char* what);
// The exception check() would throw, for completing an event with it.
std::exception_ptr error_for(cudaError_t error, const std::string& device_id, const char* what);

}  // namespace strata::device::cuda
