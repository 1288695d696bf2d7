#pragma once
// What kind of resource an executor drives (so that policies can tell a device from a CPU core),
// and the cost hints a task may carry for policies that weigh executors by expected speed.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace strata::runtime {

// The resource behind an executor.
enum class ExecutorKind : std::uint8_t {
  cpu,             // CPU cores (the CPU pool, the CPU device's compute queue)
  io,              // blocking I/O (the I/O pool)
  device_compute,  // an accelerator's compute queue (kernels on OpenCL or CUDA devices)
  copy,            // a device's copy queue (uploads, downloads)
  network,         // transfers between processes
};
inline constexpr std::size_t executor_kinds = 5;

const char* to_string(ExecutorKind kind);

// Optional estimates a task gives for policies such as PATS: a speedup of a device over one CPU
// core (the region-templates paper's per-operation speedups, measured in a training run), or an
// estimated time per executor kind. Zero means "not given".
struct CostHints {
  double speedup = 0;                            // device compute over one CPU core
  std::array<double, executor_kinds> seconds{};  // estimated time, indexed by ExecutorKind

  // The estimate for `kind`, if given.
  std::optional<double> estimate(ExecutorKind kind) const {
    const double value = seconds[static_cast<std::size_t>(kind)];
    if (value > 0) return value;
    return std::nullopt;
  }
  // The speedup a device gives over a CPU core: the given one, else the ratio of the cpu and
  // device_compute estimates, else 1.
  double effective_speedup() const {
    if (speedup > 0) return speedup;
    const auto cpu = estimate(ExecutorKind::cpu);
    const auto device = estimate(ExecutorKind::device_compute);
    if (cpu && device) return *cpu / *device;
    return 1.0;
  }
};

}  // namespace strata::runtime
