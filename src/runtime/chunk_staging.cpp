#include "strata/runtime/chunk_staging.hpp"

#include <fmt/format.h>

namespace strata::runtime {
namespace {

memory::ChunkAccess chunk_access(Access access) {
  switch (access) {
    case Access::read:
      return memory::ChunkAccess::read;
    case Access::write:
      return memory::ChunkAccess::write;
    case Access::read_write:
    case Access::reduce:
      return memory::ChunkAccess::read_write;
  }
  return memory::ChunkAccess::read_write;
}

}  // namespace

ChunkStaging::ChunkStaging(memory::MemoryManager& memory, Runtime* runtime)
    : memory_(memory), runtime_(runtime) {
  if (runtime == nullptr) return;
  memory_.set_io_executor([runtime](const char* what, std::function<void()> job) {
    runtime->post(runtime->io(), what, std::move(job));
  });
  memory_.set_copy_observer([this, runtime](const memory::CopyRecord& copy) {
    if (!runtime->tracing()) return;
    if (copy.tag != 0) {
      runtime->trace_memory_span(ExecutorId{static_cast<std::uint32_t>(copy.tag - 1)},
                                 fmt::format("copy {} -> {}: {}", memory_.space_name(copy.from),
                                             memory_.space_name(copy.to), copy.chunk),
                                 copy.start, copy.end, copy.bytes);
    }
    if (copy.to != memory_.disk()) {
      runtime->trace_counter("memory used: " + memory_.space_name(copy.to),
                             static_cast<std::int64_t>(copy.to_used));
    }
  });
}

ChunkStaging::~ChunkStaging() {
  memory_.drain();
  memory_.set_copy_observer(nullptr);
  memory_.set_io_executor(nullptr);
}

ChunkData ChunkStaging::create_data(std::string name, std::uint64_t bytes,
                                    std::span<const std::byte> initial) {
  if (runtime_ == nullptr)
    throw Error("chunk staging without a runtime cannot create data '" + name + "'");
  ChunkData made;
  made.bytes = bytes;
  made.chunk = memory_.create_chunk(name, bytes, initial);
  made.data = runtime_->create_data(std::move(name), bytes);
  bind(made.data, made.chunk);
  return made;
}

void ChunkStaging::destroy_data(const ChunkData& data) {
  unbind(data.data);
  memory_.destroy_chunk(data.chunk);
}

void ChunkStaging::bind(const DataHandle& data, memory::ChunkId chunk) {
  std::lock_guard guard(lock_);
  bindings_[data.id()] = chunk;
}

void ChunkStaging::unbind(const DataHandle& data) {
  std::lock_guard guard(lock_);
  bindings_.erase(data.id());
}

void ChunkStaging::place(ExecutorId executor, memory::SpaceId space) {
  {
    std::lock_guard guard(lock_);
    placements_[executor.index] = space;
  }
  // Half the space for data staged ahead: the rest for the running tasks' and evictions' data.
  if (runtime_ != nullptr) runtime_->limit_staging_bytes(executor, memory_.capacity(space) / 2);
}

memory::SpaceId ChunkStaging::space_of(ExecutorId executor) const {
  auto found = placements_.find(executor.index);
  return found == placements_.end() ? memory_.host() : found->second;
}

std::vector<memory::ChunkRequest> ChunkStaging::chunks_of(const StagingRequest& request) const {
  std::vector<memory::ChunkRequest> chunks;
  for (const DataAccess& access : request.accesses) {
    auto bound = bindings_.find(access.data.id());
    if (bound != bindings_.end()) chunks.push_back({bound->second, chunk_access(access.mode)});
  }
  return chunks;
}

memory::ChunkView ChunkStaging::view(const TaskContext& task, const DataHandle& data) const {
  std::lock_guard guard(lock_);
  auto bound = bindings_.find(data.id());
  auto staged = staged_.find(task.task_id());
  if (bound != bindings_.end() && staged != staged_.end()) {
    for (const memory::ChunkView& view : staged->second)
      if (view.chunk == bound->second) return view;
  }
  throw Error(
      fmt::format("task '{}' asks for data '{}', which it did not declare or which is "
                  "not backed by a chunk",
                  task.name(), data.name()));
}

void ChunkStaging::stage(const StagingRequest& request,
                         std::function<void(std::exception_ptr)> done) {
  std::vector<memory::ChunkRequest> chunks;
  memory::SpaceId space;
  {
    std::lock_guard guard(lock_);
    chunks = chunks_of(request);
    space = space_of(request.executor);
  }
  if (chunks.empty()) {
    done(nullptr);
    return;
  }
  memory_.acquire_async(
      chunks, space,
      [this, task = request.task_id, done = std::move(done)](std::vector<memory::ChunkView> views,
                                                             std::exception_ptr error) {
        if (!error) {
          std::lock_guard guard(lock_);
          staged_[task] = std::move(views);
        }
        done(error);
      },
      std::uint64_t{request.executor.index} + 1);  // the tag: copies are traced on its lane
}

void ChunkStaging::unstage(const StagingRequest& request) {
  std::vector<memory::ChunkRequest> chunks;
  memory::SpaceId space;
  {
    std::lock_guard guard(lock_);
    if (staged_.erase(request.task_id) == 0) return;
    chunks = chunks_of(request);
    space = space_of(request.executor);
  }
  memory_.release(chunks, space);
}

void ChunkStaging::enqueued(const StagingRequest& request) {
  std::vector<memory::ChunkRequest> chunks;
  memory::SpaceId space;
  {
    std::lock_guard guard(lock_);
    if (!staged_.contains(request.task_id)) return;
    chunks = chunks_of(request);
    space = space_of(request.executor);
  }
  memory_.publish(chunks, space);
}

std::vector<memory::ChunkId> ChunkStaging::chunk_ids_of(const StagingRequest& request) const {
  std::lock_guard guard(lock_);
  std::vector<memory::ChunkId> ids;
  for (const memory::ChunkRequest& chunk : chunks_of(request))
    ids.push_back(chunk.chunk);
  return ids;
}

void ChunkStaging::declared(const StagingRequest& request) {
  const std::vector<memory::ChunkId> ids = chunk_ids_of(request);
  if (!ids.empty()) memory_.expect_use(ids, request.task_id);
}

void ChunkStaging::retired(const StagingRequest& request) {
  const std::vector<memory::ChunkId> ids = chunk_ids_of(request);
  if (!ids.empty()) memory_.end_use(ids, request.task_id);
}

std::vector<std::uint32_t> ChunkStaging::valid_copies(const DataHandle& data) const {
  memory::ChunkId chunk;
  {
    std::lock_guard guard(lock_);
    auto bound = bindings_.find(data.id());
    if (bound == bindings_.end()) return {};
    chunk = bound->second;
  }
  std::vector<std::uint32_t> spaces;
  for (const memory::SpaceId space : memory_.valid_copies(chunk))
    spaces.push_back(space.index);
  return spaces;
}

std::optional<std::uint32_t> ChunkStaging::memory_space(ExecutorId executor) const {
  std::lock_guard guard(lock_);
  return space_of(executor).index;
}

std::string ChunkStaging::summary() const {
  return "memory:\n" + memory_.stats().format();
}

}  // namespace strata::runtime
