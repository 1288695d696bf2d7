// The device kernels against the host reference: the composition-vector kernel on the CPU
// device, the correlation kernel on the CPU device and on OpenCL (PoCL) when there is one.

#include "phylogeny/kernels.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "phylogeny/amino_acids.hpp"
#include "phylogeny/composition_vector.hpp"
#include "phylogeny/parallel_vector_kernels.hpp"
#include "phylogeny/random.hpp"
#include "single_device_context.hpp"
#include "strata/device/backends.hpp"
#include "strata/memory/memory_manager.hpp"
#include "test_devices.hpp"

namespace strata::apps::phylogeny {
namespace {

using device::Device;
using device::KernelArg;

template <typename T>
device::DeviceBuffer upload(Device& device, const std::vector<T>& values) {
  device::DeviceBuffer buffer =
      device.allocate(std::max<std::size_t>(values.size(), 1) * sizeof(T));
  device.queue(device::QueueKind::host_to_device)
      .copy_to_device(buffer, 0, values.data(), values.size() * sizeof(T))
      .wait();
  return buffer;
}

template <typename T>
std::vector<T> download(Device& device, const device::DeviceBuffer& buffer, std::size_t count,
                        const device::Event& after) {
  std::vector<T> values(count);
  device.queue(device::QueueKind::device_to_host)
      .copy_to_host(values.data(), buffer, 0, count * sizeof(T), std::span(&after, 1))
      .wait();
  return values;
}

// Parsed residues of `proteins` random proteins.
std::vector<std::uint8_t> random_residues(std::uint64_t seed, int proteins) {
  Random random(seed);
  std::vector<std::uint8_t> out;
  for (int p = 0; p < proteins; ++p) {
    const auto length = random.between(30, 200);
    for (std::uint64_t i = 0; i < length; ++i)
      out.push_back(static_cast<std::uint8_t>(random.below(amino_acid_count)));
    out.push_back(protein_separator);
  }
  return out;
}

// `residues` with a fraction of them replaced at random.
std::vector<std::uint8_t> mutated(std::vector<std::uint8_t> residues, std::uint64_t seed,
                                  double fraction) {
  Random random(seed);
  for (auto& r : residues)
    if (r < amino_acid_count && random.uniform() < fraction)
      r = static_cast<std::uint8_t>(random.below(amino_acid_count));
  return residues;
}

std::vector<std::uint32_t> host_vector(const std::vector<std::uint8_t>& residues, int k) {
  std::vector<std::uint32_t> words(max_vector_bytes(k, residues.size()) / 4);
  build_composition_vector(residues, k, words);
  return words;
}

// The sum of the correlation kernel's partial sums on `device`.
double device_correlation(Device& device, const std::vector<std::uint32_t>& left,
                          const std::vector<std::uint32_t>& right) {
  auto kernel = device.compile(correlation_kernel());
  auto a = upload(device, left);
  auto b = upload(device, right);
  auto partial = device.allocate(correlation_groups * sizeof(float));
  const device::LaunchGeometry geometry{
      device::Dim3{std::uint64_t{correlation_groups} * correlation_group_size},
      device::Dim3{correlation_group_size}, 1};
  const device::Event done =
      device.queue(device::QueueKind::compute)
          .launch(*kernel, geometry,
                  {KernelArg::array<std::uint32_t>(a), KernelArg::array<std::uint32_t>(b),
                   KernelArg::array<float>(partial)});
  const auto sums = download<float>(device, partial, correlation_groups, done);
  return std::accumulate(sums.begin(), sums.end(), 0.0);
}

void expect_correlations_match(Device& device) {
  const auto base = random_residues(1, 60);
  const auto near = host_vector(mutated(base, 2, 0.1), 5);
  const auto far = host_vector(mutated(base, 3, 0.5), 5);
  const auto small = host_vector(random_residues(4, 3), 5);
  const auto self = host_vector(base, 5);
  const std::vector<std::uint32_t> empty = {0, 5};
  for (const auto* left : {&self, &near, &far, &small, &empty}) {
    for (const auto* right : {&self, &near, &far, &small, &empty}) {
      const double expected = vector_correlation(*left, *right);
      EXPECT_NEAR(device_correlation(device, *left, *right), expected, 1e-5);
    }
  }
  EXPECT_NEAR(device_correlation(device, self, self), 1.0, 1e-5);
  EXPECT_GT(device_correlation(device, self, near), device_correlation(device, self, far));
  // Vectors of ~70,000 entries: each thread merges a run of several keys, and a short vector's
  // run spans long stretches of the other.
  const auto large_base = random_residues(6, 600);
  const auto large = host_vector(large_base, 5);
  const auto large_near = host_vector(mutated(large_base, 7, 0.2), 5);
  for (const auto& [left, right] : {std::pair{&large, &large_near}, std::pair{&large, &small},
                                    std::pair{&small, &large}, std::pair{&self, &large_near}}) {
    EXPECT_NEAR(device_correlation(device, *left, *right), vector_correlation(*left, *right), 1e-5);
  }
  EXPECT_NEAR(device_correlation(device, large, large), 1.0, 1e-5);
}

TEST(PhylogenyKernels, CorrelationOnTheCpuDeviceMatchesTheReference) {
  auto cpu = testing::make_cpu_test_device();
  expect_correlations_match(*cpu);
}

TEST(PhylogenyKernels, CorrelationOnOpenClMatchesTheReference) {
  PHYLOGENY_REQUIRE_OPENCL(device);
  SCOPED_TRACE(device.info().name);
  expect_correlations_match(device);
}

TEST(PhylogenyKernels, SortingKernelOnTheCpuDeviceMatchesTheHost) {
  auto cpu = testing::make_cpu_test_device();
  auto kernel = cpu->compile(composition_vector_kernel());
  const auto residues = random_residues(9, 40);
  const auto expected = host_vector(residues, 4);
  auto parsed = upload(*cpu, residues);
  auto vector = cpu->allocate(expected.size() * sizeof(std::uint32_t));
  const device::Event done =
      cpu->queue(device::QueueKind::compute)
          .launch(
              *kernel, device::LaunchGeometry{device::Dim3{1}, device::Dim3{1}, 1},
              {KernelArg::value(std::uint32_t{4}), KernelArg::value(std::uint64_t{residues.size()}),
               KernelArg::array<std::uint8_t>(parsed), KernelArg::array<std::uint32_t>(vector),
               KernelArg::value(std::uint64_t{expected.size()})});
  const auto words = download<std::uint32_t>(*cpu, vector, 2 + 2 * std::size_t{expected[0]}, done);
  EXPECT_EQ(words, std::vector<std::uint32_t>(
                       expected.begin(), expected.begin() + 2 + 2 * std::ptrdiff_t{expected[0]}));
}

// The five parallel kernels on `device` for parsed `residues` (padded and with room for the
// scratch, as parse() makes them) must give the host's vector: the same keys, values within
// float rounding.
void expect_parallel_vector_matches(Device& device, const std::vector<std::uint8_t>& residues,
                                    int k) {
  SCOPED_TRACE(::testing::Message() << "k " << k << " on " << device.info().id);
  std::vector<std::uint8_t> parsed(parsed_bytes_with_scratch(k, residues.size()), 0xA5);
  const std::uint64_t padded = residues_in_parsed(k, parsed.size());
  ASSERT_EQ(padded % scratch_alignment, 0u);
  ASSERT_GE(padded, residues.size());
  ASSERT_LT(padded, residues.size() + scratch_alignment);
  std::copy(residues.begin(), residues.end(), parsed.begin());
  std::fill(parsed.begin() + static_cast<std::ptrdiff_t>(residues.size()),
            parsed.begin() + static_cast<std::ptrdiff_t>(padded), protein_separator);
  const auto expected = host_vector(residues, k);

  auto parsed_buffer = upload(device, parsed);
  auto item_buffer = device.allocate(expected.size() * sizeof(std::uint32_t));
  memory::ChunkView parsed_view;
  parsed_view.bytes = parsed.size();
  parsed_view.buffer = &parsed_buffer;
  memory::ChunkView item_view;
  item_view.bytes = expected.size() * sizeof(std::uint32_t);
  item_view.buffer = &item_buffer;
  testing::SingleDeviceContext context(device);
  const device::Event done = launch_parallel_composition_vector(context, ParallelVectorKernels(), k,
                                                                parsed_view, padded, item_view);
  const auto words = download<std::uint32_t>(device, item_buffer, expected.size(), done);
  ASSERT_EQ(words[0], expected[0]);
  EXPECT_EQ(words[1], static_cast<std::uint32_t>(k));
  const auto got = vector_entries(words);
  const auto want = vector_entries(expected);
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i].key, want[i].key) << "entry " << i;
    ASSERT_NEAR(got[i].value, want[i].value, 1e-6f + 1e-5f * std::abs(want[i].value))
        << "entry " << i;
  }
  // 1 for a unit vector; 0 where every value is 0 (strings exactly as the Markov model predicts).
  EXPECT_NEAR(vector_correlation(words, words), vector_correlation(expected, expected), 1e-5);
}

