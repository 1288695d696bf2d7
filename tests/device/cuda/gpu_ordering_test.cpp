// Ordering of operations across a CUDA device's three streams and with events of other
// backends, checked through results and event states, not timing. Label gpu.

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

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

constexpr std::uint32_t element_count = 1 << 16;

Event add_one(const CompiledKernel& kernel, const DeviceBuffer& v, std::span<const Event> after) {
  return gpu()
      .queue(QueueKind::compute)
      .launch(kernel, LaunchGeometry{Dim3{element_count}, Dim3{256}, 1},
              {KernelArg::value(element_count), KernelArg::array<std::int32_t>(v)}, after);
}

TEST(CudaOrdering, UploadKernelDownloadChainAcrossTheThreeStreams) {
  STRATA_REQUIRE_CUDA_DEVICE();
  auto kernel = gpu().compile(add_one_kernel());
  DeviceBuffer v = gpu().allocate(element_count * sizeof(std::int32_t));
  std::vector<std::int32_t> host(element_count, 0);
  for (int round = 1; round <= 20; ++round) {
    Event up = gpu()
                   .queue(QueueKind::host_to_device)
                   .copy_to_device(v, 0, host.data(), element_count * sizeof(std::int32_t));
    Event done = add_one(*kernel, v, std::span(&up, 1));
    gpu()
        .queue(QueueKind::device_to_host)
        .copy_to_host(host.data(), v, 0, element_count * sizeof(std::int32_t), std::span(&done, 1))
        .wait();
    ASSERT_EQ(host.front(), round);
    ASSERT_EQ(host.back(), round);
  }
}

