// The four conformance kernels (vector add, block reduction, 2-D stencil, tiled matmul) and fills
// on the first CUDA device against a host reference. Label gpu: skipped without a CUDA device.

#include <numeric>

#include "conformance_kernels.hpp"
#include "fill_check.hpp"
#include "gpu_device.hpp"

namespace strata::device {
namespace {

using namespace testing;

Event run(const CompiledKernel& kernel, const LaunchGeometry& geometry, const KernelArgs& args) {
  return gpu().queue(QueueKind::compute).launch(kernel, geometry, args);
}

TEST(CudaConformance, VectorAdd) {
  STRATA_REQUIRE_CUDA_DEVICE();
  constexpr std::uint32_t n = 100'003;
  const auto a = random_floats(n, 1), b = random_floats(n, 2);
  auto kernel = gpu().compile(vector_add_kernel());
  DeviceBuffer da = upload(gpu(), a), db = upload(gpu(), b);
  DeviceBuffer dc = gpu().allocate(n * sizeof(float));
  Event done = run(*kernel, LaunchGeometry{Dim3{n}, Dim3{128}, 1},
                   {KernelArg::value(n), KernelArg::array<float>(da), KernelArg::array<float>(db),
                    KernelArg::array<float>(dc)});
  const auto c = download<float>(gpu(), dc, n, std::span(&done, 1));
  for (std::uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(c[i], a[i] + b[i]) << "element " << i;
}

TEST(CudaConformance, Fill) {
  STRATA_REQUIRE_CUDA_DEVICE();
  check_fill(gpu());
}

TEST(CudaConformance, BlockReduction) {
  STRATA_REQUIRE_CUDA_DEVICE();
  constexpr std::uint32_t n = 1'000'000;
  std::vector<std::uint32_t> input(n);
  std::mt19937 engine(3);
  for (auto& v : input)
    v = engine() % 1000;
  const std::uint32_t blocks = (n + reduction_block - 1) / reduction_block;
  auto kernel = gpu().compile(block_sum_kernel());
  DeviceBuffer din = upload(gpu(), input);
  DeviceBuffer partial = gpu().allocate(blocks * sizeof(std::uint64_t));
  Event done =
      run(*kernel,
          LaunchGeometry{Dim3{std::uint64_t{blocks} * reduction_block}, Dim3{reduction_block}, 1},
          {KernelArg::value(n), KernelArg::array<std::uint32_t>(din),
           KernelArg::array<std::uint64_t>(partial)});
  const auto sums = download<std::uint64_t>(gpu(), partial, blocks, std::span(&done, 1));
  EXPECT_EQ(std::accumulate(sums.begin(), sums.end(), std::uint64_t{0}),
            std::accumulate(input.begin(), input.end(), std::uint64_t{0}));
}

TEST(CudaConformance, Stencil2d) {
  STRATA_REQUIRE_CUDA_DEVICE();
  constexpr std::uint32_t w = 300, h = 201;
  const auto in = random_floats(std::size_t{w} * h, 4);
  std::vector<float> expected(in);
  for (std::uint32_t y = 1; y + 1 < h; ++y)
    for (std::uint32_t x = 1; x + 1 < w; ++x) {
      const std::size_t i = std::size_t{y} * w + x;
      expected[i] = (in[i] + in[i - 1] + in[i + 1] + in[i - w] + in[i + w]) / 5.0f;
    }
  auto kernel = gpu().compile(stencil_2d_kernel());
  DeviceBuffer din = upload(gpu(), in);
  DeviceBuffer dout = gpu().allocate(in.size() * sizeof(float));
  Event done = run(*kernel, LaunchGeometry{Dim3{w, h}, Dim3{16, 16}, 2},
                   {KernelArg::value(w), KernelArg::value(h), KernelArg::array<float>(din),
                    KernelArg::array<float>(dout)});
  const auto out = download<float>(gpu(), dout, in.size(), std::span(&done, 1));
  for (std::size_t i = 0; i < out.size(); ++i)
    ASSERT_NEAR(out[i], expected[i], 1e-6f) << "element " << i;
}

TEST(CudaConformance, TiledMatmul) {
  STRATA_REQUIRE_CUDA_DEVICE();
  constexpr std::uint32_t n = 100;
  const auto a = random_floats(std::size_t{n} * n, 5), b = random_floats(std::size_t{n} * n, 6);
  std::vector<double> expected(std::size_t{n} * n, 0.0);
  for (std::uint32_t r = 0; r < n; ++r)
    for (std::uint32_t k = 0; k < n; ++k)
      for (std::uint32_t c = 0; c < n; ++c)
        expected[r * n + c] += double{a[r * n + k]} * b[k * n + c];
  auto kernel = gpu().compile(matmul_kernel());
  DeviceBuffer da = upload(gpu(), a), db = upload(gpu(), b);
  DeviceBuffer dc = gpu().allocate(a.size() * sizeof(float));
  Event done = run(*kernel, LaunchGeometry{Dim3{n, n}, Dim3{matmul_tile, matmul_tile}, 2},
                   {KernelArg::value(n), KernelArg::array<float>(da), KernelArg::array<float>(db),
                    KernelArg::array<float>(dc)});
  const auto c = download<float>(gpu(), dc, a.size(), std::span(&done, 1));
  for (std::size_t i = 0; i < c.size(); ++i)
    ASSERT_NEAR(c[i], expected[i], 1e-4) << "element " << i;
}

}  // namespace
}  // namespace strata::device
