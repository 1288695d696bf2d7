#include "plan_executor.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "strata/base/error.hpp"
#include "strata/base/spin_wait.hpp"
#include "strata/base/thread_name.hpp"
#include "strata/cluster/message_kinds.hpp"

namespace strata::cluster::detail {

namespace {
constexpr int driver_rank = 0;
// Whether the operation this thread is submitting is urgent (PlanOp::urgent).
thread_local bool submitting_urgent = false;
// The tracked operation (PlanOp::tracked) this thread is submitting, if any.
thread_local std::shared_ptr<PlanExecutor::TrackedOp> submitting_tracked;
// Erases the finished tasks of `tasks` once it holds more than `limit`, then sets the limit to
// twice what stays (at least `floor`): a plan far ahead of its tasks, whose entries are all
// unfinished, prunes in amortized constant time instead of scanning them at every addition.
template <class Tasks, class Finished>
void prune_finished(Tasks& tasks, std::size_t& limit, std::size_t floor, Finished finished) {
  if (tasks.size() <= limit) return;
  std::erase_if(tasks, finished);
  limit = std::max(floor, 2 * tasks.size());
}

std::string error_text(const runtime::TaskHandle& task) {
  try {
    task.wait();
  } catch (const runtime::TaskFailed& failed) {
    try {
      failed.rethrow_original();
    } catch (const std::exception& original) {
      return original.what();
    } catch (...) {
      return "unknown exception";
    }
  } catch (const std::exception& other) {
    return other.what();
  }
  return "failed";
}
}  // namespace

PlanExecutor::PlanExecutor(Network& network, runtime::Runtime& runtime,
                           memory::MemoryManager& memory, runtime::ChunkStaging& staging,
                           runtime::ExecutorId network_executor, const OperationTable& operations,
                           const PlanKindTable& kinds, UnfinishedCounts& unfinished,
                           LoadReporter reporter)
    : network_(network),
      runtime_(runtime),
      memory_(memory),
      staging_(staging),
      network_executor_(network_executor),
      operations_(operations),
      kinds_(kinds),
      builtin_{{op_kinds::execute, &PlanExecutor::execute},
               {op_kinds::send, &PlanExecutor::send},
               {op_kinds::receive, &PlanExecutor::receive},
               {op_kinds::drop, &PlanExecutor::drop},
               {op_kinds::write_in, &PlanExecutor::write_in},
               {op_kinds::read_back, &PlanExecutor::read_back},
               {op_kinds::read_size, &PlanExecutor::read_size}},
      unfinished_(unfinished),
      reporter_(std::move(reporter)),
      thread_([this] { serve(); }) {}

PlanExecutor::~PlanExecutor() {
  {
    std::lock_guard guard(lock_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void PlanExecutor::enqueue(Plan plan) {
  {
    std::lock_guard guard(lock_);
    plans_.push_back(std::move(plan));
  }
  queued_.fetch_add(1, std::memory_order_release);
  wake_.notify_one();
}

std::vector<std::byte> PlanExecutor::take_read_back(std::uint64_t op,
                                                    const std::function<void()>& check) {
  spin_until(
      [&] {
        std::lock_guard guard(results_lock_);
        return results_.count(op) != 0;
      },
      plan_spin);
  std::unique_lock guard(results_lock_);
  while (!result_ready_.wait_for(guard, std::chrono::milliseconds(20),
                                 [&] { return results_.count(op) != 0; })) {
    guard.unlock();
    check();
    guard.lock();
  }
  std::vector<std::byte> bytes = std::move(results_[op]);
  results_.erase(op);
  return bytes;
}

void PlanExecutor::deliver(ReadResult result) {
  {
    std::lock_guard guard(results_lock_);
    results_[result.op] = std::move(result.bytes);
  }
  result_ready_.notify_all();
}

std::vector<DeviceLoad> PlanExecutor::loads() const {
  return reporter_ ? reporter_() : std::vector<DeviceLoad>{};
}

void PlanExecutor::report_progress() {
  network_.post_value(driver_rank, kinds::progress,
                      Progress{finished_.load(std::memory_order_acquire), loads(), {}});
}

void PlanExecutor::report_failure(const FailureReport& report) {
  if (network_.rank() == driver_rank && local_.failure) {
    local_.failure(report);
  } else {
    network_.post_value(driver_rank, kinds::failure, report);
  }
}

void PlanExecutor::serve() {
  name_this_thread("plan");
  for (;;) {
    // The next plan of a loop that plans every round comes soon: wait for it awake first.
    spin_until([&] { return queued_.load(std::memory_order_acquire) != 0; }, plan_spin);
    Plan plan;
    {
      std::unique_lock guard(lock_);
      wake_.wait(guard, [&] { return stopping_ || !plans_.empty(); });
      if (plans_.empty()) return;
      plan = std::move(plans_.front());
      plans_.pop_front();
    }
    queued_.fetch_sub(1, std::memory_order_relaxed);
    for (const PlanOp& op : plan.ops) {
      try {
        submit(op);
      } catch (const std::exception& error) {
        // A plan this rank cannot carry out fails the program, like a failed task.
        if (!failure_reported_.exchange(true)) {
          report_failure(FailureReport{"plan operation " + std::to_string(op.id), error.what()});
        }
      }
    }
    // The driver reads its own loads when it needs them; the others tell it of the work taken.
    if (reporter_ && network_.rank() != driver_rank) report_progress();
  }
}

PlanExecutor::LocalChunk& PlanExecutor::local(const PlannedAccess& access) {
  auto it = chunks_.find(access.chunk);
  if (it != chunks_.end()) return it->second;
  LocalChunk copy;
  copy.bytes = access.bytes;
  const runtime::ChunkData made = staging_.create_data(access.name, access.bytes);
  copy.chunk = made.chunk;
  copy.data = made.data;
  if (access.late) memory_.make_late_sized(made.chunk);
  return chunks_.emplace(access.chunk, std::move(copy)).first->second;
}

runtime::TaskHandle PlanExecutor::submit_task(runtime::TaskSpec spec, runtime::TaskFunction body,
                                              const std::vector<LocalChunk*>& chunks,
                                              bool counted) {
  if (counted) submitted_.fetch_add(1, std::memory_order_relaxed);
  if (submitting_urgent && spec.priority == runtime::Priority::normal) {
    spec.priority = runtime::Priority::high;
  }
  const std::uint32_t counted_on = unfinished_.add(spec.executors);
  std::shared_ptr<TrackedOp> tracked = counted ? submitting_tracked : nullptr;
  if (tracked) tracked->pending.fetch_add(1, std::memory_order_relaxed);
  for (LocalChunk* chunk : chunks) {
    for (const runtime::DataAccess& access : spec.accesses) {
      if (access.data.id() != chunk->data.id() || access.mode == runtime::Access::read) continue;
      chunk->writer.reset();
      if (spec.executors.size() == 1) chunk->writer = spec.executors.front();
    }
  }
  runtime::TaskHandle task = runtime_.submit(std::move(spec), std::move(body));
  for (LocalChunk* chunk : chunks) {
    prune_finished(chunk->users, chunk->prune_users_at, prune_users_above,
                   [](const runtime::TaskHandle& user) { return user.done(); });
    chunk->users.push_back(task);
  }
  task.on_complete(
      [this, counted_on, counted, tracked = std::move(tracked)](const runtime::TaskHandle& done) {
        finished(done, counted_on, counted);
        if (tracked) release(*tracked);
      });
  return task;
}

void PlanExecutor::finished(const runtime::TaskHandle& task, std::uint32_t counted_on,
                            bool counted) {
  if (task.status() == runtime::TaskStatus::failed && !failure_reported_.exchange(true)) {
    report_failure(FailureReport{task.name(), error_text(task)});
  }
  unfinished_.done(counted_on);
  if (!counted) return;
  const std::uint64_t done = finished_.fetch_add(1, std::memory_order_acq_rel) + 1;
  // The driver reads its own devices' loads when it needs them: it hears only of the end.
  const bool driver = network_.rank() == driver_rank;
  if (done == submitted_.load(std::memory_order_acquire)) {
    if (driver && local_.progress) {
      local_.progress(Progress{done, {}, {}});
    } else {
      network_.post_value(driver_rank, kinds::progress,
                          Progress{done, driver ? std::vector<DeviceLoad>{} : loads(), {}});
    }
  } else if (done % report_every == 0) {
    if (driver && local_.progress) {
      local_.progress(Progress{done, {}, {}});
    } else if (!driver && reporter_) {
      network_.post_value(driver_rank, kinds::progress, Progress{done, loads(), {}});
    }
  }
}

void PlanExecutor::release(TrackedOp& tracked) {
  if (tracked.pending.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  Progress progress{finished_.load(std::memory_order_acquire), {}, {tracked.op}};
  if (network_.rank() == driver_rank && local_.progress) {
    local_.progress(progress);
    return;
  }
  if (network_.rank() != driver_rank) progress.devices = loads();
  network_.post_value(driver_rank, kinds::progress, progress);
}

void PlanExecutor::submit(const PlanOp& op) {
  // The tasks of an urgent operation run before other ready tasks of their executors.
  struct Urgency {
    explicit Urgency(bool urgent) : was(std::exchange(submitting_urgent, urgent)) {}
    ~Urgency() { submitting_urgent = was; }
    bool was;
  } const urgency(op.urgent);
  // A tracked operation is reported once its handler returned and every task it counted ended;
  // one whose handler threw is not (the failure is reported instead).
  struct Tracking {
    Tracking(PlanExecutor& executor, const PlanOp& op)
        : plans(executor), exceptions(std::uncaught_exceptions()) {
      if (op.tracked) submitting_tracked = std::make_shared<TrackedOp>(op.id);
    }
    ~Tracking() {
      std::shared_ptr<TrackedOp> tracked = std::exchange(submitting_tracked, nullptr);
      if (tracked && std::uncaught_exceptions() == exceptions) plans.release(*tracked);
    }
    PlanExecutor& plans;
    int exceptions;
  } const tracking(*this, op);
  auto builtin = builtin_.find(op.kind);
  if (builtin != builtin_.end()) {
    (this->*builtin->second)(op);
    return;
  }
  kinds_.find(op.kind)(*this, op);
}

std::vector<PlanExecutor::LocalChunk*> PlanExecutor::chunks_of(
    std::span<const PlannedAccess> accesses) {
  std::vector<LocalChunk*> chunks;
  for (const PlannedAccess& access : accesses)
    chunks.push_back(&local(access));
  return chunks;
}

runtime::TaskHandle PlanExecutor::submit(runtime::TaskSpec spec, runtime::TaskFunction body,
                                         std::span<const PlannedAccess> accesses) {
  return submit_task(std::move(spec), std::move(body), chunks_of(accesses));
}

runtime::TaskHandle PlanExecutor::submit_part(runtime::TaskSpec spec, runtime::TaskFunction body,
                                              std::span<const PlannedAccess> accesses) {
  return submit_task(std::move(spec), std::move(body), chunks_of(accesses), false);
}

void PlanExecutor::execute(const PlanOp& op) {
  runtime::TaskSpec spec(op.operation);
  std::vector<LocalChunk*> chunks;
  for (const PlannedAccess& access : op.accesses) {
    LocalChunk& chunk = local(access);
    spec.access(chunk.data, access.mode);
    chunks.push_back(&chunk);
  }
  std::vector<runtime::DataHandle> data;
  for (LocalChunk* chunk : chunks)
    data.push_back(chunk->data);
  submit_task(
      std::move(spec),
      [this, name = op.operation, args = op.args,
       data = std::move(data)](runtime::TaskContext& context) {
        const Operation& operation = operations_.find(name);
        std::vector<std::span<std::byte>> views;
        std::vector<memory::ChunkId> ids;
        for (const runtime::DataHandle& handle : data) {
          memory::ChunkView view = staging_.view(context, handle);
          views.emplace_back(static_cast<std::byte*>(view.host), view.bytes);
          ids.push_back(view.chunk);
        }
        OperationContext operation_context(network_.rank(), name, args, std::move(views),
                                           [this, &ids](std::size_t index, std::uint64_t bytes) {
                                             memory_.set_size(ids.at(index), bytes);
                                           });
        operation(operation_context);
      },
      chunks);
}

void PlanExecutor::send(const PlanOp& op) {
  submit_transfer(op, true);
}

void PlanExecutor::receive(const PlanOp& op) {
  submit_transfer(op, false);
}

void PlanExecutor::drop(const PlanOp& op) {
  auto it = chunks_.find(op.accesses.at(0).chunk);
  if (it == chunks_.end()) {
    submit_task(runtime::TaskSpec("drop (no copy)"), [](runtime::TaskContext&) {}, {});
    return;
  }
  // Later operations on the chunk get a fresh copy; this one goes once its users finished.
  auto old = std::make_shared<LocalChunk>(std::move(it->second));
  chunks_.erase(it);
  runtime::TaskSpec spec("drop replica " + memory_.chunk_name(old->chunk));
  // On the network thread: a send is often the copy's last user, and a receive of the
  // chunk's next copy waits for this drop; run there, the two hand-offs to a pool worker
  // and back leave a dependent transfer's path (destroying a chunk never waits).
  spec.on(network_executor_).after(old->users);
  const runtime::TaskHandle dropped =
      submit_task(std::move(spec),
                  [this, old](runtime::TaskContext&) {
                    old->users.clear();
                    staging_.destroy_data({old->data, old->chunk, old->bytes});
                  },
                  {});
  // The drop counts as the chunk's next use: memory does not copy out what is about to go (a
  // combined partial between its last reader and its drop) to make room.
  const memory::ChunkId chunk = old->chunk;
  memory_.expect_use(std::span(&chunk, 1), dropped.task_id());
  drops_[op.accesses[0].chunk] = dropped;
  prune_finished(drops_, prune_drops_at_, prune_drops_above,
                 [](const auto& entry) { return entry.second.done(); });
}

void PlanExecutor::write_in(const PlanOp& op) {
  LocalChunk& chunk = local(op.accesses.at(0));
  const bool late = op.accesses[0].late;
  if (late ? op.args.size() > chunk.bytes : op.args.size() != chunk.bytes) {
    throw Error("writing " + std::to_string(op.args.size()) + " bytes into chunk '" +
                op.accesses[0].name + "' of " + std::to_string(chunk.bytes) + " bytes");
  }
  submit_task(runtime::TaskSpec("write " + op.accesses[0].name).writes(chunk.data),
              [this, data = chunk.data, bytes = op.args, late](runtime::TaskContext& context) {
                memory::ChunkView view = staging_.view(context, data);
                std::memcpy(view.host, bytes.data(), bytes.size());
                if (late) memory_.set_size(view.chunk, bytes.size());
              },
              {&chunk});
}

void PlanExecutor::read_back(const PlanOp& op) {
  LocalChunk& chunk = local(op.accesses.at(0));
  submit_task(runtime::TaskSpec("read back " + op.accesses[0].name).reads(chunk.data),
              [this, data = chunk.data, id = op.id](runtime::TaskContext& context) {
                memory::ChunkView view = staging_.view(context, data);
                const auto* begin = static_cast<const std::byte*>(view.host);
                {
                  std::lock_guard guard(results_lock_);
                  results_[id].assign(begin, begin + view.bytes);
                }
                result_ready_.notify_all();
              },
              {&chunk});
}

void PlanExecutor::read_size(const PlanOp& op) {
  LocalChunk& chunk = local(op.accesses.at(0));
  // Ordered after the tasks planned on this copy so far (the writer among them), without staging
  // the chunk anywhere: the size is the memory manager's record.
  runtime::TaskSpec spec("read the size of " + op.accesses[0].name);
  spec.after(chunk.users);
  submit_task(
      std::move(spec),
      [this, id = chunk.chunk, name = op.accesses[0].name, op = op.id](runtime::TaskContext&) {
        const std::optional<std::uint64_t> size = memory_.chunk_size(id);
        if (!size) {
          throw Error("the size of chunk '" + name + "' is not known on rank " +
                      std::to_string(network_.rank()) +
                      ": the operation that wrote it did not set it");
        }
        ReadResult result{op, encode(*size)};
        if (network_.rank() == driver_rank) {
          deliver(std::move(result));
        } else {
          network_.post_value(driver_rank, kinds::read_result, result);
        }
      },
      {&chunk});
}

void PlanExecutor::send_late(const memory::ChunkView& view, int peer, std::uint64_t transfer,
                             TransferDone done) {
  auto size = std::make_shared<std::uint64_t>(view.bytes);
  const std::span<const std::byte> data(static_cast<const std::byte*>(view.host), view.bytes);
  network_.send(peer, transfer, std::as_bytes(std::span(size.get(), 1)),
                [this, size, data, peer, transfer, done](std::exception_ptr error) {
                  if (error) {
                    done(error);
                    return;
                  }
                  network_.send(peer, transfer + 1, data, done);
                });
}

void PlanExecutor::receive_late(const memory::ChunkView& view, int peer, std::uint64_t transfer,
                                TransferDone done) {
  auto size = std::make_shared<std::uint64_t>(0);
  network_.receive(
      peer, transfer, std::as_writable_bytes(std::span(size.get(), 1)),
      [this, size, view, peer, transfer, done](std::exception_ptr error) {
        try {
          if (error) std::rethrow_exception(error);
          memory_.set_size(view.chunk, *size);  // throws naming the chunk above its capacity
          network_.receive(peer, transfer + 1, {static_cast<std::byte*>(view.host), *size}, done);
        } catch (...) {
          done(std::current_exception());
        }
      });
}

void PlanExecutor::submit_transfer(const PlanOp& op, bool sending) {
  LocalChunk& chunk = local(op.accesses.at(0));
  const std::string name = (sending ? "send " : "receive ") + op.accesses[0].name +
                           (sending ? " to rank " : " from rank ") + std::to_string(op.peer);
  runtime::TaskSpec spec(name);
  spec.on(network_executor_)
      .access(chunk.data, sending ? runtime::Access::read : runtime::Access::write);
  if (!sending) {
    auto dropped = drops_.find(op.accesses[0].chunk);
    if (dropped != drops_.end()) {
      spec.after(dropped->second);
      drops_.erase(dropped);
    }
  }
  submit_task(std::move(spec),
              [this, sending, name, data = chunk.data, peer = op.peer, transfer = op.transfer,
               late = op.accesses[0].late](runtime::TaskContext& context) {
                memory::ChunkView view = staging_.view(context, data);
                auto completion =
                    std::make_shared<runtime::DeferredCompletion>(context.defer_completion());
                const auto start = std::chrono::steady_clock::now();
                TransferDone done = [this, completion, name, start,
                                     bytes = view.bytes](std::exception_ptr error) {
                  runtime_.trace_memory_span(network_executor_, name, start,
                                             std::chrono::steady_clock::now(), bytes);
                  if (error) {
                    completion->fail(error);
                  } else {
                    completion->complete();
                  }
                };
                auto* bytes = static_cast<std::byte*>(view.host);
                if (late && sending) {
                  send_late(view, peer, transfer, std::move(done));
                } else if (late) {
                  receive_late(view, peer, transfer, std::move(done));
                } else if (sending) {
                  network_.send(peer, transfer, {bytes, view.bytes}, std::move(done));
                } else {
                  network_.receive(peer, transfer, {bytes, view.bytes}, std::move(done));
                }
              },
              {&chunk});
}

}  // namespace strata::cluster::detail
