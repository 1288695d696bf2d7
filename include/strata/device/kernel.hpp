#pragma once
// A kernel definition: one object with a name, a parameter signature and one implementation per
// backend (a C++ callable, OpenCL C source, CUDA source). Launch arguments are checked against
// the signature before anything reaches a device.

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "strata/device/element_type.hpp"

namespace strata::device {

class DeviceBuffer;
enum class BackendKind : std::uint8_t;

// A 1-3-D extent or index; unused dimensions are 1 (extents) or 0 (indices).
struct Dim3 {
  std::uint64_t x = 1, y = 1, z = 1;
  std::uint64_t volume() const { return x * y * z; }
  std::uint64_t operator[](int d) const { return d == 0 ? x : d == 1 ? y : z; }
  friend bool operator==(const Dim3&, const Dim3&) = default;
};

// How the threads of a launch are laid out: `global` threads per dimension in blocks
// (work-groups) of `block` threads; a zero block lets the backend choose.
struct LaunchGeometry {
  Dim3 global;
  Dim3 block{0, 0, 0};
  int dimensions = 1;  // 1, 2 or 3
};

// How a kernel's source expects to be called.
enum class KernelStyle : std::uint8_t {
  // The source defines the entry point itself (`__kernel void NAME(...)`, `extern "C"
  // __global__ void NAME(...)`), taking the parameters in signature order as raw pointers.
  direct,
  // The lightning paper's style (§3.5): the source defines a device function NAME taking a
  // virtual block index first, then the parameters, arrays as strata::Array types (CUDA) or
  // pointers (OpenCL). Strata generates the entry point with per-launch constants baked in.
  virtual_blocks,
};

// What a kernel does with an array parameter.
enum class ParamAccess : std::uint8_t { read, write, read_write };

// One parameter of a kernel's signature.
struct KernelParam {
  std::string name;
  bool is_array = false;
  ElementType type = ElementType::f32;
  ParamAccess access = ParamAccess::read;  // arrays only
  int rank = 1;                            // arrays only: 1, 2 or 3 dimensions
};

struct KernelArgs;

// An array parameter of a virtual-blocks CPU kernel indexed by global indices, as the CUDA and
// OpenCL wrappers index it: the argument holds the region that starts at global index `offset`
// and has local extents `extent` (row-major, the last dimension fastest).
template <typename T>
struct GlobalArray {
  T* data = nullptr;
  Dim3 offset{0, 0, 0};
  Dim3 extent{1, 1, 1};

  T& operator()(std::uint64_t i) const { return data[i - offset.x]; }
  T& operator()(std::uint64_t i, std::uint64_t j) const {
    return data[(i - offset.x) * extent.y + (j - offset.y)];
  }
  T& operator()(std::uint64_t i, std::uint64_t j, std::uint64_t k) const {
    return data[((i - offset.x) * extent.y + (j - offset.y)) * extent.z + (k - offset.z)];
  }
};

struct ArrayPlacement;

// What a CPU implementation sees for one block of the index space.
struct CpuBlock {
  Dim3 begin;  // first global thread index of the block, per dimension
  Dim3 end;    // one past the last
  const KernelArgs& args;
  // Virtual-blocks kernels: where each array parameter's region lies (CompileOptions), in
  // signature order of the array parameters; null when compiled without placements.
  const std::vector<ArrayPlacement>* placements = nullptr;
  // Scalar parameter `index` (checked: the launch validated the types).
  template <typename T>
  T scalar(std::size_t index) const;
  // Array parameter `index` as a pointer to its first element.
  template <typename T>
  T* array(std::size_t index) const;
  // Array parameter `index` indexed by global indices (its placement; without placements the
  // offset is 0 and only one dimension is known).
  template <typename T>
  GlobalArray<T> global_array(std::size_t index) const;
};

using CpuKernelFunction = std::function<void(const CpuBlock& block)>;

// Which ranges a CPU implementation may be called with.
enum class CpuCalls : std::uint8_t {
  // Once per block of the launch's geometry: the body may rely on [begin, end) being one block
  // (a result per block, a block-sized scratch array).
  per_block,
  // Any box of whole blocks: the body only loops over [begin, end). The CPU device then calls it
  // for runs of blocks along x (whole rows where the launch leaves enough calls for its threads),
  // so the innermost loop streams along rows instead of restarting every block's width.
  any_range,
};

// The kernel definition: built once, compiled per device, launched many times.
class KernelDefinition {
 public:
  explicit KernelDefinition(std::string name) : name_(std::move(name)) {}

