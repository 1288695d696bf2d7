#pragma once
// Errors of the device layer; each names the kernel, the backend and the device concerned.

#include <string>

#include "strata/base/error.hpp"

namespace strata::device {

// A kernel's source did not compile; what() holds kernel, backend, device and the compiler log.
class KernelCompileError : public Error {
 public:
  KernelCompileError(std::string kernel, std::string backend, const std::string& message,
                     std::string log)
      : Error(message),
        kernel_(std::move(kernel)),
        backend_(std::move(backend)),
        log_(std::move(log)) {}
  const std::string& kernel() const { return kernel_; }
  const std::string& backend() const { return backend_; }
  const std::string& log() const { return log_; }

 private:
  std::string kernel_;
  std::string backend_;
  std::string log_;
};

// A launch refused before it reached the device (bad arguments or geometry); names the
// kernel and, where one is at fault, the parameter.
class KernelLaunchError : public Error {
 public:
  KernelLaunchError(std::string kernel, std::string param, const std::string& message)
      : Error(message), kernel_(std::move(kernel)), param_(std::move(param)) {}
  const std::string& kernel() const { return kernel_; }
  const std::string& param() const { return param_; }

 private:
  std::string kernel_;
  std::string param_;
};

// A backend call failed at run time (allocation, copy, launch); names device and operation.
class DeviceError : public Error {
 public:
  using Error::Error;
};

}  // namespace strata::device
