// What Strata's OpenCL backend adds over the raw OpenCL API on the same device, in one process:
// per-launch overhead (launch + wait) for an empty kernel and a ~1 ms kernel, and host<->device
// copy throughput. Every benchmark iteration runs the raw call and the Strata call back to back
// (alternating which goes first), so drift in the machine's speed hits both alike.

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "strata/device/backends.hpp"

namespace {

namespace sd = strata::device;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kThreads = 256;  // work-items per launch
constexpr std::size_t kBlock = 64;     // work-group size

const char* const kSource = R"(
__kernel void empty(uint iterations, __global float* out) {}
__kernel void spin(uint iterations, __global float* out) {
  float x = (float)get_global_id(0);
  for (uint i = 0; i < iterations; ++i) x = x * 0.999f + 0.5f;
  out[get_global_id(0)] = x;
}
)";

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_opencl_overhead: %s\n", what.c_str());
  std::exit(1);
}

void check(cl_int status, const char* what) {
  if (status != CL_SUCCESS) die(std::string(what) + " failed: " + std::to_string(status));
}

// The raw side: its own context and in-order queues on the device Strata uses, the same program.
struct Raw {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue compute = nullptr, upload = nullptr, download = nullptr;
  cl_program program = nullptr;
  cl_kernel empty = nullptr, spin = nullptr;
  cl_mem out = nullptr;

  Raw() {
    cl_platform_id platform = nullptr;
    check(clGetPlatformIDs(1, &platform, nullptr), "clGetPlatformIDs");
    check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr), "clGetDeviceIDs");
    cl_int status = CL_SUCCESS;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
    check(status, "clCreateContext");
    for (cl_command_queue* queue : {&compute, &upload, &download}) {
      *queue = clCreateCommandQueue(context, device, 0, &status);
      check(status, "clCreateCommandQueue");
    }
    const char* source = kSource;
    program = clCreateProgramWithSource(context, 1, &source, nullptr, &status);
    check(status, "clCreateProgramWithSource");
    check(clBuildProgram(program, 1, &device, "", nullptr, nullptr), "clBuildProgram");
    empty = clCreateKernel(program, "empty", &status);
    check(status, "clCreateKernel");
    spin = clCreateKernel(program, "spin", &status);
    check(status, "clCreateKernel");
    out = clCreateBuffer(context, CL_MEM_READ_WRITE, kThreads * sizeof(float), nullptr, &status);
    check(status, "clCreateBuffer");
  }
  ~Raw() {
    clReleaseMemObject(out);
    clReleaseKernel(empty);
    clReleaseKernel(spin);
    clReleaseProgram(program);
    for (cl_command_queue queue : {compute, upload, download})
      clReleaseCommandQueue(queue);
    clReleaseContext(context);
  }
  // What a direct user does per launch: set the arguments, enqueue, wait for the event.
  void launch(cl_kernel kernel, cl_uint iterations) const {
    check(clSetKernelArg(kernel, 0, sizeof iterations, &iterations), "clSetKernelArg");
    check(clSetKernelArg(kernel, 1, sizeof out, &out), "clSetKernelArg");
    const std::size_t global = kThreads, local = kBlock;
    cl_event event = nullptr;
    check(clEnqueueNDRangeKernel(compute, kernel, 1, nullptr, &global, &local, 0, nullptr, &event),
          "clEnqueueNDRangeKernel");
    check(clWaitForEvents(1, &event), "clWaitForEvents");
    clReleaseEvent(event);
  }
  // A burst: `count` launches enqueued back to back, the queue flushed once (by the wait on the
  // last one's event), as a multi-command task (an FFT, a pipeline stage) enqueues them.
  void launch_burst(cl_kernel kernel, int count) const {
    cl_uint iterations = 0;
    check(clSetKernelArg(kernel, 0, sizeof iterations, &iterations), "clSetKernelArg");
    check(clSetKernelArg(kernel, 1, sizeof out, &out), "clSetKernelArg");
    const std::size_t global = kThreads, local = kBlock;
    cl_event event = nullptr;
    for (int i = 0; i < count; ++i) {
      if (event != nullptr) clReleaseEvent(event);
      check(
          clEnqueueNDRangeKernel(compute, kernel, 1, nullptr, &global, &local, 0, nullptr, &event),
          "clEnqueueNDRangeKernel");
    }
    check(clWaitForEvents(1, &event), "clWaitForEvents");
    clReleaseEvent(event);
  }
  void write(cl_mem buffer, const void* source, std::size_t bytes) const {
    cl_event event = nullptr;
    check(clEnqueueWriteBuffer(upload, buffer, CL_FALSE, 0, bytes, source, 0, nullptr, &event),
          "clEnqueueWriteBuffer");
    check(clWaitForEvents(1, &event), "clWaitForEvents");
    clReleaseEvent(event);
  }
  void read(void* destination, cl_mem buffer, std::size_t bytes) const {
    cl_event event = nullptr;
    check(
        clEnqueueReadBuffer(download, buffer, CL_FALSE, 0, bytes, destination, 0, nullptr, &event),
        "clEnqueueReadBuffer");
    check(clWaitForEvents(1, &event), "clWaitForEvents");
    clReleaseEvent(event);
  }
};

