#include "strata/node/kernel_plans.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <span>

#include "strata/base/error.hpp"
#include "strata/cluster/serialization.hpp"

namespace strata::node {
namespace {

// Fills the chunk of `view` with the argument's element, on `queue` (in order before the kernel).
void fill_on_queue(device::Queue& queue, const memory::ChunkView& view, const PlannedArg& arg) {
  const std::size_t element = device::size_of(arg.type);
  queue.fill(*view.buffer, view.offset,
             std::as_bytes(std::span(arg.scalar.data(), arg.scalar.size())).first(element),
             view.bytes);
}

// The launch's arguments on the device: its chunks' views in the task's memory space (filled
// first where the argument asks), the element counts and the scalars.
device::KernelArgs launch_arguments(const KernelLaunch& launch, runtime::ChunkStaging& staging,
                                    runtime::TaskContext& task,
                                    const std::vector<runtime::DataHandle>& data,
                                    device::Queue& queue) {
  device::KernelArgs values;
  if (!launch.placements.empty()) {
    values.origins.emplace();
    values.origins->block_offset =
        device::Dim3{launch.block_offset[0], launch.block_offset[1], launch.block_offset[2]};
    for (const auto& placement : launch.placements)
      values.origins->array_offsets.push_back({placement[0], placement[1], placement[2]});
  }
  values.values.reserve(launch.args.size());
  for (const PlannedArg& arg : launch.args) {
    if (arg.chunk) {
      const memory::ChunkView view = staging.view(task, data[arg.use]);
      if (arg.fill) fill_on_queue(queue, view, arg);
      values.values.push_back(view.argument(arg.type));
    } else if (arg.count) {
      const std::uint64_t bytes = staging.view(task, data[arg.use]).bytes;
      values.values.push_back(
          device::KernelArg::value(static_cast<std::uint32_t>(bytes / device::size_of(arg.type))));
    } else {
      device::KernelArg scalar;
      scalar.type = arg.type;
      scalar.scalar_bytes = arg.scalar;
      values.values.push_back(scalar);
    }
  }
  return values;
}

}  // namespace

// When the last measured kernel on a device's compute queue ended. The queue runs in order: a
// kernel starts once it is enqueued and the kernel before it ended.
struct KernelPlans::QueueClock {
  std::mutex lock;
  std::chrono::steady_clock::time_point last_end{};
};

namespace {

// Records in the runtime's history how long the launch's kernel ran on the executor its task got:
// from when it could start (enqueued, and the queue's previous measured kernel ended) to its end.
void record_run(runtime::TaskContext& task, const std::string& kernel, std::uint64_t bytes,
                std::shared_ptr<KernelPlans::QueueClock> clock,
                std::chrono::steady_clock::time_point enqueued, const device::Event& ran) {
  runtime::Runtime& runtime = task.runtime();
  const runtime::ExecutorKind kind = runtime.executor(task.executor()).kind();
  ran.on_complete([&runtime, kernel, bytes, kind, clock = std::move(clock),
                   enqueued](std::exception_ptr error) {
    const auto end = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point started;
    {
      std::lock_guard guard(clock->lock);
      started = std::max(enqueued, clock->last_end);
      clock->last_end = std::max(clock->last_end, end);
    }
    if (error) return;
    const std::chrono::duration<double> took = end - started;
    runtime.history().record(kernel, bytes, kind, took.count());
  });
}

device::LaunchGeometry geometry_of(const KernelLaunch& launch) {
  return device::LaunchGeometry{device::Dim3{launch.global[0], launch.global[1], launch.global[2]},
                                device::Dim3{launch.block[0], launch.block[1], launch.block[2]},
                                launch.dimensions};
}

}  // namespace

void check_batch(const KernelBatch& batch) {
  if (batch.launches.empty()) throw Error("a batch of kernel launches holds none");
  const std::uint32_t device = batch.launches.front().device;
  for (const KernelLaunch& launch : batch.launches) {
    if (launch.device != device || !launch.sizes.empty() || !launch.candidates.empty() ||
        launch.device == KernelLaunch::any_device) {
      throw Error("kernel '" + launch.kernel + "' in a batch of launches on device " +
                  std::to_string(device) +
                  ": every launch of a batch runs on that one device (no candidates, not any "
                  "device) and sets no late sizes");
    }
  }
}

KernelPlans::KernelPlans(std::vector<device::Device*> devices,
                         std::vector<runtime::DeviceExecutors> executors)
    : devices_(std::move(devices)), executors_(std::move(executors)) {
  for (std::size_t d = 0; d < devices_.size(); ++d)
    clocks_.push_back(std::make_shared<QueueClock>());
}

void KernelPlans::define(device::KernelDefinition kernel) {
  std::lock_guard guard(lock_);
  const std::string name = kernel.name();
  if (!kernels_.emplace(name, std::move(kernel)).second) {
    throw Error("kernel '" + name + "' is defined twice on this node");
  }
}

void KernelPlans::check_defined(const std::string& kernel) {
  std::lock_guard guard(lock_);
  if (kernels_.count(kernel) != 0) return;
  std::string known;
  for (const auto& [name, definition] : kernels_)
    known += (known.empty() ? "" : ", ") + name;
  throw Error("kernel '" + kernel + "' is not defined on this node (defined: " +
              (known.empty() ? std::string("none") : known) + ")");
}

std::shared_ptr<KernelPlans::Compilation> KernelPlans::compilation(runtime::Runtime& runtime,
                                                                   const KernelLaunch& launch,
                                                                   std::uint32_t device_index) {
  check_defined(launch.kernel);
  std::lock_guard guard(lock_);
  // Virtual-blocks launches (with placements): one program per kernel, device and extents, the
  // block offset and the regions' origins passed at launch, so every superblock of one shape
  // shares it. Others: the block offset baked in.
  const bool at_launch = !launch.placements.empty();
  CompiledKey key{launch.kernel, device_index, {}, {0, 0, 0}};
  for (const auto& placement : launch.placements)
    std::get<2>(key).push_back({placement[3], placement[4], placement[5]});
  if (!at_launch) std::get<3>(key) = launch.block_offset;
  auto found = compiled_.find(key);
  if (found != compiled_.end()) return found->second;
  device::CompileOptions options;
  options.origins_at_launch = at_launch;
  options.block_offset =
      device::Dim3{std::get<3>(key)[0], std::get<3>(key)[1], std::get<3>(key)[2]};
  for (const auto& extent : std::get<2>(key)) {
    options.placements.push_back(device::ArrayPlacement{
        device::Dim3{0, 0, 0}, device::Dim3{extent[0], extent[1], extent[2]}});
  }
  auto made = std::make_shared<Compilation>();
  made->task = runtime.submit(
      runtime::TaskSpec("compile kernel " + launch.kernel),
      // A weak reference: the compilation holds the task, whose body must not hold it back.
      [weak = std::weak_ptr<Compilation>(made), device = devices_[device_index],
       definition = kernels_.at(launch.kernel),
       options = std::move(options)](runtime::TaskContext&) {
        auto kernel = device->compile(definition, options);
        if (const auto compilation = weak.lock()) {
          std::lock_guard kernel_guard(compilation->lock);
          compilation->kernel = std::move(kernel);
        }
      });
  compiled_.emplace(std::move(key), made);
  return made;
}

std::shared_ptr<const device::CompiledKernel> KernelPlans::compiled(Compilation& compilation) {
  std::lock_guard guard(compilation.lock);
  return compilation.kernel;
}

std::vector<std::uint32_t> KernelPlans::devices_for(int rank, const KernelLaunch& launch) {
  check_defined(launch.kernel);
  std::lock_guard guard(lock_);
  const device::KernelDefinition& kernel = kernels_.at(launch.kernel);
  const std::string where = " of rank " + std::to_string(rank);
  std::vector<std::uint32_t> devices;
  if (launch.candidates.empty() && launch.device == KernelLaunch::any_device) {
    for (std::uint32_t d = 0; d < devices_.size(); ++d) {
      if (kernel.implements(devices_[d]->info().backend)) devices.push_back(d);
    }
    if (devices.empty()) {
      throw Error("kernel '" + launch.kernel + "' planned on any device" + where +
                  ": it has no implementation for any of the rank's " +
                  std::to_string(devices_.size()) + " device(s)");
    }
    return devices;
  }
  devices =
      launch.candidates.empty() ? std::vector<std::uint32_t>{launch.device} : launch.candidates;
  for (const std::uint32_t d : devices) {
    if (d >= devices_.size()) {
      throw Error("kernel '" + launch.kernel + "' planned on device " + std::to_string(d) + where +
                  ", which has " + std::to_string(devices_.size()) + " device(s)");
    }
    // One device: its compilation reports a missing implementation, with the compiler's words.
    if (devices.size() > 1 && !kernel.implements(devices_[d]->info().backend)) {
      throw Error("kernel '" + launch.kernel + "' planned on device " + std::to_string(d) + " (" +
                  devices_[d]->info().id + ")" + where + ", which it has no " +
                  device::to_string(devices_[d]->info().backend) + " implementation for");
    }
  }
  std::sort(devices.begin(), devices.end());
  devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
  return devices;
}

void KernelPlans::launch(cluster::PlanContext& context, const cluster::PlanOp& op) {
  auto args = cluster::decode<KernelLaunch>(
      std::as_bytes(std::span(op.args.data(), op.args.size())), "the arguments of a kernel launch");
  const std::vector<std::uint32_t> placed_on = devices_for(context.rank(), args);
  const bool chosen_at_run_time = placed_on.size() > 1;
  // Per device it may run on: the device, its compute executor and its compiled kernel.
  struct Choice {
    device::Device* device;
    runtime::ExecutorId executor;
    std::shared_ptr<Compilation> compilation;
    std::shared_ptr<QueueClock> clock;
  };
  std::vector<Choice> choices;
  runtime::TaskSpec spec(op.operation);
  for (const std::uint32_t d : placed_on) {
    choices.push_back(
        {devices_[d], executors_[d].compute, compilation(context.runtime(), args, d), clocks_[d]});
    spec.on(choices.back().executor).after(choices.back().compilation->task);
  }
  std::vector<runtime::DataHandle> data;
  std::uint64_t input_bytes = 0;
  for (const cluster::PlannedAccess& access : op.accesses) {
    data.push_back(context.chunk(access));
    spec.access(data.back(), access.mode);
    input_bytes += data.back().bytes();
  }
  if (args.speedup > 0) {
    spec.with_speedup(args.speedup);
  } else if (chosen_at_run_time) {
    if (auto learned = context.runtime().history().hints(args.kernel, input_bytes))
      spec.with_hints(std::move(learned));
  }
  // Without late sizes the body only launches on the compute queue: the next kernel on this
  // device may be enqueued behind it while it runs. (Late sizes are set once the counts are read
  // back, so readers of those chunks wait for the finish.) A launch placed at run time starts
  // when its device is free, so that its measured time is the kernel's own.
  if (args.sizes.empty() && !chosen_at_run_time) spec.in_queue_order();
  for (const LateSize& size : args.sizes) {
    if (size.use >= op.accesses.size() || size.counter >= op.accesses.size() ||
        size.element_bytes == 0) {
      throw Error("kernel '" + args.kernel + "': a late size names use " +
                  std::to_string(size.use) + " and counter " + std::to_string(size.counter) +
                  " of " + std::to_string(op.accesses.size()) + " (element bytes " +
                  std::to_string(size.element_bytes) + ")");
    }
    if (!op.accesses[size.use].late) {
      throw Error("kernel '" + args.kernel + "' sets the size of chunk '" +
                  op.accesses[size.use].name + "', which is not late-sized");
    }
  }
  runtime::ChunkStaging& staging = context.staging();
  memory::MemoryManager& memory = context.memory();
  context.submit(
      std::move(spec),
      [&staging, &memory, choices = std::move(choices), data, args = std::move(args),
       chosen_at_run_time, input_bytes](runtime::TaskContext& task) {
        const Choice* choice = &choices.front();
        for (const Choice& candidate : choices) {
          if (candidate.executor == task.executor()) choice = &candidate;
        }
        const std::shared_ptr<const device::CompiledKernel> kernel = compiled(*choice->compilation);
        device::Queue& queue = choice->device->queue(device::QueueKind::compute);
        const device::KernelArgs values = launch_arguments(args, staging, task, data, queue);
        const device::LaunchGeometry geometry = geometry_of(args);
        if (args.sizes.empty()) {
          const auto enqueued = std::chrono::steady_clock::now();  // a CPU kernel runs in launch()
          const device::Event ran = queue.launch(*kernel, geometry, values);
          if (chosen_at_run_time)
            record_run(task, args.kernel, input_bytes, choice->clock, enqueued, ran);
          runtime::complete_when(task, ran);
          return;
        }
        // Late sizes: zero the counters, launch, read the counts back, then set the sizes.
        static constexpr std::array<std::byte, sizeof(std::uint32_t)> zero{};
        std::vector<memory::ChunkView> counters;
        std::vector<device::Event> zeroed;
        for (const LateSize& size : args.sizes) {
          counters.push_back(staging.view(task, data[size.counter]));
          zeroed.push_back(
              queue.fill(*counters.back().buffer, counters.back().offset, zero, sizeof zero));
        }
        const auto enqueued = std::chrono::steady_clock::now();
        const device::Event ran = queue.launch(*kernel, geometry, values, zeroed);
        if (chosen_at_run_time)
          record_run(task, args.kernel, input_bytes, choice->clock, enqueued, ran);
        auto counts = std::make_shared<std::vector<std::uint32_t>>(args.sizes.size());
        std::vector<device::Event> read;
        std::vector<std::pair<memory::ChunkId, std::uint64_t>> outputs;  // chunk, element bytes
        for (std::size_t i = 0; i < args.sizes.size(); ++i) {
          read.push_back(queue.copy_to_host(&(*counts)[i], *counters[i].buffer, counters[i].offset,
                                            sizeof(std::uint32_t), std::span(&ran, 1)));
          outputs.emplace_back(staging.view(task, data[args.sizes[i].use]).chunk,
                               args.sizes[i].element_bytes);
        }
        auto completion = std::make_shared<runtime::DeferredCompletion>(task.defer_completion());
        device::when_all(read).on_complete(
            [&memory, counts, outputs, completion](std::exception_ptr error) {
              try {
                if (error) std::rethrow_exception(error);
                for (std::size_t i = 0; i < outputs.size(); ++i)
                  memory.set_size(outputs[i].first, (*counts)[i] * outputs[i].second);
                completion->complete();
              } catch (...) {
                completion->fail(std::current_exception());
              }
            });
      },
      op.accesses);
}

void KernelPlans::launch_batch(cluster::PlanContext& context, const cluster::PlanOp& op) {
  auto batch =
      cluster::decode<KernelBatch>(std::as_bytes(std::span(op.args.data(), op.args.size())),
                                   "the arguments of a batch of kernel launches");
  check_batch(batch);
  const std::uint32_t device_index = batch.launches.front().device;
  devices_for(context.rank(), batch.launches.front());  // throws unless one of the rank's
  std::vector<std::shared_ptr<Compilation>> compilations;
  std::vector<const Compilation*> distinct;  // a few: one per shape of superblock
  std::vector<runtime::TaskHandle> compiled_first;
  for (const KernelLaunch& launch : batch.launches) {
    compilations.push_back(compilation(context.runtime(), launch, device_index));
    if (std::find(distinct.begin(), distinct.end(), compilations.back().get()) == distinct.end()) {
      distinct.push_back(compilations.back().get());
      compiled_first.push_back(compilations.back()->task);
    }
  }
  runtime::TaskSpec spec(op.operation);
  spec.on(executors_[device_index].compute).after(compiled_first).in_queue_order();
  std::vector<runtime::DataHandle> data;
  data.reserve(op.accesses.size());
  for (const cluster::PlannedAccess& access : op.accesses) {
    data.push_back(context.chunk(access));
    spec.access(data.back(), access.mode);
  }
  device::Device& device = *devices_[device_index];
  runtime::ChunkStaging& staging = context.staging();
  context.submit(
      std::move(spec),
      [&device, &staging, compilations = std::move(compilations), data,
       launches = std::move(batch.launches)](runtime::TaskContext& task) {
        device::Queue& queue = device.queue(device::QueueKind::compute);
        std::vector<device::Event> ran;
        ran.reserve(launches.size());
        for (std::size_t i = 0; i < launches.size(); ++i) {
          const device::KernelArgs values =
              launch_arguments(launches[i], staging, task, data, queue);
          ran.push_back(
              queue.launch(*compiled(*compilations[i]), geometry_of(launches[i]), values));
        }
        runtime::complete_when(task, device::when_all(ran));
      },
      op.accesses);
}

}  // namespace strata::node
