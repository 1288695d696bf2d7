#include "cuda_queue.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "../fill_pattern.hpp"
#include "cuda_error.hpp"
#include "cuda_event.hpp"
#include "cuda_kernel.hpp"
#include "strata/device/errors.hpp"
#include "strata/device/kernel_source.hpp"

namespace strata::device::cuda {

CudaQueue::CudaQueue(QueueKind kind, const Device& device, int ordinal, const LaunchLimits& limits)
    : kind_(kind),
      device_(device),
      ordinal_(ordinal),
      limits_(limits),
      issuer_(std::make_shared<OrderedIssuer>()) {
  check(cudaSetDevice(ordinal_), device_.info().id, "selecting the device");
  check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), device_.info().id,
        "creating a stream");
}

CudaQueue::~CudaQueue() {
  issuer_->close(std::make_exception_ptr(DeviceError(
      fmt::format("{} {} queue: the device was destroyed before the operation's events completed",
                  device_.info().id, to_string(kind_)))));
  cudaSetDevice(ordinal_);
  cudaStreamSynchronize(stream_);
  cudaStreamDestroy(stream_);
}

Event CudaQueue::submit(std::span<const Event> after, std::string what, Operation operation) {
  auto event = CudaEvent::create(ordinal_, device_.info().id);
  std::vector<Event> on_gpu;   // recorded CUDA events: the stream waits for them
  std::vector<Event> on_host;  // everything else still running, or failed
  for (const Event& dependency : after) {
    if (!dependency) continue;
    auto* cuda = dynamic_cast<CudaEvent*>(dependency.state());
    if (cuda != nullptr && cuda->native() != nullptr) {
      on_gpu.push_back(dependency);
    } else if (!dependency.done() || dependency.state()->error()) {
      on_host.push_back(dependency);
    }
  }
  issuer_->submit(
      std::move(on_host), [event, on_gpu = std::move(on_gpu), operation = std::move(operation),
                           stream = stream_, ordinal = ordinal_, what = std::move(what),
                           id = device_.info().id](std::exception_ptr failed) {
        if (failed) {
          event->fail(failed);
          return;
        }
        cudaError_t status = cudaSetDevice(ordinal);
        for (const Event& dependency : on_gpu) {
          if (status != cudaSuccess) break;
          status =
              cudaStreamWaitEvent(stream, static_cast<CudaEvent*>(dependency.state())->native(), 0);
        }
        if (status == cudaSuccess) {
          try {
            status = operation(stream);
          } catch (...) {
            event->fail(std::current_exception());
            return;
          }
        }
        if (status != cudaSuccess) {
          event->fail(error_for(status, id, what.c_str()));
          return;
        }
        event->record(stream);
      });
  return Event(event);
}

void CudaQueue::check_range(const DeviceBuffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                            const char* operation) const {
  const std::string& id = device_.info().id;
  if (!buffer) throw DeviceError(fmt::format("{} {}: the device buffer is empty", id, operation));
  if (buffer.device() != &device_) {
    throw DeviceError(fmt::format("{} {}: the buffer belongs to another device ({})", id, operation,
                                  buffer.device()->info().id));
  }
  if (offset > buffer.bytes() || bytes > buffer.bytes() - offset) {
    throw DeviceError(fmt::format("{} {}: {} B at offset {} exceed the {} B buffer", id, operation,
                                  bytes, offset, buffer.bytes()));
  }
}

namespace {

char* address(const DeviceBuffer& buffer, std::uint64_t offset) {
  return static_cast<char*>(buffer.handle()) + offset;
}

}  // namespace

Event CudaQueue::copy_to_device(const DeviceBuffer& destination, std::uint64_t offset,
                                const void* source, std::uint64_t bytes,
                                std::span<const Event> after) {
  check_range(destination, offset, bytes, "copy to device");
  if (source == nullptr && bytes > 0) {
    throw DeviceError(fmt::format("{} copy to device: the host source is null", device_.info().id));
  }
  char* target = address(destination, offset);
  return submit(after, "copy to device", [=](cudaStream_t stream) {
    return cudaMemcpyAsync(target, source, bytes, cudaMemcpyHostToDevice, stream);
  });
}

Event CudaQueue::copy_to_host(void* destination, const DeviceBuffer& source, std::uint64_t offset,
                              std::uint64_t bytes, std::span<const Event> after) {
  check_range(source, offset, bytes, "copy to host");
  if (destination == nullptr && bytes > 0) {
    throw DeviceError(
        fmt::format("{} copy to host: the host destination is null", device_.info().id));
  }
  const char* origin = address(source, offset);
  return submit(after, "copy to host", [=](cudaStream_t stream) {
    return cudaMemcpyAsync(destination, origin, bytes, cudaMemcpyDeviceToHost, stream);
  });
}

Event CudaQueue::copy_on_device(const DeviceBuffer& destination, std::uint64_t destination_offset,
                                const DeviceBuffer& source, std::uint64_t source_offset,
                                std::uint64_t bytes, std::span<const Event> after) {
  check_range(destination, destination_offset, bytes, "copy on device");
  check_range(source, source_offset, bytes, "copy on device");
  char* target = address(destination, destination_offset);
  const char* origin = address(source, source_offset);
  return submit(after, "copy on device", [=](cudaStream_t stream) {
    return cudaMemcpyAsync(target, origin, bytes, cudaMemcpyDeviceToDevice, stream);
  });
}

