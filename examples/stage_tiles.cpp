// Stages handed out over the ranks, region-templates style: an image in 16 tiles; per tile a
// "segment" stage whose fine-grain tasks smooth the tile into scratch, threshold it into a mask
// and count the mask's pixels; then one "total" stage that sums the counts. The driver hands the
// instances to the ranks as they become ready (docs/design-next-front-ends.md, "Stages").
// Run plainly or with `strata launch -n 4 -- example_stage_tiles`.

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "strata/cluster/stage_graph.hpp"
#include "strata/node/node.hpp"

namespace {

using strata::runtime::Access;
constexpr std::uint32_t side = 64;  // a tile is side x side floats
constexpr int tiles = 16;

float pixel(int tile, std::uint32_t i) {
  return static_cast<float>((i * 7919u + static_cast<std::uint32_t>(tile) * 104729u) % 1000u);
}

// Smooths a row-major tile over each pixel's row neighbours, then keeps what lies above 500.
std::uint32_t segment(std::span<const float> in, std::span<float> smooth, std::span<float> mask) {
  for (std::uint32_t i = 0; i < in.size(); ++i) {
    const std::uint32_t x = i % side;
    const float left = in[x > 0 ? i - 1 : i], right = in[x + 1 < side ? i + 1 : i];
    smooth[i] = (left + in[i] + right) / 3;
  }
  std::uint32_t count = 0;
  for (std::uint32_t i = 0; i < in.size(); ++i) {
    mask[i] = smooth[i] > 500 ? 1.0f : 0.0f;
    count += smooth[i] > 500 ? 1 : 0;
  }
  return count;
}

template <class T>
std::span<T> view_of(strata::runtime::ChunkStaging& staging, strata::runtime::TaskContext& task,
                     const strata::runtime::DataHandle& data) {
  const strata::memory::ChunkView view = staging.view(task, data);
  return {static_cast<T*>(view.host), view.bytes / sizeof(T)};
}

}  // namespace

int main(int argc, char** argv) {
  strata::node::Node node(argc, argv);
  strata::cluster::Program& program = node.program();
  program.define("generate", [](strata::cluster::OperationContext& context) {
    const int tile = context.args<int>();
    auto out = context.chunk_as<float>(0);
    for (std::uint32_t i = 0; i < out.size(); ++i)
      out[i] = pixel(tile, i);
  });
  // uses: tile (read), mask (write), count (write, one u32).
  program.define_stage("segment", [](strata::cluster::StageContext& stage) {
    const auto tile = stage.chunk(0), mask = stage.chunk(1), count = stage.chunk(2);
    const auto smooth = stage.scratch("smooth", stage.bytes(0));
    // The context lives while the body runs; the tasks keep what outlives it (the staging).
    strata::runtime::ChunkStaging& staging = stage.staging();
    stage.submit(strata::runtime::TaskSpec("smooth and threshold")
                     .reads(tile)
                     .writes(smooth)
                     .writes(mask)
                     .writes(count),
                 [&staging, tile, smooth, mask, count](strata::runtime::TaskContext& task) {
                   view_of<std::uint32_t>(staging, task, count)[0] = segment(
                       view_of<const float>(staging, task, tile),
                       view_of<float>(staging, task, smooth), view_of<float>(staging, task, mask));
                 });
  });
  // uses: total (write, one u64), then every tile's count (read).
  program.define_stage("total", [](strata::cluster::StageContext& stage) {
    strata::runtime::TaskSpec spec("sum the counts");
    spec.writes(stage.chunk(0));
    for (std::size_t i = 1; i < stage.chunk_count(); ++i)
      spec.reads(stage.chunk(i));
    strata::runtime::ChunkStaging& staging = stage.staging();
    std::vector<strata::runtime::DataHandle> data;
    for (std::size_t i = 0; i < stage.chunk_count(); ++i)
      data.push_back(stage.chunk(i));
    stage.submit(std::move(spec), [&staging, data](strata::runtime::TaskContext& task) {
      std::uint64_t sum = 0;
      for (std::size_t i = 1; i < data.size(); ++i)
        sum += view_of<std::uint32_t>(staging, task, data[i])[0];
      view_of<std::uint64_t>(staging, task, data[0])[0] = sum;
    });
  });

  return program.run([](strata::cluster::Driver& driver) {
    strata::cluster::StageGraph graph;
    std::vector<strata::cluster::Use> total_uses;
    const auto total = driver.create_chunk("total", sizeof(std::uint64_t));
    total_uses.push_back({total, Access::write});
    std::uint64_t expected = 0;
    for (int t = 0; t < tiles; ++t) {
      const int home = t % driver.size();
      const auto tile = driver.create_chunk("tile " + std::to_string(t), side * side * 4, home);
      const auto mask = driver.create_chunk("mask " + std::to_string(t), side * side * 4, home);
      const auto count = driver.create_chunk("count " + std::to_string(t), 4, home);
      driver.run_with(home, "generate", {{tile, Access::write}}, t);
      graph.add({"segment",
                 {{tile, Access::read}, {mask, Access::write}, {count, Access::write}},
                 {},
                 "segment tile " + std::to_string(t)});
      total_uses.push_back({count, Access::read});
      std::vector<float> in(side * side), smooth(in.size()), out(in.size());
      for (std::uint32_t i = 0; i < in.size(); ++i)
        in[i] = pixel(t, i);
      expected += segment(in, smooth, out);
    }
    graph.add({"total", total_uses, {}, "total"});
    const strata::cluster::HandOutReport report = strata::cluster::hand_out(driver, graph);
    std::uint64_t counted = 0;
    const std::vector<std::byte> bytes = driver.fetch(total);
    std::memcpy(&counted, bytes.data(), sizeof counted);
    std::printf("%d ranks, %d tiles: %llu foreground pixels in %.3f s (%s)\n", driver.size(), tiles,
                static_cast<unsigned long long>(counted), report.seconds,
                counted == expected ? "correct" : "WRONG");
    for (int r = 0; r < driver.size(); ++r)
      std::printf("  rank %d ran %zu stage instances\n", r,
                  report.per_rank[static_cast<std::size_t>(r)]);
    if (counted != expected) throw std::runtime_error("the tiles' count is wrong");
  });
}
