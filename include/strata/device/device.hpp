#pragma once
// The backend interface: a device with its memory, one compute queue and two copy queues, and
// kernel compilation. CPU, OpenCL and CUDA implement it; the runtime's device executors drive
// the queues so that uploads, kernels and downloads overlap.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "strata/device/buffer_rect.hpp"
#include "strata/device/event.hpp"
#include "strata/device/fft.hpp"
#include "strata/device/kernel.hpp"

namespace strata::device {

enum class BackendKind : std::uint8_t { cpu, opencl, cuda };
const char* to_string(BackendKind backend);

// What discovery tells about a device.
struct DeviceInfo {
  BackendKind backend = BackendKind::cpu;
  std::string name;      // e.g. "NVIDIA H100 80GB HBM3", "cpu-Intel(R) Xeon(R)"
  std::string platform;  // OpenCL platform or driver name
  std::string id;        // unique within the process, e.g. "opencl:0:0", "cuda:1", "cpu"
  std::uint64_t memory_bytes = 0;
  unsigned compute_units = 0;
  std::uint64_t max_allocation_bytes = 0;
  unsigned max_block_threads = 0;  // largest work-group / thread block
  bool host_memory = false;        // its memory is host memory (CPU backend, PoCL)
  // Where arrays in a buffer best start: offsets that are multiples of this (OpenCL:
  // CL_DEVICE_MEM_BASE_ADDR_ALIGN, 512 B on NVIDIA's); the memory manager places chunks so.
  std::uint64_t buffer_offset_alignment = 1;
};

// The queues every device has; operations on one queue run in order, different queues overlap.
enum class QueueKind : std::uint8_t { compute = 0, host_to_device = 1, device_to_host = 2 };
inline constexpr int queue_kinds = 3;
const char* to_string(QueueKind queue);

class Device;

// Device memory owned by this object and freed when it is destroyed, or (in_place()) memory
// owned elsewhere that the device uses where it lies.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(Device* device, void* handle, std::uint64_t bytes)
      : device_(device), handle_(handle), bytes_(bytes) {}
  // A buffer over memory that stays its owner's: never released by this object.
  static DeviceBuffer in_place(Device* device, void* handle, std::uint64_t bytes) {
    DeviceBuffer buffer(device, handle, bytes);
    buffer.owned_ = false;
    return buffer;
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    DeviceBuffer(std::move(other)).swap(*this);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  Device* device() const { return device_; }
  // The backend's handle: cl_mem (OpenCL), a device pointer (CUDA), a host pointer (CPU).
  void* handle() const { return handle_; }
  std::uint64_t bytes() const { return bytes_; }
  explicit operator bool() const { return handle_ != nullptr; }

 private:
  void swap(DeviceBuffer& other) noexcept {
    std::swap(device_, other.device_);
    std::swap(handle_, other.handle_);
    std::swap(bytes_, other.bytes_);
    std::swap(owned_, other.owned_);
  }
  Device* device_ = nullptr;
  void* handle_ = nullptr;
  std::uint64_t bytes_ = 0;
  bool owned_ = true;
};

// Host memory for transfers, pinned (page-locked) where the backend offers it.
class HostBuffer {
 public:
  HostBuffer() = default;
  HostBuffer(void* data, std::uint64_t bytes, std::function<void(void*)> free)
      : data_(data), bytes_(bytes), free_(std::move(free)) {}
  HostBuffer(HostBuffer&& other) noexcept { swap(other); }
  HostBuffer& operator=(HostBuffer&& other) noexcept {
    HostBuffer(std::move(other)).swap(*this);
    return *this;
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  // Whole pages from the system (not pinned), returned to it when freed; empty (data() null)
  // when the system has none left.
  static HostBuffer mapped(std::uint64_t bytes);
  ~HostBuffer() {
    if (data_ != nullptr && free_) free_(data_);
  }
  void* data() const { return data_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  void swap(HostBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    std::swap(free_, other.free_);
  }
  void* data_ = nullptr;
  std::uint64_t bytes_ = 0;
  std::function<void(void*)> free_;
};

// Where one array argument's region lies in the global array a virtual-blocks kernel indexes:
// the global index of its first element and its local extents (row-major, last dim fastest).
struct ArrayPlacement {
  Dim3 offset{0, 0, 0};
  Dim3 extent;
};

// What a compilation bakes into the program besides the source.
struct CompileOptions {
  std::vector<std::pair<std::string, std::string>> defines;  // extra #define NAME VALUE
  // Virtual-blocks kernels (the lightning paper's wrapper constants):
  Dim3 block_offset{0, 0, 0};              // added to the physical block index
  std::vector<ArrayPlacement> placements;  // per array parameter, in signature order
  std::string flags;                       // extra compiler flags
  // The block offset and the placements' offsets are taken at each launch (KernelArgs::origins)
  // instead of baked in: one program serves every region of the same extents (every superblock
  // of a distribution), at the cost of a few more arguments. Only the extents are compiled in.
  bool origins_at_launch = false;
};

// A kernel compiled for one device.
class CompiledKernel {
 public:
  explicit CompiledKernel(const KernelDefinition& definition, CompileOptions options = {})
      : definition_(definition), options_(std::move(options)) {}
  virtual ~CompiledKernel() = default;
  const KernelDefinition& definition() const { return definition_; }
  // What it was compiled with (with origins_at_launch, its placements' extents hold).
  const CompileOptions& options() const { return options_; }
  // Whether this program came from the program cache (memory or disk) instead of a compiler.
  bool from_cache() const { return from_cache_; }
  void set_from_cache(bool cached) { from_cache_ = cached; }

 private:
  KernelDefinition definition_;
  CompileOptions options_;
  bool from_cache_ = false;
};

// An in-order stream of operations on a device. Each returns the event of its completion; an
// operation starts only after the events in `after` (from any queue of any device) completed.
class Queue {
 public:
  virtual ~Queue() = default;
  virtual QueueKind kind() const = 0;
  virtual Event copy_to_device(const DeviceBuffer& destination, std::uint64_t offset,
                               const void* source, std::uint64_t bytes,
                               std::span<const Event> after = {}) = 0;
  virtual Event copy_to_host(void* destination, const DeviceBuffer& source, std::uint64_t offset,
                             std::uint64_t bytes, std::span<const Event> after = {}) = 0;
  virtual Event copy_on_device(const DeviceBuffer& destination, std::uint64_t destination_offset,
                               const DeviceBuffer& source, std::uint64_t source_offset,
                               std::uint64_t bytes, std::span<const Event> after = {}) = 0;
  // Copies a rectangular region of `source` to one of the same extent in `destination` (both
  // buffers of this device, regions that do not overlap): rows need not be adjacent, so a
  // strided box of a chunk moves without staging it anywhere else.
  virtual Event copy_rect_on_device(const DeviceBuffer& destination, const BufferRect& to,
                                    const DeviceBuffer& source, const BufferRect& from,
                                    const RectExtent& extent,
                                    std::span<const Event> after = {}) = 0;
  // Fills `bytes` at `offset` of `destination` with copies of `pattern` (1, 2, 4 or 8 bytes, read
  // before the call returns; offset and bytes whole multiples of its size), on the device: no
  // host buffer of the region is made or copied.
  virtual Event fill(const DeviceBuffer& destination, std::uint64_t offset,
                     std::span<const std::byte> pattern, std::uint64_t bytes,
                     std::span<const Event> after = {}) = 0;
  // Checks the arguments against the signature, then enqueues the kernel.
  virtual Event launch(const CompiledKernel& kernel, const LaunchGeometry& geometry,
                       const KernelArgs& args, std::span<const Event> after = {}) = 0;
  // An event that completes when everything enqueued so far has.
  virtual Event marker() = 0;
  // Waits for everything enqueued so far.
  void finish() { marker().wait(); }
};

// One device of one backend.
class Device {
 public:
  virtual ~Device() = default;
  virtual const DeviceInfo& info() const = 0;
  virtual DeviceBuffer allocate(std::uint64_t bytes) = 0;
  // Bytes of its memory free now where the backend can tell (CUDA); otherwise memory_bytes.
  virtual std::uint64_t free_memory_bytes() const { return info().memory_bytes; }
  virtual HostBuffer allocate_host(std::uint64_t bytes);
  // Host memory `data` (of `bytes`, owned by the caller and outliving the buffer) as a buffer of
  // this device that its kernels use in place, without copies; empty where the device cannot
  // (the default; the CPU device can).
  virtual DeviceBuffer use_host_memory(void* data, std::uint64_t bytes);
  virtual Queue& queue(QueueKind kind) = 0;
  // Compiles (or finds in the program cache) `kernel` for this device.
  virtual std::shared_ptr<const CompiledKernel> compile(const KernelDefinition& kernel,
                                                        const CompileOptions& options = {}) = 0;
  // The real<->complex FFT of `shape` through the backend's FFT library (see fft.hpp), planned
  // on first use and kept for the device's life (clFFT compiles kernels when planning); throws
  // DeviceError naming the device when the shape is invalid or the library refuses it.
  std::shared_ptr<FftPlan> plan_fft(const FftShape& shape);
  // Waits for every queue.
  void synchronize();

 protected:
  friend class DeviceBuffer;
  virtual void release(void* handle, std::uint64_t bytes) noexcept = 0;
  // A new plan of `shape` (plan_fft caches them).
  virtual std::shared_ptr<FftPlan> make_fft_plan(const FftShape& shape) = 0;

 private:
  std::mutex fft_lock_;
  std::map<std::array<std::uint64_t, 3>, std::shared_ptr<FftPlan>> fft_plans_;
};

template <typename T>
T* CpuBlock::array(std::size_t index) const {
  const KernelArg& arg = args[index];
  return reinterpret_cast<T*>(static_cast<unsigned char*>(arg.buffer->handle()) + arg.byte_offset);
}

template <typename T>
GlobalArray<T> CpuBlock::global_array(std::size_t index) const {
  GlobalArray<T> view;
  view.data = array<T>(index);
  if (placements == nullptr) return view;
  std::size_t ordinal = 0;
  for (std::size_t i = 0; i < index; ++i)
    ordinal += args[i].is_array ? 1 : 0;
  if (ordinal < placements->size()) {
    view.offset = (*placements)[ordinal].offset;
    view.extent = (*placements)[ordinal].extent;
  }
  return view;
}

}  // namespace strata::device
