#include "clfft_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <set>
#include <vector>

#include "cl_error.hpp"
#include "strata/device/errors.hpp"

namespace strata::device::detail {
namespace {

std::string clfft_status_name(clfftStatus status) {
  switch (status) {
    case CLFFT_BUGCHECK:
      return "CLFFT_BUGCHECK";
    case CLFFT_NOTIMPLEMENTED:
      return "CLFFT_NOTIMPLEMENTED (clFFT supports lengths that are products of 2, 3, 5, 7, 11 "
             "and 13)";
    case CLFFT_TRANSPOSED_NOTIMPLEMENTED:
      return "CLFFT_TRANSPOSED_NOTIMPLEMENTED";
    case CLFFT_FILE_NOT_FOUND:
      return "CLFFT_FILE_NOT_FOUND";
    case CLFFT_FILE_CREATE_FAILURE:
      return "CLFFT_FILE_CREATE_FAILURE";
    case CLFFT_VERSION_MISMATCH:
      return "CLFFT_VERSION_MISMATCH";
    case CLFFT_INVALID_PLAN:
      return "CLFFT_INVALID_PLAN";
    case CLFFT_DEVICE_NO_DOUBLE:
      return "CLFFT_DEVICE_NO_DOUBLE";
    case CLFFT_DEVICE_MISMATCH:
      return "CLFFT_DEVICE_MISMATCH";
    default:
      return cl_error_name(static_cast<cl_int>(status));
  }
}

}  // namespace

namespace {

// Set when the process begins to exit: clFFT's own static objects go then.
std::atomic<bool> exiting{false};

// The live plans and whether clFFT is set up. Never destroyed: the exit handler reads it after
// static objects constructed later are gone.
struct Registry {
  std::mutex lock;
  std::set<ClfftPlan*> plans;
  bool set_up = false;
};
Registry& registry() {
  static auto* const made = new Registry;
  return *made;
}

// Held around every call into clFFT that plans, runs or destroys: clFFT takes its own locks in
// one order when baking a plan and in the other when deleting one (a deadlock between threads
// doing both at once), so Strata never lets two calls overlap. Taken after a plan's lock_ and the
// registry's lock, never before them.
std::mutex& clfft_calls() {
  static auto* const made = new std::mutex;
  return *made;
}

// Runs at exit before clFFT's static objects are destroyed (registered after clFFT built them):
// plans that objects kept until exit (a static device) still hold are destroyed and clFFT torn
// down now, while it can; their owners' destructors then find nothing left to do.
void release_at_exit() {
  Registry& r = registry();
  std::lock_guard guard(r.lock);
  for (ClfftPlan* plan : r.plans)
    plan->release();
  std::lock_guard calls(clfft_calls());
  if (r.set_up) clfftTeardown();
  r.set_up = false;
  exiting = true;
}

}  // namespace

// clFFT's process-wide state, set up while any plan exists and torn down after the last one
// (clFFT warns on stderr when a process ends without the teardown).
struct ClfftPlan::Library {
  Library() {
    Registry& r = registry();
    clfftSetupData setup;
    {
      std::lock_guard calls(clfft_calls());
      status = clfftInitSetupData(&setup);
      if (status == CLFFT_SUCCESS) status = clfftSetup(&setup);
    }
    {
      std::lock_guard guard(r.lock);
      r.set_up = status == CLFFT_SUCCESS;
    }
    static const bool registered = std::atexit(release_at_exit) == 0;
    (void)registered;
  }
  ~Library() {
    Registry& r = registry();
    std::lock_guard guard(r.lock);
    std::lock_guard calls(clfft_calls());
    if (r.set_up && !exiting) clfftTeardown();
    r.set_up = false;
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  clfftStatus status = CLFFT_SUCCESS;
};

std::shared_ptr<ClfftPlan::Library> ClfftPlan::library() {
  static std::mutex lock;
  static std::weak_ptr<Library> current;
  std::lock_guard guard(lock);
  std::shared_ptr<Library> held = current.lock();
  if (!held) {
    held = std::make_shared<Library>();
    current = held;
  }
  return held;
}

void ClfftPlan::check(clfftStatus status, const char* what) const {
  if (status != CLFFT_SUCCESS) {
    throw DeviceError(fmt::format("opencl {}: clFFT, {} for an FFT of {}: {}", *device_.label(),
                                  what, shape().describe(), clfft_status_name(status)));
  }
}

ClfftPlan::ClfftPlan(const FftShape& shape, OpenClDevice& device)
    : FftPlan(shape), device_(device), context_(device.shared_context()) {
  validate_fft_shape(shape, device.info().id);
  library_ = library();
  check(library_->status, "setting up the library");
  const bool two_d = shape.rows > 1;
  const clfftDim dim = two_d ? CLFFT_2D : CLFFT_1D;
  const std::array<std::size_t, 2> lengths{shape.columns, shape.rows};  // fastest first
  const std::array<std::size_t, 2> real_strides{1, shape.columns};
  const std::array<std::size_t, 2> spectrum_strides{1, shape.spectrum_columns()};
  const std::size_t real_distance = shape.rows * shape.columns;
  const std::size_t spectrum_distance = shape.rows * shape.spectrum_columns();
  cl_command_queue queue = context_->queue(QueueKind::compute);
  const auto make = [&](clfftPlanHandle& plan, bool& made, bool to_spectrum) {
    check(clfftCreateDefaultPlan(&plan, context_->context, dim, lengths.data()), "creating a plan");
    made = true;
    check(clfftSetPlanPrecision(plan, CLFFT_SINGLE), "setting single precision");
    check(clfftSetResultLocation(plan, CLFFT_OUTOFPLACE), "placing the result out of place");
    if (to_spectrum) {
      check(clfftSetLayout(plan, CLFFT_REAL, CLFFT_HERMITIAN_INTERLEAVED), "setting the layout");
      check(clfftSetPlanInStride(plan, dim, const_cast<std::size_t*>(real_strides.data())),
            "setting the input strides");
      check(clfftSetPlanOutStride(plan, dim, const_cast<std::size_t*>(spectrum_strides.data())),
            "setting the output strides");
      check(clfftSetPlanDistance(plan, real_distance, spectrum_distance), "setting the distance");
    } else {
      check(clfftSetLayout(plan, CLFFT_HERMITIAN_INTERLEAVED, CLFFT_REAL), "setting the layout");
      check(clfftSetPlanInStride(plan, dim, const_cast<std::size_t*>(spectrum_strides.data())),
            "setting the input strides");
      check(clfftSetPlanOutStride(plan, dim, const_cast<std::size_t*>(real_strides.data())),
            "setting the output strides");
      check(clfftSetPlanDistance(plan, spectrum_distance, real_distance), "setting the distance");
      // Unnormalised like FFTW and cuFFT (clFFT scales its backward transforms by 1/N).
      check(clfftSetPlanScale(plan, CLFFT_BACKWARD, 1.0f), "setting the scale");
    }
    check(clfftSetPlanBatchSize(plan, shape.batch), "setting the batch");
    check(clfftBakePlan(plan, 1, &queue, nullptr, nullptr), "baking the plan");
  };
  try {
    std::lock_guard calls(clfft_calls());
    make(forward_, has_forward_, true);
    make(inverse_, has_inverse_, false);
  } catch (...) {
    release();
    throw;
  }
  Registry& r = registry();
  std::lock_guard guard(r.lock);
  r.plans.insert(this);
}

ClfftPlan::~ClfftPlan() {
  Registry& r = registry();
  {
    std::lock_guard guard(r.lock);
    r.plans.erase(this);
  }
  if (!exiting) release();
}

void ClfftPlan::release() {
  std::lock_guard guard(lock_);
  std::lock_guard calls(clfft_calls());
  if (has_forward_) clfftDestroyPlan(&forward_);
  if (has_inverse_) clfftDestroyPlan(&inverse_);
  has_forward_ = has_inverse_ = false;
  // OpenCL frees a buffer once the commands enqueued on it have completed.
  for (auto& [queue, buffers] : buffers_) {
    for (cl_mem object : {buffers.scratch, buffers.input, buffers.output})
      if (object != nullptr) clReleaseMemObject(object);
  }
  buffers_.clear();
}

Event ClfftPlan::run(clfftPlanHandle plan, clfftDirection direction, const char* name, Queue& queue,
                     FftArray in, std::uint64_t in_bytes, FftArray out, std::uint64_t out_bytes,
                     std::span<const Event> after) {
  auto* native = dynamic_cast<OpenClQueue*>(&queue);
  if (native == nullptr || &native->device() != &device_) {
    throw DeviceError(fmt::format("opencl {}: {} FFT of {}: the queue belongs to another device",
                                  *device_.label(), name, shape().describe()));
  }
  std::lock_guard guard(lock_);
  if (!has_forward_ || !has_inverse_) {
    throw DeviceError(fmt::format("opencl {}: {} FFT of {}: the plan was released (at exit)",
                                  *device_.label(), name, shape().describe()));
  }
  // The queue's buffers: an in-order queue runs its transforms one after another, so they share
  // them; clFFT's own scratch would be shared by queues running at once.
  Buffers& buffers = buffers_[native];
  if (!buffers.sized) {
    std::size_t bytes = 0;
    {
      std::lock_guard calls(clfft_calls());
      for (const clfftPlanHandle each : {forward_, inverse_}) {
        std::size_t needed = 0;
        check(clfftGetTmpBufSize(each, &needed), "sizing the scratch buffer");
        bytes = std::max(bytes, needed);
      }
    }
    if (bytes > 0) buffers.scratch = allocate(bytes, name, "scratch");
    buffers.sized = true;
  }
  // An array at an offset goes through a buffer of the queue's (clFFT takes whole buffers).
  const std::uint64_t largest = std::max(shape().real_bytes(), shape().spectrum_bytes());
  const auto staged = [&](FftArray array, cl_mem& own, const char* what) {
    if (array.offset == 0) return static_cast<cl_mem>(array.buffer->handle());
    if (own == nullptr) own = allocate(largest, name, what);
    return own;
  };
  cl_mem input = staged(in, buffers.input, "input");
  cl_mem output = staged(out, buffers.output, "output");
  const std::string operation = fmt::format("{} FFT of {}", name, shape().describe());
  // One in-order queue: the copy in, the transform and the copy out run in that order; the
  // wait list holds back the first, the event is the last's.
  return native->enqueue_native(
      operation.c_str(), after,
      [&](cl_command_queue commands, cl_uint count, const cl_event* list, cl_event* event) {
        cl_int status = CL_SUCCESS;
        if (in.offset != 0) {
          status = clEnqueueCopyBuffer(commands, static_cast<cl_mem>(in.buffer->handle()), input,
                                       in.offset, 0, in_bytes, count, list, nullptr);
          count = 0;
          list = nullptr;
        }
        if (status != CL_SUCCESS) return status;
        {
          std::lock_guard calls(clfft_calls());
          status = static_cast<cl_int>(clfftEnqueueTransform(
              plan, direction, 1, &commands, count, list, out.offset == 0 ? event : nullptr, &input,
              &output, buffers.scratch));
        }
        if (status == CL_SUCCESS && out.offset != 0) {
          status = clEnqueueCopyBuffer(commands, output, static_cast<cl_mem>(out.buffer->handle()),
                                       0, out.offset, out_bytes, 0, nullptr, event);
        }
        return status;
      });
}

cl_mem ClfftPlan::allocate(std::uint64_t bytes, const char* name, const char* what) {
  cl_int status = CL_SUCCESS;
  cl_mem made = clCreateBuffer(context_->context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
  if (status != CL_SUCCESS) {
    throw DeviceError(fmt::format("opencl {}: {} FFT of {}: cannot allocate {} B for the {}: {}",
                                  *device_.label(), name, shape().describe(), bytes, what,
                                  cl_error_name(status)));
  }
  return made;
}

Event ClfftPlan::forward(Queue& queue, FftArray real, FftArray spectrum,
                         std::span<const Event> after) {
  check_buffers(device_, real, spectrum, "forward");
  return run(forward_, CLFFT_FORWARD, "forward", queue, real, shape().real_bytes(), spectrum,
             shape().spectrum_bytes(), after);
}

Event ClfftPlan::inverse(Queue& queue, FftArray spectrum, FftArray real,
                         std::span<const Event> after) {
  check_buffers(device_, real, spectrum, "inverse");
  return run(inverse_, CLFFT_BACKWARD, "inverse", queue, spectrum, shape().spectrum_bytes(), real,
             shape().real_bytes(), after);
}

std::shared_ptr<FftPlan> OpenClDevice::make_fft_plan(const FftShape& shape) {
  return std::make_shared<ClfftPlan>(shape, *this);
}

}  // namespace strata::device::detail