TEST(PhylogenyKernels, ParallelKernelsOnTheCpuDeviceMatchTheHost) {
  auto cpu = testing::make_cpu_test_device();
  for (const int k : {3, 4, 5})
    expect_parallel_vector_matches(*cpu, random_residues(20 + static_cast<std::uint64_t>(k), 50),
                                   k);
  expect_parallel_vector_matches(*cpu, random_residues(30, 1), 3);  // short: most strings absent
  // Few distinct strings, repeated: long probe chains in the hash table.
  std::vector<std::uint8_t> repeats;
  for (int i = 0; i < 3000; ++i)
    repeats.push_back(static_cast<std::uint8_t>(i % 7 == 0 ? protein_separator : i % 3));
  expect_parallel_vector_matches(*cpu, repeats, 4);
}

TEST(PhylogenyKernels, ParallelKernelsOnOpenClMatchTheHost) {
  PHYLOGENY_REQUIRE_OPENCL(device);
  for (const int k : {3, 4, 5})
    expect_parallel_vector_matches(device, random_residues(20 + static_cast<std::uint64_t>(k), 50),
                                   k);
}

TEST(PhylogenyKernels, ParsedSizesInvert) {
  for (const int k : {3, 5, 6})
    for (const std::uint64_t residues : {0, 1, 255, 256, 257, 70'000, 1'000'000}) {
      const std::uint64_t bytes = parsed_bytes_with_scratch(k, residues);
      const std::uint64_t padded = residues_in_parsed(k, bytes);
      EXPECT_GE(padded, residues);
      EXPECT_LT(padded, residues + scratch_alignment);
      EXPECT_EQ(parsed_bytes_with_scratch(k, padded), bytes);
      EXPECT_LE(residues_in_parsed(k, bytes - 1), padded);
    }
}

}  // namespace
}  // namespace strata::apps::phylogeny
