// The device kernels against the host reference: the composition-vector kernel on the CPU
// device, the correlation kernel on the CPU device and on OpenCL (PoCL) when there is one.

#include "phylogeny/kernels.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "phylogeny/amino_acids.hpp"
#include "phylogeny/composition_vector.hpp"
#include "phylogeny/random.hpp"
#include "strata/base/config.hpp"
#include "strata/device/backends.hpp"

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

// Parsed residues of `proteins` random proteins; `mutated` changes a fraction of `base`.
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
}

TEST(PhylogenyKernels, CorrelationOnTheCpuDeviceMatchesTheReference) {
  auto cpu = device::make_cpu_device(device::default_block_runner());
  expect_correlations_match(*cpu);
}

TEST(PhylogenyKernels, CorrelationOnOpenClMatchesTheReference) {
  Config config;
  config.kernel_cache_dir = "off";
  std::string status;
  auto devices =
      device::discover_opencl_devices(config, std::make_shared<device::ProgramCache>(), status);
  if (devices.empty()) GTEST_SKIP() << "no OpenCL device: " << status;
  SCOPED_TRACE(devices.front()->info().name);
  expect_correlations_match(*devices.front());
}

TEST(PhylogenyKernels, CompositionVectorOnTheCpuDeviceMatchesTheHost) {
  auto cpu = device::make_cpu_device(device::default_block_runner());
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

}  // namespace
}  // namespace strata::apps::phylogeny
