#include "opencl_queue.hpp"

#include <fmt/format.h>

#include <array>

#include "../fill_pattern.hpp"
#include "cl_error.hpp"
#include "opencl_device.hpp"
#include "opencl_kernel.hpp"
#include "strata/device/errors.hpp"
#include "strata/device/kernel_source.hpp"
#include "wait_list.hpp"

namespace strata::device::detail {
namespace {

cl_mem mem_of(const DeviceBuffer& buffer) {
  return static_cast<cl_mem>(buffer.handle());
}

}  // namespace

OpenClQueue::OpenClQueue(QueueKind kind, OpenClDevice& device)
    : kind_(kind), device_(device), queue_(device.context().queue(kind)) {}

template <typename Enqueue>
Event OpenClQueue::submit(const char* operation, std::span<const Event> after, Enqueue&& enqueue) {
  WaitList wait(device_.context().context, *device_.label(), after);
  if (wait.failed()) return failed_event(wait.failed());
  cl_event event = nullptr;
  const cl_int status = enqueue(wait.size(), wait.data(), &event);
  if (status != CL_SUCCESS) {
    throw DeviceError(fmt::format("opencl {}: {} on the {} queue failed: {}", *device_.label(),
                                  operation, to_string(kind_), cl_error_name(status)));
  }
  clFlush(queue_);
  return Event(std::make_shared<OpenClEventState>(event, device_.context().context, device_.label(),
                                                  operation, std::move(wait.host_error),
                                                  std::move(wait.carriers)));
}

void OpenClQueue::check_range(const DeviceBuffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                              const char* operation) const {
  if (!buffer) {
    throw DeviceError(
        fmt::format("opencl {}: {}: the device buffer is empty", *device_.label(), operation));
  }
  if (buffer.device() != &device_) {
    throw DeviceError(fmt::format("opencl {}: {}: the buffer belongs to another device ({})",
                                  *device_.label(), operation,
                                  buffer.device() != nullptr ? buffer.device()->info().id : "?"));
  }
  if (offset > buffer.bytes() || bytes > buffer.bytes() - offset) {
    throw DeviceError(fmt::format("opencl {}: {}: {} B at offset {} exceed the {} B buffer",
                                  *device_.label(), operation, bytes, offset, buffer.bytes()));
  }
}

Event OpenClQueue::enqueue_native(const char* operation, std::span<const Event> after,
                                  const NativeEnqueue& enqueue) {
  return submit(operation, after, [&](cl_uint n, const cl_event* list, cl_event* event) {
    return enqueue(queue_, n, list, event);
  });
}

Event OpenClQueue::marker_after(const char* operation, std::span<const Event> after) {
  return submit(operation, after, [&](cl_uint n, const cl_event* list, cl_event* event) {
    return clEnqueueMarkerWithWaitList(queue_, n, list, event);
  });
}

Event OpenClQueue::copy_to_device(const DeviceBuffer& destination, std::uint64_t offset,
                                  const void* source, std::uint64_t bytes,
                                  std::span<const Event> after) {
  check_range(destination, offset, bytes, "copy to device");
  if (bytes == 0) return marker_after("copy to device", after);
  return submit("copy to device", after, [&](cl_uint n, const cl_event* list, cl_event* event) {
    return clEnqueueWriteBuffer(queue_, mem_of(destination), CL_FALSE, offset, bytes, source, n,
                                list, event);
  });
}

Event OpenClQueue::copy_to_host(void* destination, const DeviceBuffer& source, std::uint64_t offset,
                                std::uint64_t bytes, std::span<const Event> after) {
  check_range(source, offset, bytes, "copy to host");
  if (bytes == 0) return marker_after("copy to host", after);
  return submit("copy to host", after, [&](cl_uint n, const cl_event* list, cl_event* event) {
    return clEnqueueReadBuffer(queue_, mem_of(source), CL_FALSE, offset, bytes, destination, n,
                               list, event);
  });
}

Event OpenClQueue::copy_on_device(const DeviceBuffer& destination, std::uint64_t destination_offset,
                                  const DeviceBuffer& source, std::uint64_t source_offset,
                                  std::uint64_t bytes, std::span<const Event> after) {
  check_range(destination, destination_offset, bytes, "copy on device");
  check_range(source, source_offset, bytes, "copy on device");
  if (&destination == &source || destination.handle() == source.handle()) {
    const bool overlap =
        destination_offset < source_offset + bytes && source_offset < destination_offset + bytes;
    if (overlap && bytes != 0) {
      throw DeviceError(fmt::format(
          "opencl {}: copy on device: the regions at offsets {} and {} ({} B) of one buffer "
          "overlap; OpenCL cannot copy overlapping regions",
          *device_.label(), source_offset, destination_offset, bytes));
    }
  }
  if (bytes == 0) return marker_after("copy on device", after);
  return submit("copy on device", after, [&](cl_uint n, const cl_event* list, cl_event* event) {
    return clEnqueueCopyBuffer(queue_, mem_of(source), mem_of(destination), source_offset,
                               destination_offset, bytes, n, list, event);
  });
}

Event OpenClQueue::fill(const DeviceBuffer& destination, std::uint64_t offset,
                        std::span<const std::byte> pattern, std::uint64_t bytes,
                        std::span<const Event> after) {
  check_range(destination, offset, bytes, "fill");
  const FillPattern checked =
      fill_pattern(fmt::format("opencl {}", *device_.label()), pattern, offset, bytes);
  if (bytes == 0) return marker_after("fill", after);
  // clEnqueueFillBuffer copies the pattern before it returns.
  return submit("fill", after, [&](cl_uint n, const cl_event* list, cl_event* event) {
    return clEnqueueFillBuffer(queue_, mem_of(destination), checked.bytes.data(), checked.size,
                               offset, bytes, n, list, event);
  });
}

Event OpenClQueue::copy_rect_on_device(const DeviceBuffer& destination, const BufferRect& to,
                                       const DeviceBuffer& source, const BufferRect& from,
                                       const RectExtent& extent, std::span<const Event> after) {
  check_range(destination, to.offset, rect_end(to, extent) - to.offset, "copy a region on device");
  check_range(source, from.offset, rect_end(from, extent) - from.offset, "copy a region on device");
  if (extent.bytes() == 0) return marker_after("copy a region on device", after);
  // OpenCL takes a slice pitch only as a multiple of the row pitch, at least a slice's rows;
  // other regions go slice by slice (the queue keeps them in order).
  const auto row_pitch = [&](const BufferRect& rect) {
    return extent.height > 1 ? rect.row_pitch : extent.width;
  };
  const auto whole_slices = [&](const BufferRect& rect) {
    return extent.depth == 1 || (row_pitch(rect) != 0 && rect.slice_pitch % row_pitch(rect) == 0 &&
                                 rect.slice_pitch >= extent.height * row_pitch(rect));
  };
  // Within one buffer (a memory pool) OpenCL wants the same pitches on both sides, and PoCL's
  // overlap check of rectangles refuses disjoint ones: regions of one buffer go row by row.
  if (mem_of(source) == mem_of(destination)) {
    Event last;
    bool first = true;
    for (std::uint64_t z = 0; z < extent.depth; ++z) {
      for (std::uint64_t y = 0; y < extent.height; ++y) {
        const std::uint64_t source_at = from.offset + z * from.slice_pitch + y * from.row_pitch;
        const std::uint64_t target_at = to.offset + z * to.slice_pitch + y * to.row_pitch;
        last =
            submit("copy a region on device", first ? after : std::span<const Event>(),
                   [&](cl_uint n, const cl_event* list, cl_event* event) {
                     return clEnqueueCopyBuffer(queue_, mem_of(source), mem_of(destination),
                                                source_at, target_at, extent.width, n, list, event);
                   });
        first = false;
      }
    }
    return last;
  }
  const bool at_once = whole_slices(to) && whole_slices(from);
  const std::uint64_t slices = at_once ? 1 : extent.depth;
  Event last;
  for (std::uint64_t z = 0; z < slices; ++z) {
    const std::size_t source_origin[3] = {from.offset + z * from.slice_pitch, 0, 0};
    const std::size_t target_origin[3] = {to.offset + z * to.slice_pitch, 0, 0};
    const std::size_t region[3] = {extent.width, extent.height, at_once ? extent.depth : 1};
    const std::size_t source_slice = at_once && extent.depth > 1 ? from.slice_pitch : 0;
    const std::size_t target_slice = at_once && extent.depth > 1 ? to.slice_pitch : 0;
    const std::size_t source_row = row_pitch(from);
    const std::size_t target_row = row_pitch(to);
    last = submit("copy a region on device", z == 0 ? after : std::span<const Event>(),
                  [&](cl_uint n, const cl_event* list, cl_event* event) {
                    return clEnqueueCopyBufferRect(
                        queue_, mem_of(source), mem_of(destination), source_origin, target_origin,
                        region, source_row, source_slice, target_row, target_slice, n, list, event);
                  });
  }
  return last;
}

Event OpenClQueue::marker() {
  return marker_after("marker", {});
}

Event OpenClQueue::launch(const CompiledKernel& kernel, const LaunchGeometry& geometry,
                          const KernelArgs& args, std::span<const Event> after) {
  const KernelDefinition& definition = kernel.definition();
  const std::string& name = definition.name();
  const auto* compiled = dynamic_cast<const OpenClCompiledKernel*>(&kernel);
  if (compiled == nullptr || compiled->owner() != &device_) {
    throw KernelLaunchError(name, "",
                            fmt::format("kernel '{}' was not compiled for {}; compile it with "
                                        "this device's compile()",
                                        name, *device_.label()));
  }
  validate_arguments(definition, args);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const KernelArg& arg = args[i];
    if (!arg.is_array) continue;
    const std::string& param = definition.param(i).name;
    if (arg.buffer->device() != &device_) {
      throw KernelLaunchError(
          name, param,
          fmt::format("kernel '{}', parameter {} '{}': the buffer belongs to another device ({}), "
                      "not {}",
                      name, i, param, arg.buffer->device()->info().id, *device_.label()));
    }
    // A program whose source could not take offsets (its declaration was not found) gets whole
    // buffers only: an offset would be lost.
    if (arg.byte_offset != 0 && !compiled->takes_array_offsets()) {
      throw KernelLaunchError(
          name, param,
          fmt::format("kernel '{}', parameter {} '{}': the array starts at byte {} of its buffer, "
                      "but the OpenCL program takes no array offsets (its source's `__kernel "
                      "void {}(...) {{` was not found to add them); pass the offset as a scalar",
                      name, i, param, arg.byte_offset, name));
    }
  }
  if (geometry.dimensions < 1 || geometry.dimensions > 3) {
    throw KernelLaunchError(name, "",
                            fmt::format("kernel '{}': a launch has 1 to 3 dimensions, not {}", name,
                                        geometry.dimensions));
  }
  const auto dims = static_cast<cl_uint>(geometry.dimensions);
  const bool blocked = geometry.block.volume() != 0;
  std::array<std::size_t, 3> global{1, 1, 1};
  std::array<std::size_t, 3> local{1, 1, 1};
  for (cl_uint d = 0; d < dims; ++d) {
    const std::uint64_t threads = geometry.global[static_cast<int>(d)];
    if (threads == 0) {
      throw KernelLaunchError(name, "",
                              fmt::format("kernel '{}': the launch has no threads", name));
    }
    const std::uint64_t block = blocked ? geometry.block[static_cast<int>(d)] : 1;
    // Rounded up to whole blocks, as in CUDA: kernels check their index against the size.
    global[d] = static_cast<std::size_t>((threads + block - 1) / block * block);
    local[d] = static_cast<std::size_t>(block);
  }

