// Device loads: every rank reports, per device, the free bytes of its memory space and the
// planned operations on its executors not finished; the driver sees them (Driver::loads) —
// its own devices at once, the others' after their reports (current after wait_all()).

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "node_plan_support.hpp"

namespace strata::node::testing {
namespace {

using cluster::ChunkRef;
using runtime::Access;

KernelLaunch add_one(std::uint32_t device, std::uint32_t n) {
  KernelLaunch launch;
  launch.kernel = "add_u32";
  launch.device = device;
  launch.global = {n, 1, 1};
  launch.args = {PlannedArg::value(n), PlannedArg::value(std::uint32_t{1}),
                 PlannedArg::array(0, device::ElementType::u32)};
  return launch;
}

TEST(DeviceLoads, EveryRankReportsItsDevicesFreeMemory) {
  cluster::Driver& driver = *the_driver;
  Node& node = *the_node;
  const int last = driver.size() - 1;
  const auto devices = node.devices().size();
  driver.wait_all();
  auto loads = driver.loads();
  ASSERT_EQ(loads.size(), static_cast<std::size_t>(driver.size()));
  // Each device's space: its own (16 MiB, the test main's device capacity) or, for the CPU
  // device working in host memory, the host's.
  std::vector<std::uint64_t> capacities;
  for (const device::Device* dev : node.devices())
    capacities.push_back(node.memory().capacity(node.memory().space_of(*dev)));
  for (const auto& rank : loads) {
    ASSERT_EQ(rank.size(), devices);
    for (std::size_t d = 0; d < devices; ++d) {
      EXPECT_LE(rank[d].free_bytes, capacities[d]);
      EXPECT_EQ(rank[d].queued, 0u);
    }
  }
  const std::uint64_t before = loads[static_cast<std::size_t>(last)][0].free_bytes;
  // 6 MiB written on the last rank's first device stay there: its free memory drops by them.
  constexpr std::uint32_t n = (6u << 20) / 4;
  const ChunkRef x = driver.create_chunk("six MiB", n * 4ull, last);
  driver.write(x, std::vector<std::byte>(n * 4ull));
  node.plan_kernel(driver, last, add_one(0, n), {{x, Access::read_write}});
  driver.wait_all();
  loads = driver.loads();
  const std::uint64_t held = loads[static_cast<std::size_t>(last)][0].free_bytes;
  EXPECT_LE(held, before - (6u << 20));
  driver.destroy(x);
  driver.wait_all();
  loads = driver.loads();
  EXPECT_GE(loads[static_cast<std::size_t>(last)][0].free_bytes, held + (6u << 20));
}

TEST(DeviceLoads, WorkPlannedOnADeviceCountsAsQueuedUntilItFinishes) {
  cluster::Driver& driver = *the_driver;
  Node& node = *the_node;
  if (node.devices().front()->info().backend != device::BackendKind::cpu)
    GTEST_SKIP() << "the gate kernel runs on a CPU device";
  const ChunkRef x = driver.create_chunk("gated", 4, 0);
  driver.write(x, std::vector<std::byte>(4));
  gate_open = false;
  {
    const cluster::PlanBatch batch(driver);
    for (int i = 0; i < 3; ++i) {
      KernelLaunch gate;
      gate.kernel = "gate";
      gate.device = 0;
      gate.global = {1, 1, 1};
      gate.args = {PlannedArg::array(0, device::ElementType::u32)};
      node.plan_kernel(driver, 0, gate, {{x, Access::read_write}});
    }
  }
  // The driver's own devices are read at the call: the three wait there once submitted.
  std::uint64_t queued = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (queued < 3 && std::chrono::steady_clock::now() < until) {
    queued = driver.loads()[0][0].queued;
    if (queued < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(queued, 3u);
  if (driver.loads()[0].size() > 1) {
    EXPECT_EQ(driver.loads()[0][1].queued, 0u);
  }
  gate_open = true;
  driver.wait_all();
  EXPECT_EQ(driver.loads()[0][0].queued, 0u);
  const std::vector<std::byte> bytes = driver.fetch(x);
  std::uint32_t value = 0;
  std::memcpy(&value, bytes.data(), sizeof value);
  EXPECT_EQ(value, 3u);
  driver.destroy(x);
  driver.wait_all();
}

}  // namespace
}  // namespace strata::node::testing
