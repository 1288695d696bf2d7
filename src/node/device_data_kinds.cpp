#include "strata/node/device_data_kinds.hpp"

#include <cstring>

#include "combine_kernel.hpp"
#include "strata/base/error.hpp"
#include "strata/cluster/serialization.hpp"

namespace strata::node {

namespace {
template <class T>
T decode_args(const cluster::PlanOp& op, const char* what) {
  return cluster::decode<T>(std::as_bytes(std::span(op.args.data(), op.args.size())), what);
}
}  // namespace

DeviceDataKinds::DeviceDataKinds(std::vector<device::Device*> devices,
                                 std::vector<runtime::DeviceExecutors> executors)
    : devices_(std::move(devices)), executors_(std::move(executors)) {}

void DeviceDataKinds::extend(cluster::Program& program) {
  program.extend_kind("copy_box", [this](cluster::PlanKind host) -> cluster::PlanKind {
    return [this, host](cluster::PlanContext& context, const cluster::PlanOp& op) {
      copy_box(host, context, op);
    };
  });
  program.extend_kind("combine", [this](cluster::PlanKind host) -> cluster::PlanKind {
    return [this, host](cluster::PlanContext& context, const cluster::PlanOp& op) {
      combine(host, context, op);
    };
  });
}

std::optional<std::uint32_t> DeviceDataKinds::device_of(
    cluster::PlanContext& context, std::span<const cluster::PlannedAccess> inputs,
    const cluster::PlannedAccess& output) {
  std::optional<std::uint32_t> found;
  const auto agrees = [&](const cluster::PlannedAccess& access) {
    const std::optional<runtime::ExecutorId> writer = context.writer_executor(access);
    if (!writer) return false;
    for (std::uint32_t d = 0; d < executors_.size(); ++d) {
      if (executors_[d].compute == *writer && (!found || *found == d)) {
        found = d;
        return true;
      }
    }
    return false;
  };
  for (const cluster::PlannedAccess& input : inputs)
    if (!agrees(input)) return std::nullopt;
  if (output.mode != runtime::Access::write && !agrees(output)) return std::nullopt;
  return found;
}

bool DeviceDataKinds::fits(cluster::PlanContext& context, std::uint32_t device,
                           std::span<const cluster::PlannedAccess> accesses) const {
  std::uint64_t bytes = 0;
  for (const cluster::PlannedAccess& access : accesses)
    bytes += access.bytes;
  memory::MemoryManager& memory = context.memory();
  return bytes <= memory.capacity(memory.space_of(*devices_[device]));
}

void DeviceDataKinds::copy_box(const cluster::PlanKind& host, cluster::PlanContext& context,
                               const cluster::PlanOp& op) {
  const auto args = decode_args<cluster::BoxCopy>(op, "the arguments of a box copy");
  if (op.accesses.size() != 2) return host(context, op);  // the host kind says what is wrong
  const cluster::PlannedAccess& from = op.accesses[0];
  const cluster::PlannedAccess& to = op.accesses[1];
  std::optional<std::uint32_t> device;
  if (args.device >= 0) {
    if (static_cast<std::size_t>(args.device) >= devices_.size()) {
      throw Error("a box copy of chunk '" + from.name + "' is planned on device " +
                  std::to_string(args.device) + " of rank " + std::to_string(context.rank()) +
                  ", which has " + std::to_string(devices_.size()) + " device(s)");
    }
    device = static_cast<std::uint32_t>(args.device);
  } else {
    device = device_of(context, std::span(&from, 1), to);
    if (device && !fits(context, *device, op.accesses)) device.reset();
  }
  if (!device) return host(context, op);
  args.from.check(args.element_bytes, from.bytes, "box copy from chunk '" + from.name + "'");
  args.to.check(args.element_bytes, to.bytes, "box copy into chunk '" + to.name + "'");
  const std::vector<memory::BoxRectCopy> pieces =
      memory::box_rect_copies(args.from, args.to, args.element_bytes);
  const runtime::DataHandle source = context.chunk(from);
  const runtime::DataHandle target = context.chunk(to);
  device::Device& gpu = *devices_[*device];
  runtime::TaskSpec spec("copy " + args.from.describe() + " of " + from.name + " to " +
                         args.to.describe() + " of " + to.name + " on " + gpu.info().id);
  spec.on(executors_[*device].compute).reads(source).access(target, to.mode);
  runtime::ChunkStaging& staging = context.staging();
  context.submit(
      std::move(spec),
      [&gpu, &staging, source, target, pieces, args](runtime::TaskContext& task) {
        const memory::ChunkView in = staging.view(task, source);
        const memory::ChunkView out = staging.view(task, target);
        // A late-sized source holds its size: the box must lie in it.
        args.from.check(args.element_bytes, in.bytes, "copying a box");
        device::Queue& queue = gpu.queue(device::QueueKind::compute);
        device::Event last;
        for (memory::BoxRectCopy piece : pieces) {
          piece.from.offset += in.offset;
          piece.to.offset += out.offset;
          last = queue.copy_rect_on_device(*out.buffer, piece.to, *in.buffer, piece.from,
                                           piece.extent);
        }
        runtime::complete_when(task, last);  // the queue keeps its copies in order
      },
      op.accesses);
}

std::shared_ptr<const device::CompiledKernel> DeviceDataKinds::combine_kernel(
    std::uint32_t device, memory::ReduceOp op, device::ElementType type) {
  std::lock_guard guard(lock_);
  auto found = kernels_.find({device, op, type});
  if (found != kernels_.end()) return found->second;
  auto made = devices_[device]->compile(detail::combine_kernel(op, type));
  kernels_.emplace(std::make_tuple(device, op, type), made);
  return made;
}

void DeviceDataKinds::combine(const cluster::PlanKind& host, cluster::PlanContext& context,
                              const cluster::PlanOp& op) {
  const auto args = decode_args<cluster::Combine>(op, "the arguments of a combine step");
  if (op.accesses.size() < 2) return host(context, op);
  const std::uint64_t bytes = op.accesses[0].bytes;
  const std::size_t element = device::size_of(args.type);
  for (const cluster::PlannedAccess& access : op.accesses) {
    // Sizes that differ, late sizes and counts past a u32 are the host kind's to take or refuse.
    if (access.bytes != bytes || access.late || bytes % element != 0 ||
        bytes / element > 0xffffffffull) {
      return host(context, op);
    }
  }
  const std::optional<std::uint32_t> device =
      device_of(context, std::span(op.accesses).subspan(1), op.accesses[0]);
  if (!device || !fits(context, *device, op.accesses)) return host(context, op);
  const auto kernel = combine_kernel(*device, args.op, args.type);
  device::Device& gpu = *devices_[*device];
  std::vector<runtime::DataHandle> data;
  runtime::TaskSpec spec("combine " + std::string(memory::to_string(args.op)) + " into " +
                         op.accesses[0].name + " on " + gpu.info().id);
  spec.on(executors_[*device].compute);
  for (std::size_t i = 0; i < op.accesses.size(); ++i) {
    data.push_back(context.chunk(op.accesses[i]));
    spec.access(data.back(), i == 0 ? op.accesses[0].mode : runtime::Access::read);
  }
  runtime::ChunkStaging& staging = context.staging();
  const auto n = static_cast<std::uint32_t>(bytes / element);
  context.submit(
      std::move(spec),
      [&gpu, &staging, kernel, data, args, n, bytes](runtime::TaskContext& task) {
        device::Queue& queue = gpu.queue(device::QueueKind::compute);
        const memory::ChunkView into = staging.view(task, data[0]);
        std::size_t next = 1;
        device::Event last;
        if (args.assign) {
          const memory::ChunkView first = staging.view(task, data[1]);
          last =
              queue.copy_on_device(*into.buffer, into.offset, *first.buffer, first.offset, bytes);
          next = 2;
        }
        const device::LaunchGeometry geometry{device::Dim3{n}};
        for (; next < data.size(); ++next) {
          last = queue.launch(*kernel, geometry,
                              {device::KernelArg::value(n), into.argument(args.type),
                               staging.view(task, data[next]).argument(args.type)});
        }
        runtime::complete_when(task, last);
      },
      op.accesses);
}

}  // namespace strata::node