  // Origins at launch: the block offset, then each array's shift, after the kernel's arguments.
  std::vector<KernelArg> trailing;
  if (const auto shifts = launch_shifts(kernel, args, definition.opencl_style())) {
    for (std::uint32_t offset : shifts->block_offset)
      trailing.push_back(KernelArg::value(offset));
    for (std::int64_t shift : shifts->elements)
      trailing.push_back(KernelArg::value(shift));
  }
  // Each array's element offset in its buffer, after the origins (the program takes whole
  // buffers, never sub-buffers: see GeneratedSource).
  if (compiled->takes_array_offsets()) {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const KernelArg& arg = args[i];
      if (!arg.is_array) continue;
      trailing.push_back(KernelArg::value<std::uint64_t>(arg.byte_offset / size_of(arg.type)));
    }
  }
  const cl_kernel native = compiled->native();
  return submit("kernel launch", after, [&](cl_uint n, const cl_event* list, cl_event* event) {
    std::lock_guard guard(compiled->lock());
    for (std::size_t i = 0; i < args.size(); ++i) {
      const KernelArg& arg = args[i];
      const auto index = static_cast<cl_uint>(i);
      cl_int status = CL_SUCCESS;
      if (arg.is_array) {
        cl_mem buffer = mem_of(*arg.buffer);
        status = clSetKernelArg(native, index, sizeof buffer, &buffer);
      } else {
        status = clSetKernelArg(native, index, size_of(arg.type), arg.scalar_bytes.data());
      }
      if (status != CL_SUCCESS) {
        const std::string& param = definition.param(i).name;
        throw KernelLaunchError(
            name, param,
            fmt::format("kernel '{}', parameter {} '{}': {} refused the argument ({}); does the "
                        "OpenCL source declare it as the signature does ({} {})?",
                        name, i, param, *device_.label(), cl_error_name(status),
                        arg.is_array ? "array of" : "scalar", to_string(arg.type)));
      }
    }
    for (std::size_t j = 0; j < trailing.size(); ++j) {
      const cl_int status =
          clSetKernelArg(native, static_cast<cl_uint>(args.size() + j), size_of(trailing[j].type),
                         trailing[j].scalar_bytes.data());
      if (status != CL_SUCCESS) {
        throw KernelLaunchError(name, "",
                                fmt::format("kernel '{}': {} refused trailing argument {} ({})",
                                            name, *device_.label(), j, cl_error_name(status)));
      }
    }
    const cl_int status = clEnqueueNDRangeKernel(queue_, native, dims, nullptr, global.data(),
                                                 blocked ? local.data() : nullptr, n, list, event);
    if (status == CL_INVALID_WORK_GROUP_SIZE || status == CL_INVALID_WORK_ITEM_SIZE ||
        status == CL_INVALID_GLOBAL_WORK_SIZE) {
      throw KernelLaunchError(
          name, "",
          fmt::format("kernel '{}': {} refused the geometry (global {}x{}x{}, block {}x{}x{}): {}",
                      name, *device_.label(), global[0], global[1], global[2],
                      blocked ? local[0] : 0, blocked ? local[1] : 0, blocked ? local[2] : 0,
                      cl_error_name(status)));
    }
    return status;
  });
}

}  // namespace strata::device::detail
