// A runnable tour of devices and kernels (docs/devices.md): one kernel definition with a C++, an
// OpenCL C and a CUDA implementation runs on every device this machine has, through the
// runtime's per-device executors, as an upload / process / download pipeline over tiles.

#include <cmath>
#include <cstdio>
#include <vector>

#include "strata/device/backends.hpp"
#include "strata/runtime/device_executors.hpp"

using namespace strata;
using namespace strata::device;
using namespace strata::runtime;

// saxpy(u32 n, f32 a, f32 x[], f32 y[]): y = a * x + y.
KernelDefinition saxpy_kernel() {
  return KernelDefinition("saxpy")
      .scalar<std::uint32_t>("n")
      .scalar<float>("a")
      .array<float>("x", ParamAccess::read)
      .array<float>("y", ParamAccess::read_write)
      .cpu([](const CpuBlock& block) {
        const auto n = block.scalar<std::uint32_t>(0);
        const auto a = block.scalar<float>(1);
        const float* x = block.array<float>(2);
        float* y = block.array<float>(3);
        for (auto i = block.begin.x; i < block.end.x && i < n; ++i)
          y[i] = a * x[i] + y[i];
      })
      .opencl(R"(
__kernel void saxpy(uint n, float a, __global const float* x, __global float* y) {
  const size_t i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
})")
      .cuda(R"(
extern "C" __global__ void saxpy(unsigned int n, float a, const float* x, float* y) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
})");
}

int main() {
  Runtime rt;
  DeviceSet devices = discover_devices(rt.config(), cpu_pool_block_runner(rt));
  for (const auto& report : devices.reports)
    std::printf("%-7s %s\n", to_string(report.backend), report.status.c_str());

  constexpr std::uint32_t n = 1 << 16;
  constexpr int tiles = 8;
  const KernelDefinition saxpy = saxpy_kernel();
  int failures = 0;
  for (auto& device : devices.devices) {
    const DeviceExecutors exec = add_device(rt, *device);
    auto kernel = device->compile(saxpy);  // run-time compilation, cached in memory and on disk
    std::vector<std::vector<float>> x(tiles, std::vector<float>(n)), y = x;
    std::vector<DeviceBuffer> dx, dy;
    for (int t = 0; t < tiles; ++t) {
      for (std::uint32_t i = 0; i < n; ++i) {
        x[t][i] = static_cast<float>(i % 100);
        y[t][i] = static_cast<float>(t);
      }
      dx.push_back(device->allocate(n * sizeof(float)));
      dy.push_back(device->allocate(n * sizeof(float)));
    }
    for (int t = 0; t < tiles; ++t) {
      // Upload on the host-to-device executor; the kernel and the download follow it. While
      // tile t computes, tile t+1 uploads and tile t-1 downloads.
      TaskHandle upload = rt.submit(TaskSpec("upload").on(exec.upload), [&, t](TaskContext& ctx) {
        Queue& q = device->queue(QueueKind::host_to_device);
        Event first = q.copy_to_device(dx[t], 0, x[t].data(), n * sizeof(float));
        complete_when(
            ctx, q.copy_to_device(dy[t], 0, y[t].data(), n * sizeof(float), std::span(&first, 1)));
      });
      TaskHandle process =
          rt.submit(TaskSpec("saxpy").on(exec.compute).after(upload), [&, t](TaskContext& ctx) {
            LaunchGeometry geometry{Dim3{n}, Dim3{256}, 1};
            complete_when(
                ctx, device->queue(QueueKind::compute)
                         .launch(*kernel, geometry,
                                 {KernelArg::value(n), KernelArg::value(2.0f),
                                  KernelArg::array<float>(dx[t]), KernelArg::array<float>(dy[t])}));
          });
      rt.submit(TaskSpec("download").on(exec.download).after(process), [&, t](TaskContext& ctx) {
        complete_when(ctx, device->queue(QueueKind::device_to_host)
                               .copy_to_host(y[t].data(), dy[t], 0, n * sizeof(float)));
      });
    }
    rt.wait_all();
    int wrong = 0;
    for (int t = 0; t < tiles; ++t)
      for (std::uint32_t i = 0; i < n; ++i)
        wrong += y[t][i] != 2.0f * static_cast<float>(i % 100) + static_cast<float>(t);
    std::printf("%-12s %-40.40s saxpy over %d tiles: %s\n", device->info().id.c_str(),
                device->info().name.c_str(), tiles, wrong == 0 ? "correct" : "WRONG");
    failures += wrong;
  }
  std::puts(rt.summary().format().c_str());
  return failures == 0 ? 0 : 1;
}
