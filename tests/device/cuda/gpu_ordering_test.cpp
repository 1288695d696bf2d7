// Ordering of operations across a CUDA device's three streams and with events of other
// backends, checked through results and event states, not timing. Label gpu.

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "gpu_device.hpp"
#include "strata/device/errors.hpp"

namespace strata::device {
namespace {

using namespace testing;

// add_one(u32 n, i32 v[]): v[i] += 1, slowly (spins) so reordering would show.
KernelDefinition add_one_kernel() {
  return KernelDefinition("add_one")
      .scalar<std::uint32_t>("n")
      .array<std::int32_t>("v", ParamAccess::read_write)
      .cuda(R"(
extern "C" __global__ void add_one(unsigned n, int* v) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long start = clock64();
  while (clock64() - start < 20000) {}
  v[i] += 1;
}
)");
}

constexpr std::uint32_t n = 1 << 16;

Event add_one(const CompiledKernel& kernel, const DeviceBuffer& v, std::span<const Event> after) {
  return gpu()
      .queue(QueueKind::compute)
      .launch(kernel, LaunchGeometry{Dim3{n}, Dim3{256}, 1},
              {KernelArg::value(n), KernelArg::array<std::int32_t>(v)}, after);
}

TEST(CudaOrdering, UploadKernelDownloadChainAcrossTheThreeStreams) {
  STRATA_REQUIRE_CUDA_DEVICE();
  auto kernel = gpu().compile(add_one_kernel());
  DeviceBuffer v = gpu().allocate(n * sizeof(std::int32_t));
  std::vector<std::int32_t> host(n, 0);
  for (int round = 1; round <= 20; ++round) {
    Event up = gpu()
                   .queue(QueueKind::host_to_device)
                   .copy_to_device(v, 0, host.data(), n * sizeof(std::int32_t));
    Event done = add_one(*kernel, v, std::span(&up, 1));
    gpu()
        .queue(QueueKind::device_to_host)
        .copy_to_host(host.data(), v, 0, n * sizeof(std::int32_t), std::span(&done, 1))
        .wait();
    ASSERT_EQ(host.front(), round);
    ASSERT_EQ(host.back(), round);
  }
}

TEST(CudaOrdering, AManualEventHoldsBackItsQueueWithoutBlocking) {
  STRATA_REQUIRE_CUDA_DEVICE();
  auto kernel = gpu().compile(add_one_kernel());
  DeviceBuffer v = upload(gpu(), std::vector<std::int32_t>(n, 0));
  Event gate = Event::manual();
  Event first = add_one(*kernel, v, std::span(&gate, 1));
  Event second = add_one(*kernel, v, {});  // no waits, but after `first` in the queue
  Event marker = gpu().queue(QueueKind::compute).marker();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(first.done());
  EXPECT_FALSE(second.done());
  EXPECT_FALSE(marker.done());
  std::atomic<bool> called{false};
  second.on_complete([&](std::exception_ptr error) { called = error == nullptr; });
  gate.state()->complete();
  marker.wait();
  EXPECT_TRUE(first.done());
  // `second` has a callback: the poller completes it (done() never runs callbacks on the asking
  // thread), so done() may lag the device a little; wait() completes it here.
  second.wait();
  EXPECT_TRUE(second.done());
  const auto values = download<std::int32_t>(gpu(), v, n);
  EXPECT_EQ(values.front(), 2);
  EXPECT_EQ(values.back(), 2);
  for (int i = 0; i < 1000 && !called; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(called) << "the callback ran (armed on the poller after the deferred record)";
}

TEST(CudaOrdering, AFailedForeignEventFailsTheOperationOnly) {
  STRATA_REQUIRE_CUDA_DEVICE();
  auto kernel = gpu().compile(add_one_kernel());
  DeviceBuffer v = upload(gpu(), std::vector<std::int32_t>(n, 0));
  Event gate = Event::manual();
  Event skipped = add_one(*kernel, v, std::span(&gate, 1));
  Event ran = add_one(*kernel, v, {});
  gate.state()->complete(std::make_exception_ptr(std::runtime_error("upload failed")));
  EXPECT_THROW(skipped.wait(), std::runtime_error);
  ran.wait();
  EXPECT_EQ(download<std::int32_t>(gpu(), v, n).front(), 1);
}

TEST(CudaOrdering, ACpuQueueEventOrdersAnUpload) {
  STRATA_REQUIRE_CUDA_DEVICE();
  auto cpu = make_cpu_device(default_block_runner());
  DeviceBuffer staging = cpu->allocate(n * sizeof(std::int32_t));
  std::vector<std::int32_t> source(n, 7);
  // The CPU queue first waits for a gate, so the CUDA upload must really wait for it.
  Event gate = Event::manual();
  Event filled =
      cpu->queue(QueueKind::host_to_device)
          .copy_to_device(staging, 0, source.data(), n * sizeof(std::int32_t), std::span(&gate, 1));
  DeviceBuffer v = gpu().allocate(n * sizeof(std::int32_t));
  Event up =
      gpu()
          .queue(QueueKind::host_to_device)
          .copy_to_device(v, 0, staging.handle(), n * sizeof(std::int32_t), std::span(&filled, 1));
  EXPECT_FALSE(up.done());
  gate.state()->complete();
  up.wait();
  const auto values = download<std::int32_t>(gpu(), v, n);
  EXPECT_EQ(values.front(), 7);
  EXPECT_EQ(values.back(), 7);
}

TEST(CudaOrdering, CallbacksOfNativeEventsRun) {
  STRATA_REQUIRE_CUDA_DEVICE();
  auto kernel = gpu().compile(add_one_kernel());
  DeviceBuffer v = upload(gpu(), std::vector<std::int32_t>(n, 0));
  std::atomic<int> calls{0};
  std::vector<Event> events;
  for (int i = 0; i < 10; ++i) {
    events.push_back(add_one(*kernel, v, {}));
    events.back().on_complete([&](std::exception_ptr error) {
      if (!error) ++calls;
    });
  }
  wait_all(events);
  for (int i = 0; i < 1000 && calls < 10; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(calls, 10);
}

}  // namespace
}  // namespace strata::device
