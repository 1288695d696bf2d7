// The device's sub-buffers: a region used by a command is released only once the command has
// completed, swept by a later creation; one not enqueued is released at once.
#include <gtest/gtest.h>

#include "opencl_device.hpp"  // src/device/opencl
#include "opencl_test_device.hpp"
#include "sub_buffers.hpp"

namespace strata::device {
namespace {

TEST(OpenClSubBuffers, ARegionIsReleasedOnlyAfterTheCommandUsingItCompletes) {
  STRATA_REQUIRE_OPENCL(device);
  auto& opencl = dynamic_cast<detail::OpenClDevice&>(device);
  const cl_context context = opencl.context().context;
  const cl_command_queue queue = opencl.context().queue(QueueKind::compute);
  DeviceBuffer buffer = device.allocate(1 << 16);
  const auto parent = static_cast<cl_mem>(buffer.handle());
  const auto alignment = opencl.sub_buffer_alignment();
  detail::SubBuffers subs;

  // A command held back by a user event stands for a kernel still running.
  cl_int status = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(context, &status);
  ASSERT_EQ(status, CL_SUCCESS);
  cl_event command = nullptr;
  ASSERT_EQ(clEnqueueMarkerWithWaitList(queue, 1, &gate, &command), CL_SUCCESS);
  clFlush(queue);

  cl_mem used = subs.create(parent, alignment, alignment, status);
  ASSERT_EQ(status, CL_SUCCESS);
  subs.release_after(used, command);
  EXPECT_EQ(subs.pending(), 1u);
  // A later creation sweeps, but the command has not run: the region stays.
  cl_mem other = subs.create(parent, 2 * alignment, alignment, status);
  ASSERT_EQ(status, CL_SUCCESS);
  subs.release_after(other, nullptr);  // never enqueued: released at once
  EXPECT_EQ(subs.pending(), 1u);

  ASSERT_EQ(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  ASSERT_EQ(clWaitForEvents(1, &command), CL_SUCCESS);
  cl_mem last = subs.create(parent, alignment, alignment, status);
  ASSERT_EQ(status, CL_SUCCESS);
  EXPECT_EQ(subs.pending(), 0u) << "the completed command's region was swept";
  subs.release_after(last, nullptr);
  clReleaseEvent(command);
  clReleaseEvent(gate);
}

TEST(OpenClSubBuffers, AFailedCreationReportsTheStatus) {
  STRATA_REQUIRE_OPENCL(device);
  DeviceBuffer buffer = device.allocate(4096);
  detail::SubBuffers subs;
  cl_int status = CL_SUCCESS;
  // A region past the buffer's end.
  cl_mem none = subs.create(static_cast<cl_mem>(buffer.handle()), 0, 8192, status);
  EXPECT_EQ(none, nullptr);
  EXPECT_NE(status, CL_SUCCESS);
  EXPECT_EQ(subs.pending(), 0u);
}

}  // namespace
}  // namespace strata::device
