// Event ordering across queues and backends, shown by what has and has not happened (never by
// timing): gated kernels, copies that overlap them, failures of foreign events.
#include <gtest/gtest.h>

#include <future>
#include <stdexcept>
#include <vector>

#include "opencl_test_device.hpp"
#include "strata/device/errors.hpp"

namespace strata::device {
namespace {

KernelDefinition increment_kernel() {
  return KernelDefinition("increment")
      .scalar<std::uint32_t>("n")
      .array<std::uint32_t>("data", ParamAccess::read_write)
      .opencl(R"(
__kernel void increment(uint n, __global uint* data) {
  const size_t i = get_global_id(0);
  if (i < n) data[i] += 1;
}
)");
}

constexpr std::uint32_t element_count = 4096;

struct Fixture {
  Device& device;
  std::shared_ptr<const CompiledKernel> kernel = device.compile(increment_kernel());
  DeviceBuffer data = device.allocate(element_count * 4);

  explicit Fixture(Device& d) : device(d) {
    std::vector<std::uint32_t> zeros(element_count, 0);
    device.queue(QueueKind::host_to_device)
        .copy_to_device(data, 0, zeros.data(), element_count * 4)
        .wait();
  }
  Event increment(std::span<const Event> after) {
    return device.queue(QueueKind::compute)
        .launch(*kernel, LaunchGeometry{Dim3{element_count}},
                {KernelArg::value(element_count), KernelArg::array<std::uint32_t>(data)}, after);
  }
  std::vector<std::uint32_t> read(std::span<const Event> after = {}) {
    std::vector<std::uint32_t> values(element_count);
    device.queue(QueueKind::device_to_host)
        .copy_to_host(values.data(), data, 0, element_count * 4, after)
        .wait();
    return values;
  }
};

TEST(OpenClEvents, AKernelBehindAManualEventWaitsWhileCopiesOverlapIt) {
  STRATA_REQUIRE_OPENCL(device);
  Fixture f(device);
  Event gate = Event::manual();
  Event gated = f.increment(std::span(&gate, 1));

  // While the compute queue is held, the copy queues go on: an upload to another buffer and
  // downloads of the kernel's buffer finish, and they see the kernel has not run.
  std::vector<std::uint32_t> ones(element_count, 1);
  DeviceBuffer other = device.allocate(element_count * 4);
  for (int round = 0; round < 3; ++round) {
    device.queue(QueueKind::host_to_device)
        .copy_to_device(other, 0, ones.data(), element_count * 4)
        .wait();
    EXPECT_EQ(f.read(), std::vector<std::uint32_t>(element_count, 0))
        << "the kernel ran before its gate";
    EXPECT_FALSE(gated.done());
  }
  // Later work on the compute queue queues up behind it (in order).
  Event second = f.increment({});
  EXPECT_FALSE(second.done());

  gate.state()->complete();
  second.wait();
  EXPECT_TRUE(gated.done());
  EXPECT_EQ(f.read(), std::vector<std::uint32_t>(element_count, 2));
}

TEST(OpenClEvents, NativeEventsOrderCommandsAcrossQueues) {
  STRATA_REQUIRE_OPENCL(device);
  Fixture f(device);
  Event gate = Event::manual();
  std::vector<std::uint32_t> sevens(element_count, 7);
  Event upload =
      device.queue(QueueKind::host_to_device)
          .copy_to_device(f.data, 0, sevens.data(), element_count * 4, std::span(&gate, 1));
  Event kernel = f.increment(std::span(&upload, 1));
  std::vector<std::uint32_t> result(element_count, 0);
  Event download =
      device.queue(QueueKind::device_to_host)
          .copy_to_host(result.data(), f.data, 0, element_count * 4, std::span(&kernel, 1));
  EXPECT_FALSE(download.done());
  gate.state()->complete();
  download.wait();
  EXPECT_EQ(result, std::vector<std::uint32_t>(element_count, 8));
}

TEST(OpenClEvents, CallbacksRunWhenTheCommandCompletes) {
  STRATA_REQUIRE_OPENCL(device);
  Fixture f(device);
  Event gate = Event::manual();
  Event kernel = f.increment(std::span(&gate, 1));
  std::promise<bool> called;
  kernel.on_complete([&](std::exception_ptr error) { called.set_value(error == nullptr); });
  gate.state()->complete();
  EXPECT_TRUE(called.get_future().get());
}

TEST(OpenClEvents, AFailedForeignEventFailsTheDependentOperation) {
  STRATA_REQUIRE_OPENCL(device);
  Fixture f(device);
  Event gate = Event::manual();
  Event kernel = f.increment(std::span(&gate, 1));
  // A native dependent of the failed operation fails too.
  std::vector<std::uint32_t> result(element_count);
  Event download =
      device.queue(QueueKind::device_to_host)
          .copy_to_host(result.data(), f.data, 0, element_count * 4, std::span(&kernel, 1));
  gate.state()->complete(std::make_exception_ptr(std::runtime_error("upstream task failed")));
  for (const Event* event : {&kernel, &download}) {
    try {
      event->wait();
      ADD_FAILURE() << "expected the dependency's error";
    } catch (const std::runtime_error& error) {
      EXPECT_STREQ(error.what(), "upstream task failed");
    }
  }
  // Depending on an already-failed event fails at once; the queue itself stays usable.
  Event refused = f.increment(std::span(&kernel, 1));
  EXPECT_TRUE(refused.done());
  EXPECT_THROW(refused.wait(), std::runtime_error);
  f.increment({}).wait();
}

TEST(OpenClEvents, EventsOfTheCpuBackendAreDependenciesBothWays) {
  STRATA_REQUIRE_OPENCL(device);
  Fixture f(device);
  auto cpu = make_cpu_device(default_block_runner());
  DeviceBuffer staging = cpu->allocate(element_count * 4);
  std::vector<std::uint32_t> fives(element_count, 5);
  Event gate = Event::manual();
  Event cpu_upload =
      cpu->queue(QueueKind::host_to_device)
          .copy_to_device(staging, 0, fives.data(), element_count * 4, std::span(&gate, 1));
  std::vector<std::uint32_t> host(element_count, 0);
  Event cpu_download =
      cpu->queue(QueueKind::device_to_host)
          .copy_to_host(host.data(), staging, 0, element_count * 4, std::span(&cpu_upload, 1));
  Event to_opencl =
      device.queue(QueueKind::host_to_device)
          .copy_to_device(f.data, 0, host.data(), element_count * 4, std::span(&cpu_download, 1));
  Event kernel = f.increment(std::span(&to_opencl, 1));
  std::vector<std::uint32_t> back(element_count, 0);
  // A CPU-queue operation after an OpenCL event.
  Event cpu_after = cpu->queue(QueueKind::compute).marker();
  Event read = device.queue(QueueKind::device_to_host)
                   .copy_to_host(back.data(), f.data, 0, element_count * 4, std::span(&kernel, 1));
  Event cpu_copy =
      cpu->queue(QueueKind::host_to_device)
          .copy_to_device(staging, 0, back.data(), element_count * 4, std::span(&read, 1));
  EXPECT_FALSE(kernel.done());
  gate.state()->complete();
  cpu_copy.wait();
  cpu_after.wait();
  EXPECT_EQ(back, std::vector<std::uint32_t>(element_count, 6));
}

}  // namespace
}  // namespace strata::device
