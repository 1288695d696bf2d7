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

// The executor whose task the staging thread is acquiring chunks for (copies are traced there).
thread_local const ExecutorId* staging_for = nullptr;

}  // namespace

ChunkStaging::ChunkStaging(memory::MemoryManager& memory, Runtime* runtime)
    : memory_(memory), thread_([this] { serve(); }) {
  if (runtime == nullptr) return;
  memory_.set_copy_observer([this, runtime](const memory::CopyRecord& copy) {
    if (staging_for == nullptr || !runtime->tracing()) return;
    runtime->trace_memory_span(*staging_for,
                               fmt::format("copy {} -> {}: {}", memory_.space_name(copy.from),
                                           memory_.space_name(copy.to), copy.chunk),
                               copy.start, copy.end, copy.bytes);
  });
}

ChunkStaging::~ChunkStaging() {
  memory_.set_copy_observer(nullptr);
  {
    std::lock_guard guard(lock_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void ChunkStaging::bind(const DataHandle& data, memory::ChunkId chunk) {
  std::lock_guard guard(lock_);
  bindings_[data.id()] = chunk;
}

void ChunkStaging::place(ExecutorId executor, memory::SpaceId space) {
  std::lock_guard guard(lock_);
  placements_[executor.index] = space;
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
  std::unique_lock guard(lock_);
  Pending pending{request.task_id, request.executor, chunks_of(request), space_of(request.executor),
                  std::move(done)};
  if (pending.chunks.empty()) {
    guard.unlock();
    pending.done(nullptr);
    return;
  }
  queue_.push_back(std::move(pending));
  guard.unlock();
  wake_.notify_one();
}

void ChunkStaging::serve() {
  for (;;) {
    Pending pending;
    {
      std::unique_lock guard(lock_);
      wake_.wait(guard, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      pending = std::move(queue_.front());
      queue_.pop_front();
    }
    std::exception_ptr error;
    staging_for = &pending.executor;
    try {
      auto views = memory_.acquire(pending.chunks, pending.space);
      std::lock_guard guard(lock_);
      staged_[pending.task] = std::move(views);
    } catch (...) {
      error = std::current_exception();
    }
    staging_for = nullptr;
    pending.done(error);
  }
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

}  // namespace strata::runtime
