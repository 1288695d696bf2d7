// The node: one object builds the runtime, devices, memory spaces, staging, device executors and
// the plan program; data named once is staged for kernels on a device and for CPU tasks; plans and
// other work share one node; nodes come and go on a network the caller keeps.

#include "strata/node/node.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <numeric>
#include <thread>

namespace strata::node {
namespace {

using device::CpuBlock;
using device::Dim3;
using device::ElementType;
using device::KernelArg;
using device::KernelDefinition;
using device::LaunchGeometry;
using device::ParamAccess;
using device::QueueKind;
using runtime::TaskContext;
using runtime::TaskSpec;

constexpr std::uint32_t values = 4096;

NodeOptions small_node() {
  NodeOptions options;
  options.config.section<runtime::RuntimeSettings>().cpu_threads = 2;
  options.config.section<device::DeviceSettings>().backends = "cpu";
  options.config.section<device::DeviceSettings>().kernel_cache_dir = "off";
  // The CPU device stands in for a GPU: a memory of its own of 4 chunks of 16 KiB.
  options.config.section<memory::MemorySettings>().cpu_device_memory = "own";
  options.config.section<memory::MemorySettings>().device_capacity = 64 * 1024;
  options.config.section<memory::MemorySettings>().host_capacity = 1 << 20;
  return options;
}

KernelDefinition add_kernel() {
  return KernelDefinition("add")
      .scalar<std::uint32_t>("n")
      .scalar<std::uint32_t>("amount")
      .array<std::uint32_t>("values", ParamAccess::read_write)
      .cpu([](const CpuBlock& block) {
        const auto n = block.scalar<std::uint32_t>(0);
        const auto amount = block.scalar<std::uint32_t>(1);
        auto* v = block.array<std::uint32_t>(2);
        for (auto i = block.begin.x; i < block.end.x && i < n; ++i)
          v[i] += amount;
      });
}

// Kernels on the node's device update named data 4x the device's memory; CPU tasks then read it.
std::uint64_t add_on_device_and_sum(Node& node, std::uint32_t chunks, const std::string& prefix) {
  device::Device& gpu = *node.devices().front();
  const runtime::DeviceExecutors& exec = node.executors(0);
  auto kernel = gpu.compile(add_kernel());
  std::vector<runtime::ChunkData> data;
  for (std::uint32_t c = 0; c < chunks; ++c) {
    std::vector<std::uint32_t> initial(values, c);
    data.push_back(node.create_data(prefix + std::to_string(c), values * 4,
                                    std::as_bytes(std::span(initial))));
  }
  for (const runtime::ChunkData& d : data) {
    node.runtime().submit(TaskSpec("add").on(exec.compute).updates(d.data), [&node, &gpu, &kernel,
                                                                             d](TaskContext& ctx) {
      const memory::ChunkView view = node.staging().view(ctx, d.data);
      runtime::complete_when(ctx, gpu.queue(QueueKind::compute)
                                      .launch(*kernel, LaunchGeometry{Dim3{values}},
                                              {KernelArg::value(values), KernelArg::value(5u),
                                               view.argument(ElementType::u32)}));
    });
  }
  std::atomic<std::uint64_t> total{0};
  std::vector<runtime::TaskHandle> sums;
  for (const runtime::ChunkData& d : data) {
    sums.push_back(
        node.runtime().submit(TaskSpec("sum").reads(d.data), [&node, &total, d](TaskContext& ctx) {
          const memory::ChunkView view = node.staging().view(ctx, d.data);
          const auto* v = static_cast<const std::uint32_t*>(view.host);
          total += std::accumulate(v, v + values, std::uint64_t{0});
        }));
  }
  for (const auto& sum : sums)
    sum.wait();
  for (const runtime::ChunkData& d : data)
    node.destroy_data(d);
  return total.load();
}

std::uint64_t expected_sum(std::uint32_t chunks) {
  std::uint64_t expected = 0;
  for (std::uint32_t c = 0; c < chunks; ++c)
    expected += std::uint64_t{values} * (c + 5);
  return expected;
}

TEST(Node, BuildsEveryPartFromOneConfiguration) {
  Node node(small_node());
  EXPECT_EQ(node.rank(), 0);
  EXPECT_EQ(node.size(), 1);
  EXPECT_EQ(node.config().section<runtime::RuntimeSettings>().cpu_threads, 2u);
  ASSERT_EQ(node.devices().size(), 1u);
  EXPECT_EQ(node.devices().front()->info().backend, device::BackendKind::cpu);
  // One host space, the disk and one space per device, of the configured capacities.
  EXPECT_EQ(node.memory().space_count(), 3u);
  const auto stats = node.memory().stats();
  EXPECT_EQ(stats.spaces[node.memory().host().index].capacity, 1u << 20);
  EXPECT_EQ(stats.spaces[node.memory().space_of(*node.devices().front()).index].capacity,
            64u * 1024);
  EXPECT_FALSE(node.device_reports().empty());
  const runtime::DeviceExecutors& exec = node.executors(0);
  EXPECT_EQ(exec.device, node.devices().front());
  EXPECT_NE(exec.compute.index, exec.upload.index);
  EXPECT_NE(node.network_executor().index, exec.compute.index);
  EXPECT_THROW((void)node.executors(1), std::out_of_range);
}

TEST(Node, NamedDataIsStagedForDeviceKernelsAndCpuTasks) {
  Node node(small_node());
  EXPECT_EQ(add_on_device_and_sum(node, 16, "values "), expected_sum(16));
  const auto stats = node.memory().stats();
  EXPECT_GT(stats.spaces[node.memory().space_of(*node.devices().front()).index].evictions, 0u)
      << "16 chunks of 16 KiB pass through a 64 KiB device";
}

TEST(Node, TheCpuDeviceWorksInHostMemoryByDefault) {
  NodeOptions options = small_node();
  options.config.section<memory::MemorySettings>().cpu_device_memory = "host";
  Node node(options);
  EXPECT_EQ(node.memory().space_count(), 2u);  // the host and the disk
  EXPECT_EQ(node.memory().space_of(*node.devices().front()), node.memory().host());
  // 16 chunks of 16 KiB, 4x the device capacity configured: kernels on the CPU device update
  // them where the host wrote them, and CPU tasks read them there.
  EXPECT_EQ(add_on_device_and_sum(node, 16, "values "), expected_sum(16));
  const auto stats = node.memory().stats();
  EXPECT_TRUE(stats.bytes_moved.empty()) << stats.format();
}

TEST(Node, TheSizingHookSeesTheDevicesFound) {
  NodeOptions options = small_node();
  std::size_t seen = 0;
  options.size_memory = [&seen](memory::MemoryOptions& memory,
                                std::span<device::Device* const> devices) {
    seen = devices.size();
    memory.device_capacity = 32 * 1024;
  };
  Node node(options);
  EXPECT_EQ(seen, 1u);
  const auto stats = node.memory().stats();
  EXPECT_EQ(stats.spaces[node.memory().space_of(*node.devices().front()).index].capacity,
            32u * 1024);
}

TEST(Node, APlanAndOtherWorkShareOneNode) {
  Node node(small_node());
  cluster::Program& program = node.program();
  program.define("fill", [](cluster::OperationContext& op) {
    for (std::uint64_t& word : op.chunk_as<std::uint64_t>(0))
      word = op.args<std::uint64_t>();
  });
  program.define("add", [](cluster::OperationContext& op) {
    auto out = op.chunk_as<std::uint64_t>(0);
    auto in = op.chunk_as<std::uint64_t>(1);
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] += in[i];
  });
  // Another front end's work runs on the same node while the driver plans.
  std::uint64_t device_total = 0;
  std::thread other([&] { device_total = add_on_device_and_sum(node, 12, "other "); });
  std::vector<std::byte> fetched;
  const int status = program.run([&](cluster::Driver& driver) {
    const cluster::ChunkRef a = driver.create_chunk("a", 8 * 512, 0);
    const cluster::ChunkRef b = driver.create_chunk("b", 8 * 512, 0);
    driver.run_with(0, "fill", {{a, runtime::Access::write}}, std::uint64_t{3});
    driver.run_with(0, "fill", {{b, runtime::Access::write}}, std::uint64_t{4});
    driver.run(0, "add", {{a, runtime::Access::read_write}, {b, runtime::Access::read}});
    fetched = driver.fetch(a);
  });
  other.join();
  EXPECT_EQ(status, 0);
  EXPECT_EQ(device_total, expected_sum(12));
  ASSERT_EQ(fetched.size(), 8u * 512);
  const auto* words = reinterpret_cast<const std::uint64_t*>(fetched.data());
  for (std::size_t i = 0; i < 512; ++i)
    ASSERT_EQ(words[i], 7u) << "word " << i;
}

// What a program's driver saw when a rank failed (the job's failure, caught in its main).
std::string failure_of(const std::function<void(cluster::Program&)>& define,
                       const std::function<void(cluster::Driver&)>& plan) {
  Node node(small_node());
  define(node.program());
  std::string message;
  const int status = node.program().run([&](cluster::Driver& driver) {
    try {
      plan(driver);
      driver.wait_all();
    } catch (const cluster::RankFailed& failed) {
      message = failed.what();
    }
  });
  EXPECT_NE(status, 0);
  return message;
}

TEST(Node, ALateSizeAboveTheCapacityOrReadBeforeItIsSetFailsNamingTheChunk) {
  const auto define = [](cluster::Program& program) {
    program.define("keep",
                   [](cluster::OperationContext& op) { op.set_size(0, op.args<std::uint64_t>()); });
    program.define("forget", [](cluster::OperationContext&) {});
    program.define("read", [](cluster::OperationContext&) {});
  };
  const std::string above = failure_of(define, [](cluster::Driver& driver) {
    const cluster::ChunkRef kept = driver.create_late_chunk("kept", 16, 0);
    driver.run_with(0, "keep", {{kept, runtime::Access::write}}, std::uint64_t{64});
  });
  EXPECT_NE(above.find("chunk 'kept' is set to 64 B, more than its capacity of 16 B"),
            std::string::npos)
      << above;
  const std::string early = failure_of(define, [](cluster::Driver& driver) {
    const cluster::ChunkRef kept = driver.create_late_chunk("kept", 16, 0);
    driver.run(0, "forget", {{kept, runtime::Access::write}});
    driver.run(0, "read", {{kept, runtime::Access::read}});
  });
  EXPECT_NE(early.find("chunk 'kept' is read before its size is known"), std::string::npos)
      << early;
}

TEST(Node, NodesComeAndGoOnANetworkTheCallerKeeps) {
  cluster::Network network(nullptr, nullptr);
  for (int round = 0; round < 3; ++round) {
    Node node(small_node(), network);
    EXPECT_EQ(add_on_device_and_sum(node, 6, "round "), expected_sum(6));
  }
}

}  // namespace
}  // namespace strata::node
