#include "strata/node/device_data_kinds.hpp"

#include <algorithm>
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
// The context the parts of an operation split over places are planned in: each task submitted
// is one of the operation's parts; the caller ends the operation with a task after them all.
class PartContext final : public cluster::PlanContext {
 public:
  explicit PartContext(cluster::PlanContext& operation) : operation_(operation) {}
  int rank() const override { return operation_.rank(); }
  runtime::Runtime& runtime() override { return operation_.runtime(); }
  runtime::ChunkStaging& staging() override { return operation_.staging(); }
  memory::MemoryManager& memory() override { return operation_.memory(); }
  runtime::DataHandle chunk(const cluster::PlannedAccess& access) override {
    return operation_.chunk(access);
  }
  std::optional<runtime::ExecutorId> writer_executor(
      const cluster::PlannedAccess& access) override {
    return operation_.writer_executor(access);
  }
  runtime::TaskHandle submit(runtime::TaskSpec spec, runtime::TaskFunction body,
                             std::span<const cluster::PlannedAccess> accesses) override {
    return submit_part(std::move(spec), std::move(body), accesses);
  }
  runtime::TaskHandle submit_part(runtime::TaskSpec spec, runtime::TaskFunction body,
                                  std::span<const cluster::PlannedAccess> accesses) override {
    parts.push_back(operation_.submit_part(std::move(spec), std::move(body), accesses));
    return parts.back();
  }

  std::vector<runtime::TaskHandle> parts;

 private:
  cluster::PlanContext& operation_;
};
}  // namespace

DeviceDataKinds::DeviceDataKinds(std::vector<device::Device*> devices,
                                 std::vector<runtime::DeviceExecutors> executors)
    : devices_(std::move(devices)), executors_(std::move(executors)) {}

