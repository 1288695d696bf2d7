// A runnable tour of the cluster layer (docs/cluster.md): a 1-D array in blocks spread over the
// ranks, smoothed for a few steps (each block reads its neighbours, wherever they live), then
// summed on the driver and checked against the same computation done sequentially.
//
//   example_cluster_blocks                          # a cluster of one
//   strata launch -n 4 -- example_cluster_blocks    # four processes, rank 0 is the driver

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "strata/node/node.hpp"

using strata::cluster::ChunkRef;
using strata::cluster::Driver;
using strata::cluster::OperationContext;
using strata::runtime::Access;

namespace {
constexpr int blocks = 16;
constexpr int block_size = 1 << 14;  // doubles per block
constexpr int steps = 6;

// out = average of in and its neighbours' edge values (a tiny stencil across block edges).
void smooth(std::span<double> out, std::span<const double> in, double left, double right) {
  for (std::size_t i = 0; i < in.size(); ++i) {
    const double l = i == 0 ? left : in[i - 1];
    const double r = i + 1 == in.size() ? right : in[i + 1];
    out[i] = (l + in[i] + r) / 3.0;
  }
}
}  // namespace

int main(int argc, char** argv) {
  strata::node::Node node(argc, argv);
  strata::cluster::Program& program = node.program();
  program.define("init", [](OperationContext& context) {
    const int block = context.args<int>();
    auto out = context.chunk_as<double>(0);
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = std::sin(block * block_size + i);
  });
  // Chunks: the output block, the input block, then the left and/or right neighbour where the
  // arguments say the block has one.
  program.define("smooth", [](OperationContext& context) {
    const auto [has_left, has_right] = context.args<std::pair<bool, bool>>();
    auto in = context.chunk_as<double>(1);
    std::size_t next = 2;
    const double left = has_left ? context.chunk_as<double>(next++).back() : in.front();
    const double right = has_right ? context.chunk_as<double>(next).front() : in.back();
    smooth(context.chunk_as<double>(0), in, left, right);
  });

  return program.run([&](Driver& driver) {
    std::vector<ChunkRef> current;
    std::vector<ChunkRef> next;
    for (int b = 0; b < blocks; ++b) {
      const int home = b * driver.size() / blocks;  // contiguous ranges of blocks per rank
      const std::string name = std::string("block ").append(std::to_string(b));
      current.push_back(driver.create_chunk(name, block_size * 8, home));
      next.push_back(driver.create_chunk(name + " (next)", block_size * 8, home));
      driver.run_with(home, "init", {{current[b], Access::write}}, b);
    }
    for (int step = 0; step < steps; ++step) {
      for (int b = 0; b < blocks; ++b) {
        const int home = b * driver.size() / blocks;
        const bool has_left = b > 0;
        const bool has_right = b + 1 < blocks;
        std::vector<strata::cluster::Use> uses{{next[b], Access::write},
                                               {current[b], Access::read}};
        if (has_left) uses.push_back({current[b - 1], Access::read});
        if (has_right) uses.push_back({current[b + 1], Access::read});
        driver.run_with(home, "smooth", uses, std::pair<bool, bool>(has_left, has_right));
      }
      std::swap(current, next);
    }

    // The same computation, sequentially, to check the distributed one.
    std::vector<std::vector<double>> reference(blocks, std::vector<double>(block_size));
    for (int b = 0; b < blocks; ++b) {
      for (int i = 0; i < block_size; ++i)
        reference[b][i] = std::sin(b * block_size + i);
    }
    for (int step = 0; step < steps; ++step) {
      auto out = reference;
      for (int b = 0; b < blocks; ++b) {
        const double left = b > 0 ? reference[b - 1].back() : reference[b].front();
        const double right = b + 1 < blocks ? reference[b + 1].front() : reference[b].back();
        smooth(out[b], reference[b], left, right);
      }
      reference = std::move(out);
    }
    double sum = 0;
    double expected = 0;
    for (int b = 0; b < blocks; ++b) {
      const std::vector<std::byte> bytes = driver.fetch(current[b]);
      const auto* values = reinterpret_cast<const double*>(bytes.data());
      for (int i = 0; i < block_size; ++i) {
        if (values[i] != reference[b][i]) {
          throw strata::Error("block " + std::to_string(b) + " differs from the sequential result");
        }
        sum += values[i];
        expected += reference[b][i];
      }
    }
    const auto stats = driver.stats();
    std::printf(
        "%d ranks, %d blocks, %d steps: sum %.6f (sequential %.6f), %llu transfers "
        "(%.1f MiB), %llu replicas dropped\n",
        driver.size(), blocks, steps, sum, expected,
        static_cast<unsigned long long>(stats.transfers),
        static_cast<double>(stats.bytes_transferred) / (1 << 20),
        static_cast<unsigned long long>(stats.replicas_dropped));
  });
}