Event CudaQueue::fill(const DeviceBuffer& destination, std::uint64_t offset,
                      std::span<const std::byte> pattern, std::uint64_t bytes,
                      std::span<const Event> after) {
  check_range(destination, offset, bytes, "fill");
  const detail::FillPattern checked =
      detail::fill_pattern(device_.info().id, pattern, offset, bytes);
  char* target = address(destination, offset);
  if (checked.uniform()) {
    const int value = std::to_integer<int>(checked.bytes[0]);
    return submit(after, "fill", [=](cudaStream_t stream) {
      return cudaMemsetAsync(target, value, bytes, stream);
    });
  }
  // The runtime API sets bytes only: other patterns are written on the host once and copied,
  // the host copy kept until the copy completed.
  auto staged = std::make_shared<std::vector<std::byte>>(bytes);
  checked.write(staged->data(), bytes);
  Event copied = submit(after, "fill", [=](cudaStream_t stream) {
    return cudaMemcpyAsync(target, staged->data(), bytes, cudaMemcpyHostToDevice, stream);
  });
  copied.on_complete([staged](std::exception_ptr) {});
  return copied;
}

Event CudaQueue::copy_rect_on_device(const DeviceBuffer& destination, const BufferRect& to,
                                     const DeviceBuffer& source, const BufferRect& from,
                                     const RectExtent& extent, std::span<const Event> after) {
  check_range(destination, to.offset, rect_end(to, extent) - to.offset, "copy a region on device");
  check_range(source, from.offset, rect_end(from, extent) - from.offset, "copy a region on device");
  char* target = address(destination, to.offset);
  const char* origin = address(source, from.offset);
  // One 2-D copy per slice: cudaMemcpy3D's slices lie a whole number of rows apart.
  return submit(after, "copy a region on device", [=](cudaStream_t stream) {
    for (std::uint64_t z = 0; z < extent.depth; ++z) {
      const cudaError_t status = cudaMemcpy2DAsync(
          target + z * to.slice_pitch, extent.height > 1 ? to.row_pitch : extent.width,
          origin + z * from.slice_pitch, extent.height > 1 ? from.row_pitch : extent.width,
          extent.width, extent.height, cudaMemcpyDeviceToDevice, stream);
      if (status != cudaSuccess) return status;
    }
    return cudaSuccess;
  });
}

Event CudaQueue::launch(const CompiledKernel& kernel, const LaunchGeometry& geometry,
                        const KernelArgs& args, std::span<const Event> after) {
  const KernelDefinition& definition = kernel.definition();
  const auto* compiled = dynamic_cast<const CudaCompiledKernel*>(&kernel);
  if (compiled == nullptr || &compiled->device() != &device_) {
    throw KernelLaunchError(definition.name(), "",
                            fmt::format("kernel '{}' was not compiled for {} (Device::compile)",
                                        definition.name(), device_.info().id));
  }
  validate_arguments(definition, args);
  const std::optional<LaunchShifts> shifts = launch_shifts(kernel, args, definition.cuda_style());
  // One 8-byte slot per parameter: the scalar's bytes or the region's device address (with
  // origins at launch, moved back by its origin's shift so that global indices address it); then
  // the block offset, where the program takes it at launch.
  std::vector<std::array<unsigned char, 8>> slots(args.size());
  std::size_t array = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const KernelArg& arg = args[i];
    if (!arg.is_array) {
      slots[i] = arg.scalar_bytes;
      continue;
    }
    if (arg.buffer->device() != &device_) {
      throw KernelLaunchError(
          definition.name(), definition.param(i).name,
          fmt::format("kernel '{}', parameter '{}': the buffer belongs to another device ({}, "
                      "not {})",
                      definition.name(), definition.param(i).name, arg.buffer->device()->info().id,
                      device_.info().id));
    }
    auto pointer = reinterpret_cast<std::uintptr_t>(address(*arg.buffer, arg.byte_offset));
    if (shifts) {
      pointer -= static_cast<std::uintptr_t>(shifts->elements[array]) *
                 static_cast<std::uintptr_t>(size_of(arg.type));
    }
    ++array;
    std::memcpy(slots[i].data(), &pointer, sizeof pointer);
  }
  if (shifts) {
    for (std::uint32_t offset : shifts->block_offset)
      slots.push_back(KernelArg::value(offset).scalar_bytes);
  }
  const LaunchShape shape = shape_launch(definition.name(), geometry, limits_);
  return submit(after, fmt::format("launch of kernel '{}'", definition.name()),
                [shape, slots = std::move(slots),
                 function = compiled->kernel()](cudaStream_t stream) mutable {
                  std::vector<void*> params(slots.size());
                  for (std::size_t i = 0; i < slots.size(); ++i)
                    params[i] = slots[i].data();
                  return cudaLaunchKernel(reinterpret_cast<const void*>(function),
                                          dim3(shape.grid[0], shape.grid[1], shape.grid[2]),
                                          dim3(shape.block[0], shape.block[1], shape.block[2]),
                                          params.data(), 0, stream);
                });
}

Event CudaQueue::marker() {
  return submit({}, "marker", [](cudaStream_t) { return cudaSuccess; });
}

}  // namespace strata::device::cuda
