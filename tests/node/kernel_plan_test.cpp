// Kernel launches planned over the ranks: the "kernel" kind runs a kernel on every device of
// every rank (CPU and OpenCL where PoCL is installed), with chunks that the planner brings to
// the rank and the memory manager places on the device; one message per rank per batch.
// The program runs plainly and under mpirun with 2 and 4 processes.

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstring>

#include "node_plan_support.hpp"

namespace strata::node::testing {
namespace {

using cluster::ChunkRef;
using runtime::Access;

std::vector<std::byte> floats(std::size_t n, float first, float step) {
  std::vector<std::byte> bytes(n * sizeof(float));
  for (std::size_t i = 0; i < n; ++i) {
    const float value = first + step * static_cast<float>(i % 1000);
    std::memcpy(bytes.data() + i * sizeof(float), &value, sizeof value);
  }
  return bytes;
}

float float_at(const std::vector<std::byte>& bytes, std::size_t i) {
  float value = 0;
  std::memcpy(&value, bytes.data() + i * sizeof(float), sizeof value);
  return value;
}

KernelLaunch axpy(std::uint32_t device, std::uint32_t n, float a) {
  KernelLaunch launch;
  launch.kernel = "axpy";
  launch.device = device;
  launch.global = {n, 1, 1};
  launch.args = {PlannedArg::value(n), PlannedArg::value(a),
                 PlannedArg::array(0, device::ElementType::f32),
                 PlannedArg::array(1, device::ElementType::f32)};
  return launch;
}

TEST(KernelPlans, EveryDeviceOfEveryRankRunsTheKernelOnChunksFromAnotherRank) {
  cluster::Driver& driver = *the_driver;
  Node& node = *the_node;
  const int ranks = driver.size();
  const auto devices = static_cast<std::uint32_t>(node.devices().size());
  for (device::Device* device : node.devices())
    std::printf("rank 0 device: %s (%s)\n", device->info().name.c_str(),
                device::to_string(device->info().backend));
  constexpr std::uint32_t n = 10000;
  std::vector<ChunkRef> xs, ys;
  for (int r = 0; r < ranks; ++r) {
    // x lives on the next rank: the planner moves it to r.
    xs.push_back(driver.create_chunk("x " + std::to_string(r), n * 4, (r + 1) % ranks));
    ys.push_back(driver.create_chunk("y " + std::to_string(r), n * 4, r));
    driver.write(xs.back(), floats(n, 1.0f, 0.5f));
    driver.write(ys.back(), floats(n, static_cast<float>(r), 0.0f));
  }
  const cluster::PlanStats before = driver.stats();
  {
    const cluster::PlanBatch batch(driver);
    for (int r = 0; r < ranks; ++r)
      for (std::uint32_t d = 0; d < devices; ++d)
        node.plan_kernel(driver, r, axpy(d, n, 2.0f),
                         {{xs[r], Access::read}, {ys[r], Access::read_write}});
  }
  EXPECT_LE(driver.stats().messages - before.messages, static_cast<std::uint64_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    const std::vector<std::byte> y = driver.fetch(ys[r]);
    for (std::size_t i = 0; i < n; i += 97) {
      const float x = 1.0f + 0.5f * static_cast<float>(i % 1000);
      ASSERT_FLOAT_EQ(float_at(y, i),
                      static_cast<float>(r) + 2.0f * x * static_cast<float>(devices))
          << "rank " << r << " element " << i;
    }
  }
  driver.wait_all();
}

// A batch: one task per device runs its launches in order; the second axpy reads what the
// first wrote into y (the chunk they share is one use of the batch).
TEST(KernelPlans, ABatchRunsItsLaunchesInOrderAsOneOperation) {
  cluster::Driver& driver = *the_driver;
  Node& node = *the_node;
  const int ranks = driver.size();
  const auto devices = static_cast<std::uint32_t>(node.devices().size());
  constexpr std::uint32_t n = 5000;
  std::vector<ChunkRef> ys;
  std::vector<std::array<ChunkRef, 2>> xs;
  for (int r = 0; r < ranks; ++r) {
    for (std::uint32_t d = 0; d < devices; ++d) {
      xs.push_back({driver.create_chunk("x0", n * 4, r), driver.create_chunk("x1", n * 4, r)});
      ys.push_back(driver.create_chunk("y", n * 4, r));
      driver.write(xs.back()[0], floats(n, 1.0f, 0.25f));
      driver.write(xs.back()[1], floats(n, 3.0f, 0.0f));
      driver.write(ys.back(), floats(n, static_cast<float>(d), 0.0f));
    }
  }
  const cluster::PlanStats before = driver.stats();
  {
    const cluster::PlanBatch batch(driver);
    for (int r = 0, at = 0; r < ranks; ++r) {
      for (std::uint32_t d = 0; d < devices; ++d, ++at) {
        KernelBatch launches;
        launches.launches = {axpy(d, n, 2.0f), axpy(d, n, -1.0f)};
        launches.launches[0].args[3].use = 2;  // y += 2 x0
        launches.launches[1].args[2].use = 2;  // then x1 -= y
        launches.launches[1].args[3].use = 1;
        node.plan_kernels(driver, r, launches,
                          {{xs[at][0], Access::read},
                           {xs[at][1], Access::read_write},
                           {ys[at], Access::read_write}});
      }
    }
  }
  EXPECT_EQ(driver.stats().operations - before.operations,
            static_cast<std::uint64_t>(ranks) * devices)
      << "one operation per batch";
  for (int r = 0, at = 0; r < ranks; ++r) {
    for (std::uint32_t d = 0; d < devices; ++d, ++at) {
      const std::vector<std::byte> y = driver.fetch(ys[at]);
      const std::vector<std::byte> x1 = driver.fetch(xs[at][1]);
      for (std::size_t i = 0; i < n; i += 89) {
        const float x0 = 1.0f + 0.25f * static_cast<float>(i % 1000);
        ASSERT_FLOAT_EQ(float_at(y, i), static_cast<float>(d) + 2.0f * x0)
            << "rank " << r << " device " << d << " element " << i;
        ASSERT_FLOAT_EQ(float_at(x1, i), 3.0f - float_at(y, i))
            << "rank " << r << " device " << d << " element " << i;
      }
    }
  }
  driver.wait_all();
}

TEST(KernelPlans, ABatchOverTwoDevicesOrWithoutLaunchesIsRefused) {
  cluster::Driver& driver = *the_driver;
  Node& node = *the_node;
  const ChunkRef y = driver.create_chunk("y", 64, 0);
  const ChunkRef x = driver.create_chunk("x", 64, 0);
  EXPECT_THROW(node.plan_kernels(driver, 0, KernelBatch{}, {{y, Access::read_write}}), Error);
  KernelBatch split;
  split.launches = {axpy(0, 16, 1.0f), axpy(1, 16, 1.0f)};
  try {
    node.plan_kernels(driver, 0, split, {{x, Access::read}, {y, Access::read_write}});
    FAIL() << "a batch over two devices was planned";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("kernel 'axpy' in a batch of launches on device 0"),
              std::string::npos)
        << error.what();
  }
}

TEST(KernelPlans, AnUndefinedKernelOrABadArgumentIsRefusedWhenPlanned) {
  cluster::Driver& driver = *the_driver;
  Node& node = *the_node;
  const ChunkRef y = driver.create_chunk("y", 64, 0);
  KernelLaunch launch = axpy(0, 16, 1.0f);
  launch.kernel = "saxpy";
  try {
    node.plan_kernel(driver, 0, launch, {{y, Access::read_write}});
    FAIL() << "an undefined kernel was planned";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what())
                  .find("kernel 'saxpy' is not defined on this node "
                        "(defined: add_u32, axpy, gate, keep_below)"),
              std::string::npos)
        << error.what();
  }
  EXPECT_THROW(node.plan_kernel(driver, 0, axpy(0, 16, 1.0f), {{y, Access::read_write}}), Error)
      << "the launch names use 1 of 1";
}

}  // namespace
}  // namespace strata::node::testing
