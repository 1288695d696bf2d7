// The device's deferred releases: an object handed over with the command using it is released
// only once that command completed.
#include <gtest/gtest.h>

#include "deferred_releases.hpp"  // src/device/opencl
#include "opencl_device.hpp"
#include "opencl_test_device.hpp"

namespace strata::device {
namespace {

TEST(OpenClDeferredReleases, AnObjectIsReleasedOnlyAfterTheCommandUsingItCompletes) {
  STRATA_REQUIRE_OPENCL(device);
  auto& opencl = dynamic_cast<detail::OpenClDevice&>(device);
  const cl_context context = opencl.context().context;
  const cl_command_queue queue = opencl.context().queue(QueueKind::compute);
  detail::DeferredReleases releases;

  // A command held back by a user event stands for a kernel still running.
  cl_int status = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(context, &status);
  ASSERT_EQ(status, CL_SUCCESS);
  cl_event command = nullptr;
  ASSERT_EQ(clEnqueueMarkerWithWaitList(queue, 1, &gate, &command), CL_SUCCESS);
  clFlush(queue);
  cl_mem scratch = clCreateBuffer(context, CL_MEM_READ_WRITE, 256, nullptr, &status);
  ASSERT_EQ(status, CL_SUCCESS);
  releases.release_after(scratch, command);
  EXPECT_EQ(releases.pending(), 1u);
  // A later call sweeps, but the command has not run: the object stays. Null: released at once.
  cl_mem other = clCreateBuffer(context, CL_MEM_READ_WRITE, 256, nullptr, &status);
  ASSERT_EQ(status, CL_SUCCESS);
  releases.release_after(other, nullptr);
  EXPECT_EQ(releases.pending(), 1u);

  ASSERT_EQ(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  ASSERT_EQ(clWaitForEvents(1, &command), CL_SUCCESS);
  cl_mem third = clCreateBuffer(context, CL_MEM_READ_WRITE, 256, nullptr, &status);
  ASSERT_EQ(status, CL_SUCCESS);
  releases.release_after(third, nullptr);
  EXPECT_EQ(releases.pending(), 0u) << "the completed command's object was swept";
  clReleaseEvent(command);
  clReleaseEvent(gate);
}

}  // namespace
}  // namespace strata::device
