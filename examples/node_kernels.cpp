// A runnable tour of the node and open plans (docs/node.md): a vector in tiles spread over the
// ranks is scaled by a kernel on every device of every rank (CPU and, where an OpenCL platform is
// installed, OpenCL), gathered into one region by box copies, and summed by a reduction; the
// driver checks each result against the same computation done sequentially.
//
//   example_node_kernels                          # a cluster of one
//   strata launch -n 4 -- example_node_kernels    # four processes, rank 0 is the driver

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "strata/node/node.hpp"

using strata::cluster::ChunkRef;
using strata::cluster::Driver;
using strata::device::ElementType;
using strata::node::KernelLaunch;
using strata::node::PlannedArg;
using strata::runtime::Access;

namespace {
constexpr std::uint32_t tile = 1 << 12;  // floats per tile
constexpr int tiles_per_rank = 2;

// x[i] = a * x[i] for i < n, with a C++ and an OpenCL C implementation.
strata::device::KernelDefinition scale_kernel() {
  return strata::device::KernelDefinition("scale")
      .scalar<std::uint32_t>("n")
      .scalar<float>("a")
      .array<float>("x", strata::device::ParamAccess::read_write)
      .cpu([](const strata::device::CpuBlock& block) {
        const auto n = block.scalar<std::uint32_t>(0);
        const auto a = block.scalar<float>(1);
        float* x = block.array<float>(2);
        for (std::uint64_t i = block.begin.x; i < block.end.x && i < n; ++i)
          x[i] *= a;
      })
      .opencl(R"(
__kernel void scale(uint n, float a, __global float* x) {
  const size_t i = get_global_id(0);
  if (i < n) x[i] *= a;
})");
}

std::vector<std::byte> as_bytes(const std::vector<float>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::vector<float> as_floats(const std::vector<std::byte>& bytes) {
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}
}  // namespace

int main(int argc, char** argv) {
  strata::node::NodeOptions options;
  options.config.section<strata::device::DeviceSettings>().backends = "cpu,opencl";
  strata::node::Node node(argc, argv, options);
  node.define_kernel(scale_kernel());  // every rank defines the same kernels
  const auto devices = static_cast<std::uint32_t>(node.devices().size());
  bool correct = false;
  const int status = node.program().run([&](Driver& driver) {
    const int ranks = driver.size();
    const int tiles = ranks * tiles_per_rank;
    std::vector<ChunkRef> chunks;
    std::vector<float> expected;
    for (int t = 0; t < tiles; ++t) {
      std::vector<float> values(tile);
      for (std::uint32_t i = 0; i < tile; ++i)
        values[i] = static_cast<float>(t) + static_cast<float>(i % 7);
      chunks.push_back(driver.create_chunk("tile " + std::to_string(t), tile * 4, t % ranks));
      driver.write(chunks.back(), as_bytes(values));
      // Every device of the tile's rank scales it by 2 in turn.
      for (float& v : values)
        for (std::uint32_t d = 0; d < devices; ++d)
          v *= 2.0f;
      expected.insert(expected.end(), values.begin(), values.end());
    }
    {
      const strata::cluster::PlanBatch batch(driver);  // one message per rank
      for (int t = 0; t < tiles; ++t) {
        for (std::uint32_t d = 0; d < devices; ++d) {
          KernelLaunch launch;
          launch.kernel = "scale";
          launch.device = d;
          launch.global = {tile, 1, 1};
          launch.args = {PlannedArg::value(tile), PlannedArg::value(2.0f),
                         PlannedArg::array(0, ElementType::f32)};
          node.plan_kernel(driver, t % ranks, launch, {{chunks[t], Access::read_write}});
        }
      }
    }
    // The tiles side by side in one region on the driver: only each box's bytes travel.
    const std::uint64_t tile_shape[1] = {tile};
    const std::uint64_t region_shape[1] = {static_cast<std::uint64_t>(tiles) * tile};
    const ChunkRef region = driver.create_chunk("region", region_shape[0] * 4, 0);
    for (int t = 0; t < tiles; ++t) {
      const std::uint64_t at[1] = {static_cast<std::uint64_t>(t) * tile};
      driver.copy_box(chunks[t], strata::memory::Box::whole(tile_shape), region,
                      strata::memory::Box::of(region_shape, at, tile_shape), 4);
    }
    // The element-wise sum of all tiles, level by level (within ranks, then a tree).
    const ChunkRef sum = driver.create_chunk("sum", tile * 4, 0);
    driver.reduce(chunks, sum, strata::memory::ReduceOp::sum, ElementType::f32);
    const std::vector<float> gathered = as_floats(driver.fetch(region));
    const std::vector<float> summed = as_floats(driver.fetch(sum));
    correct = gathered == expected;
    for (std::uint32_t i = 0; i < tile; ++i) {
      float total = 0;
      for (int t = 0; t < tiles; ++t)
        total += expected[static_cast<std::size_t>(t) * tile + i];
      correct = correct && summed[i] == total;
    }
    const strata::cluster::PlanStats stats = driver.stats();
    std::printf(
        "%d ranks x %u devices: %d tiles scaled, gathered and summed %s "
        "(%llu plan messages, %llu transfers)\n",
        ranks, devices, tiles, correct ? "correctly" : "WRONGLY",
        static_cast<unsigned long long>(stats.messages),
        static_cast<unsigned long long>(stats.transfers));
  });
  if (status != 0) return status;
  return node.rank() == 0 && !correct ? 1 : 0;
}