// The Strata side: the first OpenCL device discovery finds, the same kernels.
struct Strata {
  std::unique_ptr<sd::Device> device;
  std::shared_ptr<const sd::CompiledKernel> empty, spin;
  sd::DeviceBuffer out;

  static sd::KernelDefinition definition(const char* name) {
    return sd::KernelDefinition(name)
        .scalar<std::uint32_t>("iterations")
        .array<float>("out", sd::ParamAccess::write)
        .opencl(kSource);
  }
  Strata() {
    std::string status;
    auto devices =
        sd::discover_opencl_devices(strata::Config{}, std::make_shared<sd::ProgramCache>(), status);
    if (devices.empty()) die("no OpenCL device: " + status);
    device = std::move(devices.front());
    empty = device->compile(definition("empty"));
    spin = device->compile(definition("spin"));
    out = device->allocate(kThreads * sizeof(float));
  }
  void launch(const sd::CompiledKernel& kernel, std::uint32_t iterations) const {
    device->queue(sd::QueueKind::compute)
        .launch(kernel, sd::LaunchGeometry{sd::Dim3{kThreads}, sd::Dim3{kBlock}, 1},
                {sd::KernelArg::value(iterations), sd::KernelArg::array<float>(out)})
        .wait();
  }
  void launch_burst(const sd::CompiledKernel& kernel, int count) const {
    sd::Queue& queue = device->queue(sd::QueueKind::compute);
    sd::Event last;
    for (int i = 0; i < count; ++i) {
      last =
          queue.launch(kernel, sd::LaunchGeometry{sd::Dim3{kThreads}, sd::Dim3{kBlock}, 1},
                       {sd::KernelArg::value(std::uint32_t{0}), sd::KernelArg::array<float>(out)});
    }
    last.wait();
  }
};

Raw* raw = nullptr;
Strata* strata_side = nullptr;
std::uint32_t spin_iterations = 0;  // calibrated so that one raw launch takes about 1 ms

double seconds_of(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// Runs `first` and `second` once per iteration (swapping the order every iteration) and reports
// each one's mean time in microseconds and their difference.
template <typename RawCall, typename StrataCall>
void paired(benchmark::State& state, RawCall&& raw_call, StrataCall&& strata_call,
            std::uint64_t bytes) {
  raw_call();  // untimed warm-up of both
  strata_call();
  Clock::duration raw_total{}, strata_total{};
  bool raw_first = true;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    if (raw_first)
      raw_call();
    else
      strata_call();
    const auto t1 = Clock::now();
    if (raw_first)
      strata_call();
    else
      raw_call();
    const auto t2 = Clock::now();
    raw_total += raw_first ? t1 - t0 : t2 - t1;
    strata_total += raw_first ? t2 - t1 : t1 - t0;
    raw_first = !raw_first;
  }
  const double n = static_cast<double>(state.iterations());
  const double raw_us = seconds_of(raw_total) / n * 1e6;
  const double strata_us = seconds_of(strata_total) / n * 1e6;
  state.counters["raw_us"] = raw_us;
  state.counters["strata_us"] = strata_us;
  state.counters["added_us"] = strata_us - raw_us;
  if (bytes != 0) {
    state.counters["raw_GBps"] = static_cast<double>(bytes) / (raw_us * 1e3);
    state.counters["strata_GBps"] = static_cast<double>(bytes) / (strata_us * 1e3);
  }
}

