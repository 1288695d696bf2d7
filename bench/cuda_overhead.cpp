// Per-launch overhead Strata's CUDA backend adds over the raw CUDA runtime (an empty and a ~1 ms
// kernel), and host<->device copy throughput through Strata vs raw cudaMemcpyAsync, in one run
// on the first CUDA device. Without one it prints why and exits 0 without results.

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "nvrtc_compiler.hpp"
#include "strata/base/config.hpp"
#include "strata/device/backends.hpp"
#include "strata/device/errors.hpp"

namespace {

namespace sd = strata::device;

constexpr const char* kSource = R"(
extern "C" __global__ void empty_kernel() {}
extern "C" __global__ void spin_kernel(unsigned long long cycles) {
  const long long start = clock64();
  while ((unsigned long long)(clock64() - start) < cycles) {}
}
)";
constexpr int kBatch = 1000;                    // launches per iteration in the batch cases
constexpr std::uint64_t kCopyBytes = 64 << 20;  // per copy

void ok(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "bench_cuda_overhead: %s: %s\n", what, cudaGetErrorString(status));
    std::exit(1);
  }
}

// The device under test and both ways of driving it.
struct Fixture {
  sd::DeviceSet set;
  sd::Device* device = nullptr;
  int ordinal = 0;
  // Strata
  std::shared_ptr<const sd::CompiledKernel> empty, spin;
  // Raw CUDA runtime: the same program, loaded and launched by hand on a stream of its own.
  cudaLibrary_t library = nullptr;
  cudaKernel_t raw_empty = nullptr, raw_spin = nullptr;
  cudaStream_t stream = nullptr;
  std::uint64_t spin_cycles = 1'000'000;  // calibrated to about 1 ms
  sd::HostBuffer pinned;
  sd::DeviceBuffer buffer;

  explicit Fixture(sd::DeviceSet devices) : set(std::move(devices)) {
    device = set.devices.front().get();
    ordinal = std::stoi(device->info().id.substr(5));
    empty = device->compile(sd::KernelDefinition("empty_kernel").cuda(kSource));
    spin = device->compile(
        sd::KernelDefinition("spin_kernel").scalar<std::uint64_t>("cycles").cuda(kSource));
    ok(cudaSetDevice(ordinal), "cudaSetDevice");
    cudaDeviceProp properties{};
    ok(cudaGetDeviceProperties(&properties, ordinal), "cudaGetDeviceProperties");
    const std::string binary = sd::cuda::compile_cuda_program(
        {kSource, "raw", device->info().name,
         sd::cuda::cuda_target_for(properties.major, properties.minor), ""});
    ok(cudaLibraryLoadData(&library, binary.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
       "cudaLibraryLoadData");
    ok(cudaLibraryGetKernel(&raw_empty, library, "empty_kernel"), "cudaLibraryGetKernel");
    ok(cudaLibraryGetKernel(&raw_spin, library, "spin_kernel"), "cudaLibraryGetKernel");
    ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    calibrate();
    pinned = device->allocate_host(kCopyBytes);
    buffer = device->allocate(kCopyBytes);
  }

  ~Fixture() {
    cudaStreamDestroy(stream);
    cudaLibraryUnload(library);
  }

  cudaError_t raw_launch(cudaKernel_t kernel, std::uint64_t* cycles) {
    void* params[] = {cycles};
    return cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(1), dim3(1),
                            cycles ? params : nullptr, 0, stream);
  }

  // Scales the spin so one launch takes about 1 ms.
  void calibrate() {
    for (int round = 0; round < 3; ++round) {
      const auto start = std::chrono::steady_clock::now();
      ok(raw_launch(raw_spin, &spin_cycles), "cudaLaunchKernel");
      ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      spin_cycles = static_cast<std::uint64_t>(static_cast<double>(spin_cycles) * 1e-3 / seconds);
    }
  }
};

std::unique_ptr<Fixture> fixture;

sd::Queue& compute() {
  return fixture->device->queue(sd::QueueKind::compute);
}

// ---- launches ------------------------------------------------------------------------------

