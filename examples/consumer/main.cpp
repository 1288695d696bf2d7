// A program built outside Strata's tree against an installed Strata: a task graph on the runtime,
// a radix sort with the device primitives and a planned job on the node's program, each checked
// against a plain computation.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "strata/device/backends.hpp"
#include "strata/node/node.hpp"
#include "strata/primitives/device_primitives.hpp"
#include "strata/runtime/runtime.hpp"

using strata::runtime::Access;

namespace {

// Eight tasks square blocks of numbers and reduce them into one total.
bool runtime_sum_of_squares() {
  strata::runtime::Runtime rt;
  constexpr int blocks = 8;
  std::vector<std::vector<long>> values(blocks, std::vector<long>(1000));
  long total = 0;
  const auto total_data = rt.create_data("total", sizeof total);
  for (int b = 0; b < blocks; ++b) {
    const auto block = rt.create_data("block " + std::to_string(b), 8000);
    rt.spawn(strata::runtime::TaskSpec("fill").writes(block),
             [&values, b] { std::iota(values[b].begin(), values[b].end(), 1000L * b); });
    rt.spawn(strata::runtime::TaskSpec("sum").reads(block).reduces(total_data),
             [&values, &total, b] {
               for (long x : values[b])
                 total += x * x;
             });
  }
  rt.wait_all();
  long expected = 0;
  for (long x = 0; x < 8000; ++x)
    expected += x * x;
  std::printf("runtime: sum of squares %ld (expected %ld)\n", total, expected);
  return total == expected;
}

// Ten thousand keys sorted on the CPU device by the primitives' radix sort.
bool primitives_sort() {
  auto device = strata::device::make_cpu_device(strata::device::default_block_runner());
  std::vector<std::uint32_t> keys(10'000);
  for (std::size_t i = 0; i < keys.size(); ++i)
    keys[i] = static_cast<std::uint32_t>((i * 2654435761u) % 1000);
  const std::size_t bytes = keys.size() * sizeof keys[0];
  auto buffer = device->allocate(bytes);
  using strata::device::QueueKind;
  device->queue(QueueKind::host_to_device).copy_to_device(buffer, 0, keys.data(), bytes).wait();
  {
    strata::primitives::DevicePrimitives primitives(*device);
    primitives.radix_sort(strata::primitives::span_of<std::uint32_t>(buffer, keys.size()), {})
        .wait();
  }
  std::vector<std::uint32_t> sorted(keys.size());
  device->queue(QueueKind::device_to_host).copy_to_host(sorted.data(), buffer, 0, bytes).wait();
  std::sort(keys.begin(), keys.end());
  std::printf("primitives: 10000 keys radix-sorted (%s)\n", sorted == keys ? "right" : "WRONG");
  return sorted == keys;
}

}  // namespace

int main(int argc, char** argv) {
  if (!runtime_sum_of_squares()) return 1;
  if (!primitives_sort()) return 1;
  strata::node::Node node(argc, argv);
  strata::cluster::Program& program = node.program();
  program.define("fill", [](strata::cluster::OperationContext& context) {
    const int value = context.args<int>();
    for (int& x : context.chunk_as<int>(0))
      x = value;
  });
  return program.run([](strata::cluster::Driver& driver) {
    std::vector<strata::cluster::ChunkRef> chunks;
    for (int c = 0; c < 4; ++c) {
      chunks.push_back(
          driver.create_chunk("chunk " + std::to_string(c), 4 * 256, c % driver.size()));
      driver.run_with(c % driver.size(), "fill", {{chunks.back(), Access::write}}, c + 1);
    }
    long sum = 0;
    for (const auto& chunk : chunks) {
      const std::vector<std::byte> bytes = driver.fetch(chunk);
      const auto* ints = reinterpret_cast<const int*>(bytes.data());
      for (int i = 0; i < 256; ++i)
        sum += ints[i];
    }
    std::printf("cluster: %d ranks, sum %ld (expected %d)\n", driver.size(), sum, 256 * 10);
    if (sum != 256 * 10) throw strata::Error("the planned job's sum is wrong");
  });
}