TEST(CudaOrdering, AManualEventHoldsBackItsQueueWithoutBlocking) {
  STRATA_REQUIRE_CUDA_DEVICE();
  auto kernel = gpu().compile(add_one_kernel());
  DeviceBuffer v = upload(gpu(), std::vector<std::int32_t>(element_count, 0));
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
  const auto values = download<std::int32_t>(gpu(), v, element_count);
  EXPECT_EQ(values.front(), 2);
  EXPECT_EQ(values.back(), 2);
  for (int i = 0; i < 1000 && !called; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(called) << "the callback ran (armed on the poller after the deferred record)";
}

TEST(CudaOrdering, AFailedForeignEventFailsTheOperationOnly) {
  STRATA_REQUIRE_CUDA_DEVICE();
  auto kernel = gpu().compile(add_one_kernel());
  DeviceBuffer v = upload(gpu(), std::vector<std::int32_t>(element_count, 0));
  Event gate = Event::manual();
  Event skipped = add_one(*kernel, v, std::span(&gate, 1));
  Event ran = add_one(*kernel, v, {});
  gate.state()->complete(std::make_exception_ptr(std::runtime_error("upload failed")));
  EXPECT_THROW(skipped.wait(), std::runtime_error);
  ran.wait();
  EXPECT_EQ(download<std::int32_t>(gpu(), v, element_count).front(), 1);
}

TEST(CudaOrdering, ACpuQueueEventOrdersAnUpload) {
  STRATA_REQUIRE_CUDA_DEVICE();
  auto cpu = make_cpu_device(default_block_runner());
  DeviceBuffer staging = cpu->allocate(element_count * sizeof(std::int32_t));
  std::vector<std::int32_t> source(element_count, 7);
  // The CPU queue first waits for a gate, so the CUDA upload must really wait for it.
  Event gate = Event::manual();
  Event filled = cpu->queue(QueueKind::host_to_device)
                     .copy_to_device(staging, 0, source.data(),
                                     element_count * sizeof(std::int32_t), std::span(&gate, 1));
  DeviceBuffer v = gpu().allocate(element_count * sizeof(std::int32_t));
  Event up = gpu()
                 .queue(QueueKind::host_to_device)
                 .copy_to_device(v, 0, staging.handle(), element_count * sizeof(std::int32_t),
                                 std::span(&filled, 1));
  EXPECT_FALSE(up.done());
  gate.state()->complete();
  up.wait();
  const auto values = download<std::int32_t>(gpu(), v, element_count);
  EXPECT_EQ(values.front(), 7);
  EXPECT_EQ(values.back(), 7);
}

TEST(CudaOrdering, CallbacksOfNativeEventsRun) {
  STRATA_REQUIRE_CUDA_DEVICE();
  auto kernel = gpu().compile(add_one_kernel());
  DeviceBuffer v = upload(gpu(), std::vector<std::int32_t>(element_count, 0));
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

// spin(u64 cycles): one thread spins about `cycles` clock cycles, holding its stream.
KernelDefinition spin_kernel() {
  return KernelDefinition("spin").scalar<std::uint64_t>("cycles").cuda(R"(
extern "C" __global__ void spin(unsigned long long cycles) {
  const long long start = clock64();
  while ((unsigned long long)(clock64() - start) < cycles) {}
}
)");
}

// Thousands of fills queued on two streams behind a kernel that holds each for ~0.2 s, their
// callbacks armed newest first (the poller asks only each stream's oldest unfinished event, so
// it completes them in the stream's order, not in the order they were armed): every callback
// runs, within a stream in the order the operations were enqueued; the last fills stay.
TEST(CudaOrdering, CallbacksOfThousandsOfQueuedOperationsRunInStreamOrder) {
  STRATA_REQUIRE_CUDA_DEVICE();
  constexpr int operations = 4000;
  constexpr std::uint64_t bytes = 4096;
  auto spin = gpu().compile(spin_kernel());
  DeviceBuffer buffer = gpu().allocate(2 * bytes);
  // Shared with the callbacks, which a failing test may leave behind.
  struct Seen {
    std::mutex lock;
    std::vector<int> order[2];
    int errors = 0;
    std::size_t count() {
      std::lock_guard guard(lock);
      return order[0].size() + order[1].size();
    }
  };
  auto seen = std::make_shared<Seen>();
  std::vector<Event> events;
  const QueueKind kinds[2] = {QueueKind::compute, QueueKind::device_to_host};
  for (QueueKind kind : kinds) {
    gpu().queue(kind).launch(*spin, LaunchGeometry{Dim3{1}, Dim3{1}, 1},
                             {KernelArg::value(std::uint64_t{400'000'000})});
  }
  for (int i = 0; i < operations; ++i) {
    const int stream = i % 2;
    const std::array<std::byte, 4> pattern{std::byte(i & 0xff), std::byte(1), std::byte(2),
                                           std::byte(3)};
    events.push_back(gpu().queue(kinds[stream]).fill(buffer, stream * bytes, pattern, bytes));
  }
  for (int i = operations; i-- > 0;) {
    events[i].on_complete([seen, i](std::exception_ptr error) {
      std::lock_guard guard(seen->lock);
      if (error) ++seen->errors;
      seen->order[i % 2].push_back(i);
    });
  }
  EXPECT_LT(seen->count(), 100u)
      << "the fills finished before their callbacks were armed: the spin was too short";
  wait_all(events);
  for (int tries = 0; tries < 1000 && seen->count() < operations; ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::lock_guard guard(seen->lock);
  EXPECT_EQ(seen->errors, 0);
  ASSERT_EQ(seen->order[0].size() + seen->order[1].size(), static_cast<std::size_t>(operations));
  for (const auto& stream : seen->order)
    EXPECT_TRUE(std::is_sorted(stream.begin(), stream.end()));
  const auto values = download<std::uint8_t>(gpu(), buffer, 2 * bytes);
  EXPECT_EQ(values[0], (operations - 2) & 0xff);
  EXPECT_EQ(values[bytes], (operations - 1) & 0xff);
  EXPECT_EQ(values[2 * bytes - 1], 3);
}

}  // namespace
}  // namespace strata::device