void DeviceDataKinds::extend(cluster::Program& program) {
  for (const char* kind : {"copy_box", "copy_boxes"}) {
    program.extend_kind(kind, [this](cluster::PlanKind host) -> cluster::PlanKind {
      return [this, host](cluster::PlanContext& context, const cluster::PlanOp& op) {
        copy_boxes(host, context, op);
      };
    });
  }
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

void DeviceDataKinds::copy_boxes(const cluster::PlanKind& host, cluster::PlanContext& context,
                                 const cluster::PlanOp& op) {
  const cluster::BoxCopies copies = cluster::box_copies_of(op);
  if (copies.device >= 0) {
    if (static_cast<std::size_t>(copies.device) >= devices_.size()) {
      throw Error("a box copy of chunk '" + op.accesses[copies.steps.at(0).from].name +
                  "' is planned on device " + std::to_string(copies.device) + " of rank " +
                  std::to_string(context.rank()) + ", which has " +
                  std::to_string(devices_.size()) + " device(s)");
    }
    return copy_boxes_on(static_cast<std::uint32_t>(copies.device), context, op, copies);
  }
  // Each step where its chunks were written; consecutive steps of one place go together.
  std::vector<std::optional<std::uint32_t>> places;
  for (const cluster::BoxCopies::Step& step : copies.steps) {
    places.push_back(
        device_of(context, std::span(&op.accesses[step.from], 1), op.accesses[step.to]));
  }
  if (std::all_of(places.begin(), places.end(),
                  [&](const auto& place) { return place == places.front(); })) {
    if (!places.front()) return host(context, op);
    if (fits(context, *places.front(), op.accesses)) {
      return copy_boxes_on(*places.front(), context, op, copies);
    }
  }
  // In parts: consecutive steps of one place whose chunks fit its device together.
  memory::MemoryManager& memory = context.memory();
  PartContext parts(context);
  std::vector<bool> written(op.accesses.size(), false);  // by an earlier part
  for (std::size_t first = 0; first < copies.steps.size();) {
    const std::optional<std::uint32_t> place = places[first];
    const std::uint64_t capacity = place ? memory.capacity(memory.space_of(*devices_[*place])) : 0;
    cluster::PlanOp part{"copy_boxes", op.id, op.operation, {}, {}, op.peer, op.transfer};
    cluster::BoxCopies steps;
    std::vector<std::int64_t> index(op.accesses.size(), -1);
    std::uint64_t bytes = 0;
    // The part's index of an access of the operation, declared as the part's steps use it.
    const auto use = [&](std::uint32_t access, bool writes) {
      if (index[access] < 0) {
        index[access] = static_cast<std::int64_t>(part.accesses.size());
        part.accesses.push_back(op.accesses[access]);
        part.accesses.back().mode = runtime::Access::read;
        bytes += op.accesses[access].bytes;
      }
      cluster::PlannedAccess& declared = part.accesses[static_cast<std::size_t>(index[access])];
      if (writes) {
        declared.mode = written[access] ? runtime::Access::read_write : op.accesses[access].mode;
      }
      return static_cast<std::uint32_t>(index[access]);
    };
    std::size_t last = first;
    for (; last < copies.steps.size() && places[last] == place; ++last) {
      cluster::BoxCopies::Step step = copies.steps[last];
      std::uint64_t more = 0;
      for (const std::uint32_t access : {step.from, step.to})
        more += index[access] < 0 ? op.accesses[access].bytes : 0;
      if (place && last > first && bytes + more > capacity) break;
      step.from = use(step.from, false);
      step.to = use(step.to, true);
      steps.steps.push_back(step);
    }
    for (std::size_t s = first; s < last; ++s)
      written[copies.steps[s].to] = true;
    const std::vector<std::byte> encoded = cluster::encode(steps);
    part.args.assign(reinterpret_cast<const char*>(encoded.data()), encoded.size());
    if (place && bytes <= capacity) {
      copy_boxes_on(*place, parts, part, steps);
    } else {
      host(parts, part);
    }
    first = last;
  }
  context.submit(runtime::TaskSpec("copied " + std::to_string(copies.steps.size()) + " boxes in " +
                                   std::to_string(parts.parts.size()) + " parts")
                     .after(parts.parts),
                 [](runtime::TaskContext&) {}, {});
}

void DeviceDataKinds::copy_boxes_on(std::uint32_t device, cluster::PlanContext& context,
                                    const cluster::PlanOp& op, const cluster::BoxCopies& copies) {
  device::Device& gpu = *devices_[device];
  runtime::TaskSpec spec(cluster::describe_box_copies(op, copies) + " on " + gpu.info().id);
  spec.on(executors_[device].compute);
  std::vector<runtime::DataHandle> data;
  for (const cluster::PlannedAccess& access : op.accesses) {
    data.push_back(context.chunk(access));
    spec.access(data.back(), access.mode);
  }
  std::vector<std::vector<memory::BoxRectCopy>> pieces;
  for (const cluster::BoxCopies::Step& step : copies.steps)
    pieces.push_back(memory::box_rect_copies(step.from_box, step.to_box, step.element_bytes));
  runtime::ChunkStaging& staging = context.staging();
  context.submit(
      std::move(spec),
      [&gpu, &staging, data, pieces, steps = copies.steps](runtime::TaskContext& task) {
        std::vector<memory::ChunkView> views;
        for (const runtime::DataHandle& handle : data)
          views.push_back(staging.view(task, handle));
        device::Queue& queue = gpu.queue(device::QueueKind::compute);
        device::Event last;
        for (std::size_t s = 0; s < steps.size(); ++s) {
          const memory::ChunkView& in = views[steps[s].from];
          const memory::ChunkView& out = views[steps[s].to];
          // A late-sized source holds its size: the box must lie in it.
          steps[s].from_box.check(steps[s].element_bytes, in.bytes, "copying a box");
          for (memory::BoxRectCopy piece : pieces[s]) {
            piece.from.offset += in.offset;
            piece.to.offset += out.offset;
            last = queue.copy_rect_on_device(*out.buffer, piece.to, *in.buffer, piece.from,
                                             piece.extent);
          }
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