void empty_sync_raw(benchmark::State& state) {
  for (auto _ : state) {
    ok(fixture->raw_launch(fixture->raw_empty, nullptr), "cudaLaunchKernel");
    ok(cudaStreamSynchronize(fixture->stream), "cudaStreamSynchronize");
  }
}
void empty_sync_strata(benchmark::State& state) {
  for (auto _ : state)
    compute().launch(*fixture->empty, {sd::Dim3{1}, sd::Dim3{1}, 1}, {}).wait();
}
void empty_batch_raw(benchmark::State& state) {
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i)
      ok(fixture->raw_launch(fixture->raw_empty, nullptr), "cudaLaunchKernel");
    ok(cudaStreamSynchronize(fixture->stream), "cudaStreamSynchronize");
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
void empty_batch_strata(benchmark::State& state) {
  for (auto _ : state) {
    sd::Event last;
    for (int i = 0; i < kBatch; ++i)
      last = compute().launch(*fixture->empty, {sd::Dim3{1}, sd::Dim3{1}, 1}, {});
    last.wait();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
void spin_1ms_raw(benchmark::State& state) {
  for (auto _ : state) {
    ok(fixture->raw_launch(fixture->raw_spin, &fixture->spin_cycles), "cudaLaunchKernel");
    ok(cudaStreamSynchronize(fixture->stream), "cudaStreamSynchronize");
  }
}
void spin_1ms_strata(benchmark::State& state) {
  for (auto _ : state) {
    compute()
        .launch(*fixture->spin, {sd::Dim3{1}, sd::Dim3{1}, 1},
                {sd::KernelArg::value(fixture->spin_cycles)})
        .wait();
  }
}

// ---- copies --------------------------------------------------------------------------------

void h2d_raw(benchmark::State& state) {
  for (auto _ : state) {
    ok(cudaMemcpyAsync(fixture->buffer.handle(), fixture->pinned.data(), kCopyBytes,
                       cudaMemcpyHostToDevice, fixture->stream),
       "cudaMemcpyAsync");
    ok(cudaStreamSynchronize(fixture->stream), "cudaStreamSynchronize");
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(kCopyBytes));
}
void h2d_strata(benchmark::State& state) {
  sd::Queue& queue = fixture->device->queue(sd::QueueKind::host_to_device);
  for (auto _ : state)
    queue.copy_to_device(fixture->buffer, 0, fixture->pinned.data(), kCopyBytes).wait();
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(kCopyBytes));
}
void d2h_raw(benchmark::State& state) {
  for (auto _ : state) {
    ok(cudaMemcpyAsync(fixture->pinned.data(), fixture->buffer.handle(), kCopyBytes,
                       cudaMemcpyDeviceToHost, fixture->stream),
       "cudaMemcpyAsync");
    ok(cudaStreamSynchronize(fixture->stream), "cudaStreamSynchronize");
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(kCopyBytes));
}
void d2h_strata(benchmark::State& state) {
  sd::Queue& queue = fixture->device->queue(sd::QueueKind::device_to_host);
  for (auto _ : state)
    queue.copy_to_host(fixture->pinned.data(), fixture->buffer, 0, kCopyBytes).wait();
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(kCopyBytes));
}

void register_all() {
  const std::pair<const char*, void (*)(benchmark::State&)> cases[] = {
      {"launch_empty_sync/raw", empty_sync_raw},
      {"launch_empty_sync/strata", empty_sync_strata},
      {"launch_empty_batch/raw", empty_batch_raw},
      {"launch_empty_batch/strata", empty_batch_strata},
      {"launch_1ms/raw", spin_1ms_raw},
      {"launch_1ms/strata", spin_1ms_strata},
      {"copy_h2d_64MiB/raw", h2d_raw},
      {"copy_h2d_64MiB/strata", h2d_strata},
      {"copy_d2h_64MiB/raw", d2h_raw},
      {"copy_d2h_64MiB/strata", d2h_strata},
  };
  for (const auto& [name, function] : cases)
    benchmark::RegisterBenchmark(name, function)->UseRealTime()->Unit(benchmark::kMicrosecond);
}

}  // namespace

int main(int argc, char** argv) {
  strata::Config config;
  config.section<strata::device::DeviceSettings>().backends = "cuda";
  config.section<strata::device::DeviceSettings>().kernel_cache_dir = "off";
  sd::DeviceSet devices = sd::discover_devices(config);
  if (devices.devices.empty()) {
    std::string status;
    for (const auto& report : devices.reports)
      if (report.backend == sd::BackendKind::cuda) status = report.status;
    std::printf("bench_cuda_overhead: no CUDA device (%s); nothing measured\n", status.c_str());
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  fixture = std::make_unique<Fixture>(std::move(devices));
  const sd::DeviceInfo& info = fixture->device->info();
  benchmark::AddCustomContext("cuda_device", fmt::format("{} ({})", info.name, info.id));
  benchmark::AddCustomContext("cuda_platform", info.platform);
  benchmark::AddCustomContext("spin_cycles", std::to_string(fixture->spin_cycles));
  benchmark::AddCustomContext("copy_bytes", std::to_string(kCopyBytes));
  benchmark::AddCustomContext("batch_launches", std::to_string(kBatch));
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  fixture.reset();
  return 0;
}
