// The device's sub-buffers: a region is made once and kept until its parent buffer is released;
// an object handed over with the command using it is released only once that command completed.
#include <gtest/gtest.h>

#include "opencl_device.hpp"  // src/device/opencl
#include "opencl_test_device.hpp"
#include "sub_buffers.hpp"

namespace strata::device {
namespace {

TEST(OpenClSubBuffers, ARegionIsMadeOnceAndReleasedWithItsParent) {
  STRATA_REQUIRE_OPENCL(device);
  auto& opencl = dynamic_cast<detail::OpenClDevice&>(device);
  detail::SubBuffers& subs = opencl.sub_buffers();
  const std::size_t before = subs.regions();
  const auto alignment = opencl.sub_buffer_alignment();
  {
    DeviceBuffer buffer = device.allocate(1 << 16);
    const auto parent = static_cast<cl_mem>(buffer.handle());
    cl_int status = CL_SUCCESS;
    cl_mem first = subs.region(parent, alignment, alignment, status);
    ASSERT_EQ(status, CL_SUCCESS);
    EXPECT_EQ(subs.region(parent, alignment, alignment, status), first) << "made once";
    cl_mem other = subs.region(parent, 2 * alignment, alignment, status);
    ASSERT_EQ(status, CL_SUCCESS);
    EXPECT_NE(other, first);
    EXPECT_EQ(subs.regions(), before + 2);
  }
  EXPECT_EQ(subs.regions(), before) << "the buffer's release released its regions";
}

TEST(OpenClSubBuffers, AnObjectIsReleasedOnlyAfterTheCommandUsingItCompletes) {
  STRATA_REQUIRE_OPENCL(device);
  auto& opencl = dynamic_cast<detail::OpenClDevice&>(device);
  const cl_context context = opencl.context().context;
  const cl_command_queue queue = opencl.context().queue(QueueKind::compute);
  DeviceBuffer buffer = device.allocate(4096);
  detail::SubBuffers subs;

  // A command held back by a user event stands for a kernel still running.
  cl_int status = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(context, &status);
  ASSERT_EQ(status, CL_SUCCESS);
  cl_event command = nullptr;
  ASSERT_EQ(clEnqueueMarkerWithWaitList(queue, 1, &gate, &command), CL_SUCCESS);
  clFlush(queue);
  cl_mem scratch = clCreateBuffer(context, CL_MEM_READ_WRITE, 256, nullptr, &status);
  ASSERT_EQ(status, CL_SUCCESS);
  subs.release_after(scratch, command);
  EXPECT_EQ(subs.pending(), 1u);
  // A later call sweeps, but the command has not run: the object stays.
  subs.region(static_cast<cl_mem>(buffer.handle()), 0, 1024, status);
  EXPECT_EQ(subs.pending(), 1u);

  ASSERT_EQ(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  ASSERT_EQ(clWaitForEvents(1, &command), CL_SUCCESS);
  subs.region(static_cast<cl_mem>(buffer.handle()), 0, 1024, status);
  EXPECT_EQ(subs.pending(), 0u) << "the completed command's object was swept";
  clRetainMemObject(static_cast<cl_mem>(buffer.handle()));  // the DeviceBuffer releases it too
  subs.release_parent(static_cast<cl_mem>(buffer.handle()));
  EXPECT_EQ(subs.regions(), 0u);
  clReleaseEvent(command);
  clReleaseEvent(gate);
}

TEST(OpenClSubBuffers, AFailedCreationReportsTheStatus) {
  STRATA_REQUIRE_OPENCL(device);
  DeviceBuffer buffer = device.allocate(4096);
  detail::SubBuffers subs;
  cl_int status = CL_SUCCESS;
  // A region past the buffer's end.
  cl_mem none = subs.region(static_cast<cl_mem>(buffer.handle()), 0, 8192, status);
  EXPECT_EQ(none, nullptr);
  EXPECT_NE(status, CL_SUCCESS);
  EXPECT_EQ(subs.regions(), 0u);
}

}  // namespace
}  // namespace strata::device
