#include "fftw_plan.hpp"

#include <fmt/format.h>

#include <memory>
#include <mutex>

#include "cpu_queue.hpp"
#include "strata/device/errors.hpp"

namespace strata::device::detail {
namespace {

// FFTW's planner (creating and destroying plans) is not thread-safe; executing is.
std::mutex& planner_lock() {
  static std::mutex lock;
  return lock;
}

struct FftwFree {
  void operator()(void* p) const { fftwf_free(p); }
};

CpuQueue& cpu_queue(Queue& queue, const Device& device, const FftShape& shape,
                    const char* direction) {
  auto* cpu = dynamic_cast<CpuQueue*>(&queue);
  if (cpu == nullptr || &cpu->device() != &device) {
    throw DeviceError(fmt::format("{}: {} FFT of {}: the queue belongs to another device",
                                  device.info().id, direction, shape.describe()));
  }
  return *cpu;
}

void* address(FftArray array) {
  return static_cast<unsigned char*>(array.buffer->handle()) + array.offset;
}

}  // namespace

FftwPlan::FftwPlan(const FftShape& shape, const Device& device)
    : FftPlan(shape), device_(device), plans_(std::make_shared<Plans>()) {
  validate_fft_shape(shape, device.info().id);
  // Scratch arrays of one transform: FFTW_ESTIMATE plans without reading or writing them, and
  // FFTW_UNALIGNED lets the plans run on any float-aligned arrays of the batch.
  const std::uint64_t real_count = shape.rows * shape.columns;
  const std::uint64_t complex_count = shape.rows * shape.spectrum_columns();
  std::unique_ptr<float, FftwFree> real(fftwf_alloc_real(real_count));
  std::unique_ptr<fftwf_complex, FftwFree> spectrum(fftwf_alloc_complex(complex_count));
  const int rank = shape.rows == 1 ? 1 : 2;
  const int sizes[2] = {static_cast<int>(rank == 1 ? shape.columns : shape.rows),
                        static_cast<int>(shape.columns)};
  const unsigned flags = FFTW_ESTIMATE | FFTW_UNALIGNED;
  {
    std::lock_guard guard(planner_lock());
    plans_->forward = fftwf_plan_dft_r2c(rank, sizes, real.get(), spectrum.get(), flags);
    plans_->inverse = fftwf_plan_dft_c2r(rank, sizes, spectrum.get(), real.get(), flags);
  }
  if (plans_->forward == nullptr || plans_->inverse == nullptr) {
    throw DeviceError(
        fmt::format("{}: FFTW cannot plan an FFT of {}", device.info().id, shape.describe()));
  }
}

FftwPlan::Plans::~Plans() {
  std::lock_guard guard(planner_lock());
  if (forward != nullptr) fftwf_destroy_plan(forward);
  if (inverse != nullptr) fftwf_destroy_plan(inverse);
}

Event FftwPlan::forward(Queue& queue, FftArray real, FftArray spectrum,
                        std::span<const Event> after) {
  CpuQueue& cpu = cpu_queue(queue, device_, shape(), "forward");
  check_buffers(device_, real, spectrum, "forward");
  auto* in = static_cast<float*>(address(real));
  auto* out = static_cast<fftwf_complex*>(address(spectrum));
  const FftShape s = shape();
  return cpu.run_on_host(after, [plans = plans_, in, out, s, &runner = cpu.runner()] {
    runner.run(s.batch, [&](std::uint64_t b) {
      fftwf_execute_dft_r2c(plans->forward, in + b * s.rows * s.columns,
                            out + b * s.rows * s.spectrum_columns());
    });
  });
}

Event FftwPlan::inverse(Queue& queue, FftArray spectrum, FftArray real,
                        std::span<const Event> after) {
  CpuQueue& cpu = cpu_queue(queue, device_, shape(), "inverse");
  check_buffers(device_, real, spectrum, "inverse");
  auto* in = static_cast<fftwf_complex*>(address(spectrum));
  auto* out = static_cast<float*>(address(real));
  const FftShape s = shape();
  return cpu.run_on_host(after, [plans = plans_, in, out, s, &runner = cpu.runner()] {
    runner.run(s.batch, [&](std::uint64_t b) {
      fftwf_execute_dft_c2r(plans->inverse, in + b * s.rows * s.spectrum_columns(),
                            out + b * s.rows * s.columns);
    });
  });
}

}  // namespace strata::device::detail