void launch_empty(benchmark::State& state) {
  paired(
      state, [] { raw->launch(raw->empty, 0); },
      [] { strata_side->launch(*strata_side->empty, 0); }, 0);
}

// 16 empty kernels enqueued back to back, then a wait for the last: per-command costs (Strata
// flushes the queue after every command) without a round trip each.
void launch_burst(benchmark::State& state) {
  constexpr int count = 16;
  paired(
      state, [] { raw->launch_burst(raw->empty, count); },
      [] { strata_side->launch_burst(*strata_side->empty, count); }, 0);
  state.counters["raw_us_per_launch"] = state.counters["raw_us"] / count;
  state.counters["strata_us_per_launch"] = state.counters["strata_us"] / count;
}

void launch_1ms(benchmark::State& state) {
  paired(
      state, [] { raw->launch(raw->spin, spin_iterations); },
      [] { strata_side->launch(*strata_side->spin, spin_iterations); }, 0);
}

void copy(benchmark::State& state, bool to_device) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  std::vector<unsigned char> host(bytes, 1);
  cl_int status = CL_SUCCESS;
  cl_mem raw_buffer = clCreateBuffer(raw->context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
  check(status, "clCreateBuffer");
  sd::DeviceBuffer buffer = strata_side->device->allocate(bytes);
  sd::Queue& up = strata_side->device->queue(sd::QueueKind::host_to_device);
  sd::Queue& down = strata_side->device->queue(sd::QueueKind::device_to_host);
  if (to_device) {
    paired(
        state, [&] { raw->write(raw_buffer, host.data(), bytes); },
        [&] { up.copy_to_device(buffer, 0, host.data(), bytes).wait(); }, bytes);
  } else {
    paired(
        state, [&] { raw->read(host.data(), raw_buffer, bytes); },
        [&] { down.copy_to_host(host.data(), buffer, 0, bytes).wait(); }, bytes);
  }
  clReleaseMemObject(raw_buffer);
}

void calibrate() {
  // Doubles, then scales, the loop count until one raw launch takes about 1 ms.
  std::uint32_t iterations = 1024;
  for (int round = 0; round < 30; ++round) {
    constexpr int samples = 20;
    const auto t0 = Clock::now();
    for (int i = 0; i < samples; ++i)
      raw->launch(raw->spin, iterations);
    const double ms = seconds_of(Clock::now() - t0) * 1e3 / samples;
    if (ms > 0.95 && ms < 1.05) break;
    const double scale = ms < 0.1 ? 8.0 : 1.0 / ms;
    iterations = static_cast<std::uint32_t>(iterations * scale);
  }
  spin_iterations = iterations;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  Raw raw_side;
  Strata strata;
  raw = &raw_side;
  strata_side = &strata;
  calibrate();
  const auto& info = strata.device->info();
  benchmark::AddCustomContext("opencl_device", info.platform + " / " + info.name);
  benchmark::AddCustomContext("spin_iterations", std::to_string(spin_iterations));
  benchmark::AddCustomContext(
      "launch_geometry",
      std::to_string(kThreads) + " work-items in groups of " + std::to_string(kBlock));

  benchmark::RegisterBenchmark("launch/empty", launch_empty)->UseRealTime();
  benchmark::RegisterBenchmark("launch/1ms", launch_1ms)->UseRealTime();
  benchmark::RegisterBenchmark("launch/burst_of_16_empty", launch_burst)->UseRealTime();
  for (std::int64_t bytes : {std::int64_t{1} << 20, std::int64_t{64} << 20}) {
    benchmark::RegisterBenchmark("copy/to_device", copy, true)->Arg(bytes)->UseRealTime();
    benchmark::RegisterBenchmark("copy/to_host", copy, false)->Arg(bytes)->UseRealTime();
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  raw = nullptr;
  strata_side = nullptr;
  return 0;
}
