// The ported Fig. 7 stencil runs on a GPU through the generated wrapper as one worker of a
// distributed launch would: a nonzero block offset and array chunks with offsets (and halo),
// compared with the original Fig. 6 computed on the host over the whole array.

#include "gpu_device.hpp"
#include "ported_kernel.hpp"

namespace strata::device {
namespace {

using namespace testing;

// Fig. 6 on the host.
std::vector<float> reference(const std::vector<float>& input) {
  const int n = static_cast<int>(input.size());
  std::vector<float> output(input.size());
  for (int i = 0; i < n; ++i) {
    const float left = i - 1 >= 0 ? input[i - 1] : 0;
    const float right = i + 1 < n ? input[i + 1] : 0;
    output[i] = static_cast<float>((left + input[i] + right) / 3.0);
  }
  return output;
}

// Runs the worker that owns output[first, first + count) and checks its chunk: the offsets baked
// into its program, or (`at_launch`) the program compiled for the extents alone and the offsets
// given with the launch.
void run_worker(std::int32_t n, std::uint64_t first, std::uint64_t count, bool at_launch = false) {
  constexpr std::uint64_t block = 256;
  std::vector<float> input(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < input.size(); ++i)
    input[i] = static_cast<float>((i * 37) % 101);
  const auto expected = reference(input);
  // The input chunk carries one halo element each side, where the array has one.
  const std::uint64_t in_first = first == 0 ? 0 : first - 1;
  const std::uint64_t in_last = std::min<std::uint64_t>(first + count + 1, input.size());
  const std::vector<float> chunk(input.begin() + static_cast<std::ptrdiff_t>(in_first),
                                 input.begin() + static_cast<std::ptrdiff_t>(in_last));
  CompileOptions options;
  options.block_offset = Dim3{first / block, 0, 0};
  options.placements = {ArrayPlacement{Dim3{first, 0, 0}, Dim3{count}},
                        ArrayPlacement{Dim3{in_first, 0, 0}, Dim3{in_last - in_first}}};
  KernelArgs args;
  if (at_launch) {
    args.origins = LaunchOrigins{options.block_offset,
                                 {options.placements[0].offset, options.placements[1].offset}};
    options.origins_at_launch = true;
    options.block_offset = Dim3{0, 0, 0};
    for (ArrayPlacement& placement : options.placements)
      placement.offset = Dim3{0, 0, 0};
  }
  auto kernel = gpu().compile(ported_stencil_kernel(), options);
  DeviceBuffer din = upload(gpu(), chunk);
  DeviceBuffer dout = gpu().allocate(count * sizeof(float));
  args.values = {KernelArg::value(n), KernelArg::array<float>(dout), KernelArg::array<float>(din)};
  Event done = gpu()
                   .queue(QueueKind::compute)
                   .launch(*kernel, LaunchGeometry{Dim3{count}, Dim3{block}, 1}, args);
  const auto out = download<float>(gpu(), dout, count, std::span(&done, 1));
  for (std::uint64_t i = 0; i < count; ++i)
    ASSERT_FLOAT_EQ(out[i], expected[first + i]) << "global element " << first + i;
}

TEST(CudaPortedStencil, MiddleWorkerWithBlockAndArrayOffsets) {
  STRATA_REQUIRE_CUDA_DEVICE();
  run_worker(4096, 1024, 1024);  // block offset 4, output offset 1024, input offset 1023
}

TEST(CudaPortedStencil, LastWorkerAtTheArrayEnd) {
  STRATA_REQUIRE_CUDA_DEVICE();
  run_worker(4096, 3072, 1024);
}

TEST(CudaPortedStencil, WorkersOfOneShapeShareAProgramWithOriginsAtLaunch) {
  STRATA_REQUIRE_CUDA_DEVICE();
  run_worker(4096, 1024, 1024, true);
  run_worker(4096, 2048, 1024, true);
  run_worker(4096, 3072, 1024, true);
}

TEST(CudaPortedStencil, FirstWorkerWithoutOffsets) {
  STRATA_REQUIRE_CUDA_DEVICE();
  run_worker(4096, 0, 1024);
}

}  // namespace
}  // namespace strata::device
