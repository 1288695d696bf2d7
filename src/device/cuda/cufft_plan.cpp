#include "cufft_plan.hpp"

#include <fmt/format.h>

#include "strata/device/errors.hpp"

namespace strata::device::cuda {

const char* cufft_result_name(cufftResult result) {
  switch (result) {
    case CUFFT_SUCCESS:
      return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN:
      return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED:
      return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE:
      return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE:
      return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR:
      return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED:
      return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED:
      return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE:
      return "CUFFT_INVALID_SIZE";
    case CUFFT_INVALID_DEVICE:
      return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE:
      return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED:
      return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED:
      return "CUFFT_NOT_SUPPORTED";
    default:
      return "an unknown cuFFT error";
  }
}

namespace {

void check_cufft(cufftResult result, const std::string& device, const FftShape& shape,
                 const char* what) {
  if (result != CUFFT_SUCCESS) {
    throw DeviceError(fmt::format("{}: cuFFT, {} for an FFT of {}: {}", device, what,
                                  shape.describe(), cufft_result_name(result)));
  }
}

char* address(FftArray array) {
  return static_cast<char*>(array.buffer->handle()) + array.offset;
}

}  // namespace

CufftPlan::Plans::~Plans() {
  cudaSetDevice(ordinal);
  if (has_forward) cufftDestroy(forward);
  if (has_inverse) cufftDestroy(inverse);
}

CufftPlan::CufftPlan(const FftShape& shape, CudaDevice& device)
    : FftPlan(shape), device_(device), plans_(std::make_shared<Plans>()) {
  const std::string& id = device.info().id;
  validate_fft_shape(shape, id);
  plans_->ordinal = device.ordinal();
  if (cudaSetDevice(device.ordinal()) != cudaSuccess) {
    throw DeviceError(
        fmt::format("{}: cannot select the device to plan an FFT of {}", id, shape.describe()));
  }
  const int rank = shape.rows == 1 ? 1 : 2;
  int sizes[2] = {static_cast<int>(rank == 1 ? shape.columns : shape.rows),
                  static_cast<int>(shape.columns)};
  const int batch = static_cast<int>(shape.batch);
  // Null embeddings: the arrays of the batch are packed, real and spectrum alike.
  check_cufft(
      cufftPlanMany(&plans_->forward, rank, sizes, nullptr, 1, 0, nullptr, 1, 0, CUFFT_R2C, batch),
      id, shape, "planning the forward transform");
  plans_->has_forward = true;
  check_cufft(
      cufftPlanMany(&plans_->inverse, rank, sizes, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2R, batch),
      id, shape, "planning the inverse transform");
  plans_->has_inverse = true;
}

CudaQueue& CufftPlan::native(Queue& queue, const char* direction) const {
  auto* cuda = dynamic_cast<CudaQueue*>(&queue);
  if (cuda == nullptr || &cuda->device() != &device_) {
    throw DeviceError(fmt::format("{}: {} FFT of {}: the queue belongs to another device",
                                  device_.info().id, direction, shape().describe()));
  }
  return *cuda;
}

Event CufftPlan::forward(Queue& queue, FftArray real, FftArray spectrum,
                         std::span<const Event> after) {
  CudaQueue& cuda = native(queue, "forward");
  check_buffers(device_, real, spectrum, "forward");
  auto* in = reinterpret_cast<cufftReal*>(address(real));
  auto* out = reinterpret_cast<cufftComplex*>(address(spectrum));
  return cuda.submit(
      after, fmt::format("forward FFT of {}", shape().describe()),
      [plans = plans_, in, out, id = device_.info().id, s = shape()](cudaStream_t stream) {
        std::lock_guard guard(plans->lock);
        check_cufft(cufftSetStream(plans->forward, stream), id, s, "setting the stream");
        check_cufft(cufftExecR2C(plans->forward, in, out), id, s, "the forward transform");
        return cudaSuccess;
      });
}

Event CufftPlan::inverse(Queue& queue, FftArray spectrum, FftArray real,
                         std::span<const Event> after) {
  CudaQueue& cuda = native(queue, "inverse");
  check_buffers(device_, real, spectrum, "inverse");
  auto* in = reinterpret_cast<cufftComplex*>(address(spectrum));
  auto* out = reinterpret_cast<cufftReal*>(address(real));
  return cuda.submit(
      after, fmt::format("inverse FFT of {}", shape().describe()),
      [plans = plans_, in, out, id = device_.info().id, s = shape()](cudaStream_t stream) {
        std::lock_guard guard(plans->lock);
        check_cufft(cufftSetStream(plans->inverse, stream), id, s, "setting the stream");
        check_cufft(cufftExecC2R(plans->inverse, in, out), id, s, "the inverse transform");
        return cudaSuccess;
      });
}

std::shared_ptr<FftPlan> CudaDevice::make_fft_plan(const FftShape& shape) {
  return std::make_shared<CufftPlan>(shape, *this);
}

}  // namespace strata::device::cuda