  KernelDefinition& scalar(std::string param, ElementType type);
  template <typename T>
  KernelDefinition& scalar(std::string param) {
    return scalar(std::move(param), element_type_of<T>());
  }
  KernelDefinition& array(std::string param, ElementType type, ParamAccess access, int rank = 1);
  template <typename T>
  KernelDefinition& array(std::string param, ParamAccess access, int rank = 1) {
    return array(std::move(param), element_type_of<T>(), access, rank);
  }
  KernelDefinition& cpu(CpuKernelFunction function, CpuCalls calls = CpuCalls::per_block);
  KernelDefinition& opencl(std::string source, KernelStyle style = KernelStyle::direct);
  KernelDefinition& cuda(std::string source, KernelStyle style = KernelStyle::direct);
  // A compile-time constant (#define NAME VALUE) for every backend's source.
  KernelDefinition& define(std::string constant, std::string value);
  // Reads a source file; a missing file is an error naming it and the kernel.
  static std::string load_source(const std::string& path, const std::string& kernel);

  const std::string& name() const { return name_; }
  const std::vector<KernelParam>& params() const { return params_; }
  const KernelParam& param(std::size_t index) const { return params_.at(index); }
  const CpuKernelFunction& cpu_function() const { return cpu_; }
  CpuCalls cpu_calls() const { return cpu_calls_; }
  const std::string& opencl_source() const { return opencl_; }
  KernelStyle opencl_style() const { return opencl_style_; }
  const std::string& cuda_source() const { return cuda_; }
  KernelStyle cuda_style() const { return cuda_style_; }
  const std::map<std::string, std::string>& defines() const { return defines_; }
  bool implements(BackendKind backend) const;

 private:
  std::string name_;
  std::vector<KernelParam> params_;
  CpuKernelFunction cpu_;
  CpuCalls cpu_calls_ = CpuCalls::per_block;
  std::string opencl_;
  KernelStyle opencl_style_ = KernelStyle::direct;
  std::string cuda_;
  KernelStyle cuda_style_ = KernelStyle::direct;
  std::map<std::string, std::string> defines_;
};

// One launch argument: a scalar value or a region of a device buffer.
struct KernelArg {
  bool is_array = false;
  ElementType type = ElementType::f32;
  std::array<unsigned char, 8> scalar_bytes{};  // scalars
  const DeviceBuffer* buffer = nullptr;         // arrays
  std::uint64_t byte_offset = 0;                // arrays: where the region starts in the buffer

  template <typename T>
  static KernelArg value(T v);
  // An array argument; the element type is the buffer region's as the caller declares it.
  static KernelArg array_of(const DeviceBuffer& buffer, ElementType type,
                            std::uint64_t byte_offset = 0);
  template <typename T>
  static KernelArg array(const DeviceBuffer& buffer, std::uint64_t element_offset = 0) {
    return array_of(buffer, element_type_of<T>(), element_offset * sizeof(T));
  }
};

// Where a virtual-blocks launch lies, given at launch to a program compiled with
// CompileOptions::origins_at_launch instead of baked into it: the index of its first block and,
// per array parameter in signature order, the global index of its region's first element.
struct LaunchOrigins {
  Dim3 block_offset{0, 0, 0};
  std::vector<Dim3> array_offsets;
};

// Arguments in signature order.
struct KernelArgs {
  std::vector<KernelArg> values;
  // Programs compiled with CompileOptions::origins_at_launch: their origins (else empty).
  std::optional<LaunchOrigins> origins;
  KernelArgs() = default;
  KernelArgs(std::initializer_list<KernelArg> list) : values(list) {}
  std::size_t size() const { return values.size(); }
  const KernelArg& operator[](std::size_t i) const { return values[i]; }
};

// Refuses arguments that do not match the signature: wrong count, a scalar for an array, wrong
// element type, an empty or foreign buffer. The KernelLaunchError names kernel and parameter.
void validate_arguments(const KernelDefinition& kernel, const KernelArgs& args);

// ---- inline template definitions ----

template <typename T>
KernelArg KernelArg::value(T v) {
  static_assert(sizeof(T) <= 8);
  KernelArg arg;
  arg.type = element_type_of<T>();
  std::memcpy(arg.scalar_bytes.data(), &v, sizeof(T));
  return arg;
}

template <typename T>
T CpuBlock::scalar(std::size_t index) const {
  T v;
  std::memcpy(&v, args[index].scalar_bytes.data(), sizeof(T));
  return v;
}

}  // namespace strata::device
