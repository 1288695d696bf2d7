// The lightning paper's stencil (Figs. 6 and 7) as a distributed kernel (docs/arrays.md): the
// CUDA kernel's three changes, the same kernel in OpenCL C and C++, and a host program that runs
// it over an array cut into tiles with halos, on every device of every rank, and checks the
// result against the same iterations done sequentially.
//
//   example_array_stencil                          # a cluster of one
//   strata launch -n 2 -- example_array_stencil    # two processes, rank 0 is the driver

#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "strata/array/arrays.hpp"

using strata::array::Argument;
using strata::array::Array;
using strata::array::ArrayKernel;
using strata::array::Arrays;
using strata::array::Distribution;
using strata::array::Grid;
using strata::array::WorkDistribution;
using strata::device::CpuBlock;
using strata::device::KernelDefinition;
using strata::device::KernelStyle;
using strata::device::ParamAccess;

namespace {

// [stencil kernel]
// Fig. 7: __global__ became __device__, the block index is a parameter, pointers are arrays.
const char* stencil_cuda = R"(
__device__ void stencil(dim3 virtBlockIdx, int n, strata::Vector<float> output,
                        const strata::Vector<const float> input) {
  int i = blockDim.x * virtBlockIdx.x + threadIdx.x;
  if (i >= n) return;
  float left = i - 1 >= 0 ? input[i - 1] : 0;
  float mid = input[i];
  float right = i + 1 < n ? input[i + 1] : 0;
  output[i] = (left + mid + right) / 3.0f;
})";

const char* stencil_opencl = R"(
void stencil(uint3 virtBlockIdx, int n, __global float* output, __global const float* input) {
  const int i = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  if (i >= n) return;
  const float left = i - 1 >= 0 ? input[i - 1] : 0.0f;
  const float right = i + 1 < n ? input[i + 1] : 0.0f;
  output[i] = (left + input[i] + right) / 3.0f;
})";

ArrayKernel stencil_kernel() {
  KernelDefinition definition("stencil");
  definition.scalar<int>("n")
      .array<float>("output", ParamAccess::write)
      .array<float>("input", ParamAccess::read)
      .cpu([](const CpuBlock& block) {  // global indices, as the GPU kernels use them
        const auto n = static_cast<std::uint64_t>(block.scalar<int>(0));
        const auto output = block.global_array<float>(1);
        const auto input = block.global_array<float>(2);
        for (std::uint64_t i = block.begin.x; i < block.end.x && i < n; ++i) {
          const float left = i >= 1 ? input(i - 1) : 0.0f;
          const float right = i + 1 < n ? input(i + 1) : 0.0f;
          output(i) = (left + input(i) + right) / 3.0f;
        }
      })
      .opencl(stencil_opencl, KernelStyle::virtual_blocks)
      .cuda(stencil_cuda, KernelStyle::virtual_blocks);
  // Thread i writes output[i] and reads input[i-1] to input[i+1].
  return ArrayKernel(definition, "global i => write output[i], read input[i-1:i+1]");
}
// [end]

std::vector<float> sequential(std::vector<float> values, int iterations) {
  std::vector<float> next(values.size());
  const std::size_t n = values.size();
  for (int it = 0; it < iterations; ++it) {
    for (std::size_t i = 0; i < n; ++i) {
      const float left = i >= 1 ? values[i - 1] : 0.0f;
      const float right = i + 1 < n ? values[i + 1] : 0.0f;
      next[i] = (left + values[i] + right) / 3.0f;
    }
    std::swap(values, next);
  }
  return values;
}

}  // namespace

int main(int argc, char** argv) {
  // [host program]
  strata::node::Node node(argc, argv);
  const std::vector<ArrayKernel> kernels{stencil_kernel()};
  Arrays::prepare(node, kernels);  // every rank defines the same kernels
  constexpr int n = 100000;
  constexpr int iterations = 8;  // and two more on any device
  std::vector<float> initial(n);
  for (int i = 0; i < n; ++i)
    initial[static_cast<std::size_t>(i)] = static_cast<float>(i % 100);
  std::vector<float> result;
  strata::array::LaunchStats planned;
  const int status = node.program().run([&](strata::cluster::Driver& driver) {
    Arrays arrays(node, driver);
    // Tiles of 10,240 elements (a superblock's 40 blocks of 256 threads) with a halo of 1 on
    // each side, over every device of every rank: each superblock uses its tile directly.
    const Distribution tiles = Distribution::stencil({10240}, {1});
    Array a = arrays.from_host<float>("a", {n}, tiles, initial);
    Array b = arrays.create("b", strata::device::ElementType::f32, {n}, tiles);
    for (int it = 0; it < iterations; ++it) {  // each launch returns once planned
      arrays.launch(kernels[0], Grid{{n}, {256}}, WorkDistribution::tiled({40}),
                    {Argument::value(n), b, a});
      std::swap(a, b);
    }
    // Two more, each superblock on whichever device of its rank the placement policy picks.
    for (int it = 0; it < 2; ++it) {
      arrays.launch(kernels[0], Grid{{n}, {256}}, WorkDistribution::tiled({40}).on_any_device(8),
                    {Argument::value(n), b, a});
      std::swap(a, b);
    }
    result = arrays.read_as<float>(a);  // waits for the launches that write it
    planned = arrays.stats();
    arrays.destroy(a);
    arrays.destroy(b);
  });
  // [end]
  if (status != 0 || node.rank() != 0) return status;
  const std::vector<float> expected = sequential(initial, iterations + 2);
  double worst = 0;
  for (std::size_t i = 0; i < expected.size(); ++i)
    worst = std::max(worst, std::fabs(static_cast<double>(result[i] - expected[i])));
  std::printf(
      "%d ranks x %zu devices: %d stencil iterations over %d elements, largest error %.2g "
      "(%s)\n",
      node.size(), node.devices().size(), iterations + 2, n, worst,
      worst < 1e-3 ? "correct" : "WRONG");
  std::printf(
      "planned: %llu superblocks, %llu direct uses, %llu assembled regions, %llu box copies\n",
      static_cast<unsigned long long>(planned.superblocks),
      static_cast<unsigned long long>(planned.direct_uses),
      static_cast<unsigned long long>(planned.assembled_regions),
      static_cast<unsigned long long>(planned.box_copies));
  return worst < 1e-3 ? 0 : 1;
}
