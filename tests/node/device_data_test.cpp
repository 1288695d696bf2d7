// Box copies and combine steps on the device where their chunks are: tiles written by kernels on
// a device are assembled there into a region (only the region comes back to the host), copies
// planned together run as one task a device, a named device packs and unpacks boxes between
// ranks, and a reduction's partials written on a device are combined there first (only one
// accumulator per rank leaves it). CPU and OpenCL devices, plainly and under mpirun with 2 and 4
// processes.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "node_plan_support.hpp"
#include "strata/runtime/task_observer.hpp"

namespace strata::node::testing {
namespace {

using cluster::ChunkRef;
using runtime::Access;

std::vector<std::byte> floats_of(const std::vector<float>& values) {
  std::vector<std::byte> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::vector<float> as_floats(const std::vector<std::byte>& bytes) {
  std::vector<float> values(bytes.size() / 4);
  std::memcpy(values.data(), bytes.data(), values.size() * 4);
  return values;
}

KernelLaunch axpy_on(std::uint32_t device, std::uint32_t n, float a) {
  KernelLaunch launch;
  launch.kernel = "axpy";
  launch.device = device;
  launch.global = {n, 1, 1};
  launch.args = {PlannedArg::value(n), PlannedArg::value(a),
                 PlannedArg::array(0, device::ElementType::f32),
                 PlannedArg::array(1, device::ElementType::f32)};
  return launch;
}

std::uint64_t device_to_host_bytes(Node& node, std::uint32_t device) {
  const memory::MemoryStats stats = node.memory().stats();
  const auto from = node.memory().space_of(*node.devices()[device]).index;
  auto it = stats.bytes_moved.find({from, node.memory().host().index});
  return it == stats.bytes_moved.end() ? 0 : it->second;
}

// y = base + a * x on `device` of `rank`, from x and y the driver writes.
ChunkRef computed_on(cluster::Driver& driver, Node& node, int rank, std::uint32_t device,
                     const std::string& name, std::uint32_t n, float base) {
  std::vector<float> x(n), y(n, base);
  for (std::uint32_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(i % 7);
  const ChunkRef xs = driver.create_chunk(name + " x", n * 4, rank);
  const ChunkRef ys = driver.create_chunk(name, n * 4, rank);
  driver.write(xs, floats_of(x));
  driver.write(ys, floats_of(y));
  node.plan_kernel(driver, rank, axpy_on(device, n, 2.0f),
                   {{xs, Access::read}, {ys, Access::read_write}});
  driver.destroy(xs);
  return ys;
}

float computed(float base, std::uint32_t i) {
  return base + 2.0f * static_cast<float>(i % 7);
}

// A 12 x 32 region assembled from four 6 x 16 tiles, tile t computed from base 100 t.
void expect_tiles_assembled(const std::vector<float>& got, const std::string& what) {
  for (std::uint32_t row = 0; row < 12; ++row)
    for (std::uint32_t column = 0; column < 32; ++column) {
      const int t = static_cast<int>((row / 6) * 2 + column / 16);
      const std::uint32_t i = (row % 6) * 16 + column % 16;
      ASSERT_EQ(got[row * 32 + column], computed(static_cast<float>(100 * t), i))
          << row << "," << column << what;
    }
}

TEST(DeviceDataKinds, TilesWrittenOnADeviceAreAssembledThereAndOnlyTheRegionComesBack) {
  cluster::Driver& driver = *the_driver;
  Node& node = *the_node;
  const auto device = static_cast<std::uint32_t>(node.devices().size() - 1);
  const std::uint64_t tile_shape[2] = {6, 16};
  const std::uint64_t region_shape[2] = {12, 32};
  constexpr std::uint32_t tile = 6 * 16;
  std::vector<ChunkRef> tiles;
  for (int t = 0; t < 4; ++t)
    tiles.push_back(computed_on(driver, node, 0, device, "tile " + std::to_string(t), tile,
                                static_cast<float>(100 * t)));
  // The first copy names the device; the others follow the chunks' last writers there.
  const ChunkRef region = driver.create_chunk("region on a device", 12 * 32 * 4, 0);
  driver.wait_all();
  const std::uint64_t before = device_to_host_bytes(node, device);
  for (int t = 0; t < 4; ++t) {
    const std::uint64_t at[2] = {static_cast<std::uint64_t>(t / 2) * 6,
                                 static_cast<std::uint64_t>(t % 2) * 16};
    driver.copy_box(tiles[t], memory::Box::whole(tile_shape), region,
                    memory::Box::of(region_shape, at, tile_shape), 4,
                    t == 0 ? static_cast<int>(device) : -1);
  }
  const std::vector<float> got = as_floats(driver.fetch(region));
  EXPECT_EQ(device_to_host_bytes(node, device) - before, 12u * 32 * 4)
      << "the tiles stayed on the device";
  expect_tiles_assembled(got, "");
  driver.wait_all();
}

// Box copies planned together (Driver::copy_boxes): one operation; its copies run where their
// tiles were written, as one task a device (consecutive copies of one device together).
TEST(DeviceDataKinds, CopiesPlannedTogetherRunAsOneTaskOnTheDeviceOfTheirTiles) {
  cluster::Driver& driver = *the_driver;
  Node& node = *the_node;
  const auto last = static_cast<std::uint32_t>(node.devices().size() - 1);
  const std::uint64_t tile_shape[2] = {6, 16};
  const std::uint64_t region_shape[2] = {12, 32};
  constexpr std::uint32_t tile = 6 * 16;
  // All four tiles on the last device; then the first two on device 0, the others on the last.
  for (const bool split : {false, true}) {
    std::vector<ChunkRef> tiles;
    for (std::uint32_t t = 0; t < 4; ++t) {
      tiles.push_back(computed_on(driver, node, 0, split && t < 2 ? 0 : last,
                                  "tile " + std::to_string(t), tile, static_cast<float>(100 * t)));
    }
    const ChunkRef region = driver.create_chunk("region of copies", 12 * 32 * 4, 0);
    std::vector<cluster::BoxCopyRequest> copies;
    for (int t = 0; t < 4; ++t) {
      const std::uint64_t at[2] = {static_cast<std::uint64_t>(t / 2) * 6,
                                   static_cast<std::uint64_t>(t % 2) * 16};
      copies.push_back({tiles[t], memory::Box::whole(tile_shape), region,
                        memory::Box::of(region_shape, at, tile_shape), 4});
    }
    driver.wait_all();
    const std::uint64_t before = device_to_host_bytes(node, last);
    const cluster::PlanStats planned = driver.stats();
    driver.copy_boxes(copies);
    EXPECT_EQ(driver.stats().operations - planned.operations, 1u);
    driver.wait_all();
    const std::vector<float> got = as_floats(driver.fetch(region));
    if (!split) {
      EXPECT_EQ(device_to_host_bytes(node, last) - before, 12u * 32 * 4)
          << "the tiles stayed on the device";
    }
    expect_tiles_assembled(got, split ? ", tiles on two devices" : "");
    for (ChunkRef chunk : tiles)
      driver.destroy(chunk);
    driver.destroy(region);
  }
  driver.wait_all();
}

// The names of the tasks that finish on this rank while it lives.
class FinishedTasks final : public runtime::TaskObserver {
 public:
  void on_finish(std::string_view name, std::uint64_t, runtime::TaskStatus) override {
    std::lock_guard guard(lock_);
    names_.emplace_back(name);
  }
  std::vector<std::string> names() {
    std::lock_guard guard(lock_);
    return names_;
  }

 private:
  std::mutex lock_;
  std::vector<std::string> names_;
};

// Copies from four 6 MiB tiles on a 16 MiB device: together their chunks do not fit it, so they
// run there in parts that do (not all on the host).
TEST(DeviceDataKinds, CopiesWhoseChunksDoNotFitTheDeviceTogetherRunThereInParts) {
  cluster::Driver& driver = *the_driver;
  Node& node = *the_node;
  const auto last = static_cast<std::uint32_t>(node.devices().size() - 1);
  constexpr std::uint32_t tile = 6u << 18;  // floats: 6 MiB
  std::vector<ChunkRef> tiles;
  for (std::uint32_t t = 0; t < 4; ++t) {
    tiles.push_back(computed_on(driver, node, 0, last, "large tile " + std::to_string(t), tile,
                                static_cast<float>(100 * t)));
  }
  const ChunkRef region = driver.create_chunk("firsts of the large tiles", 4 * 16 * 4, 0);
  std::vector<cluster::BoxCopyRequest> copies;
  const std::uint64_t tile_shape[1] = {tile}, region_shape[1] = {64}, sixteen[1] = {16};
  for (std::uint64_t t = 0; t < 4; ++t) {
    const std::uint64_t zero[1] = {0}, at[1] = {16 * t};
    copies.push_back({tiles[t], memory::Box::of(tile_shape, zero, sixteen), region,
                      memory::Box::of(region_shape, at, sixteen), 4});
  }
  driver.wait_all();
  auto finished = std::make_shared<FinishedTasks>();
  node.runtime().add_observer(finished);
  driver.copy_boxes(copies);
  const std::vector<float> got = as_floats(driver.fetch(region));
  driver.wait_all();
  node.runtime().remove_observer(finished.get());
  for (std::uint32_t t = 0; t < 4; ++t)
    for (std::uint32_t i = 0; i < 16; ++i)
      ASSERT_EQ(got[t * 16 + i], computed(static_cast<float>(100 * t), i)) << t << "," << i;
  int on_device = 0, parts_joined = 0;
  for (const std::string& name : finished->names()) {
    if (name.starts_with("copy ") && name.ends_with(" on " + node.devices()[last]->info().id))
      ++on_device;
    if (name.starts_with("copied 4 boxes in ")) ++parts_joined;
  }
  EXPECT_GE(on_device, 2);
  EXPECT_EQ(parts_joined, 1);
  for (ChunkRef chunk : tiles)
    driver.destroy(chunk);
  driver.destroy(region);
  driver.wait_all();
}

TEST(DeviceDataKinds, ANamedDevicePacksAndUnpacksStridedBoxesBetweenRanks) {
  cluster::Driver& driver = *the_driver;
  Node& node = *the_node;
  const int ranks = driver.size();
  const auto device = static_cast<int>(node.devices().size() - 1);
  // Every other element of each rank's 8 x 10 chunk into a 4 x 5 block of a 4 x (5 ranks)
  // region on the last rank.
  const std::uint64_t source_shape[2] = {8, 10};
  const std::uint64_t region_shape[2] = {4, static_cast<std::uint64_t>(5 * ranks)};
  const std::uint64_t block[2] = {4, 5};
  const ChunkRef region = driver.create_chunk(
      "strided region", 4 * 5 * static_cast<std::uint64_t>(ranks) * 4, ranks - 1);
  driver.write(region, floats_of(std::vector<float>(4 * 5 * static_cast<std::size_t>(ranks))));
  std::vector<std::vector<float>> sources;
  for (int r = 0; r < ranks; ++r) {
    std::vector<float> values(80);
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = static_cast<float>(1000 * r + static_cast<int>(i));
    const ChunkRef source = driver.create_chunk("source " + std::to_string(r), 80 * 4, r);
    driver.write(source, floats_of(values));
    memory::Box strided = memory::Box::whole(source_shape);
    strided.extent = {4, 5, 1};
    strided.step = {2, 2, 1};
    const std::uint64_t at[2] = {0, static_cast<std::uint64_t>(5 * r)};
    driver.copy_box(source, strided, region, memory::Box::of(region_shape, at, block), 4, device);
    sources.push_back(std::move(values));
  }
  const std::vector<float> got = as_floats(driver.fetch(region));
  for (int r = 0; r < ranks; ++r)
    for (std::size_t i = 0; i < 4; ++i)
      for (std::size_t j = 0; j < 5; ++j)
        ASSERT_EQ(
            got[i * 5 * static_cast<std::size_t>(ranks) + static_cast<std::size_t>(5 * r) + j],
            sources[r][(2 * i) * 10 + 2 * j])
            << "rank " << r << " element " << i << "," << j;
  EXPECT_THROW(driver.copy_box(region, memory::Box::whole(region_shape), region,
                               memory::Box::whole(region_shape), 4, device),
               Error)
      << "a chunk copied into itself";
  driver.wait_all();
}

TEST(DeviceDataKinds, PartialsWrittenOnADeviceAreCombinedThereFirst) {
  cluster::Driver& driver = *the_driver;
  Node& node = *the_node;
  const int ranks = driver.size();
  const auto device = static_cast<std::uint32_t>(node.devices().size() - 1);
  constexpr std::uint32_t n = 4096;
  for (const memory::ReduceOp op : {memory::ReduceOp::sum, memory::ReduceOp::max}) {
    std::vector<ChunkRef> partials;
    std::vector<float> bases;
    for (int p = 0; p < 3 * ranks; ++p) {
      bases.push_back(static_cast<float>((p * 5) % 11));
      partials.push_back(computed_on(driver, node, p % ranks, device,
                                     "partial " + std::to_string(p), n, bases.back()));
    }
    driver.wait_all();
    const std::uint64_t before = device_to_host_bytes(node, device);
    const ChunkRef result = driver.create_chunk("combined on devices", n * 4, 0);
    driver.reduce(partials, result, op, device::ElementType::f32);
    const std::vector<float> got = as_floats(driver.fetch(result));
    EXPECT_EQ(device_to_host_bytes(node, device) - before, n * 4u)
        << "rank 0's three partials are combined on its device; one chunk comes back";
    for (std::uint32_t i = 0; i < n; ++i) {
      float expected = computed(bases[0], i);
      for (std::size_t p = 1; p < bases.size(); ++p) {
        const float v = computed(bases[p], i);
        expected = op == memory::ReduceOp::sum ? expected + v : std::max(expected, v);
      }
      ASSERT_EQ(got[i], expected) << memory::to_string(op) << " element " << i;
    }
    driver.destroy(result);
    for (const ChunkRef& partial : partials)
      driver.destroy(partial);
  }
  driver.wait_all();
}

}  // namespace
}  // namespace strata::node::testing
