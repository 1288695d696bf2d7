#pragma once
// The OpenCL objects one device owns (context, three in-order queues), shared by the device,
// its events, compiled kernels and pinned host buffers so that none outlives them.

#include <CL/cl.h>

#include <array>
#include <memory>
#include <string>

#include "strata/device/device.hpp"

namespace strata::device::detail {

// Owner of one device's cl_context and command queues; released with the last reference (the
// device, its compiled kernels and its pinned host buffers hold one each; events do not).
struct OpenClContext {
  OpenClContext(cl_platform_id platform, cl_device_id device, std::string name);
  ~OpenClContext();
  OpenClContext(const OpenClContext&) = delete;
  OpenClContext& operator=(const OpenClContext&) = delete;

  cl_command_queue queue(QueueKind kind) const { return queues[static_cast<int>(kind)]; }
  void release() noexcept;

  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  std::array<cl_command_queue, queue_kinds> queues{};
  cl_command_queue service = nullptr;  // maps and unmaps pinned host buffers, off the copy queues
  std::string name;                    // "opencl:0:0 (pthread-skylake...)", for messages
};

}  // namespace strata::device::detail
