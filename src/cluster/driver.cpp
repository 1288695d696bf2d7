#include "strata/cluster/driver.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "plan_executor.hpp"
#include "strata/cluster/message_kinds.hpp"

namespace strata::cluster {

namespace {
bool reads(runtime::Access mode) {
  return mode != runtime::Access::write;
}
}  // namespace

RankFailed::RankFailed(int rank, std::string task, std::string error)
    : Error("rank " + std::to_string(rank) + " failed in task '" + task + "': " + error),
      rank_(rank),
      task_(std::move(task)),
      error_(std::move(error)) {}

Driver::Driver(Network& network, detail::PlanExecutor& local, const OperationTable& operations)
    : network_(network),
      local_(local),
      operations_(operations),
      planned_(static_cast<std::size_t>(network.size()), 0),
      finished_(static_cast<std::size_t>(network.size()), 0) {}

void Driver::check_rank(int rank, const char* what) const {
  if (rank < 0 || rank >= size()) {
    throw Error(std::string(what) + ": rank " + std::to_string(rank) +
                " is not in the cluster of " + std::to_string(size()) + " rank(s)");
  }
}

ChunkRef Driver::create_chunk(std::string name, std::uint64_t bytes, int home) {
  check_rank(home, ("chunk '" + name + "'").c_str());
  const ChunkRef chunk{next_chunk_++};
  chunks_.emplace(chunk.id, Entry{std::move(name), bytes, home, {}});
  return chunk;
}

Driver::Entry& Driver::entry(ChunkRef chunk, const char* what) {
  auto it = chunks_.find(chunk.id);
  if (it == chunks_.end()) {
    throw Error(std::string(what) + ": chunk " + std::to_string(chunk.id) + " was not created");
  }
  return it->second;
}

std::set<int> Driver::holders(ChunkRef chunk) const {
  auto it = chunks_.find(chunk.id);
  return it == chunks_.end() ? std::set<int>{} : it->second.holders;
}

PlannedAccess Driver::access_of(ChunkRef chunk, const Entry& entry, runtime::Access mode) const {
  return PlannedAccess{chunk.id, entry.bytes, entry.name, mode};
}

void Driver::add(Batch& batch, int rank, PlanOp op) {
  op.id = next_op_++;
  batch[rank].ops.push_back(std::move(op));
}

void Driver::post(Batch& batch) {
  for (auto& [rank, plan] : batch) {
    planned_[static_cast<std::size_t>(rank)] += plan.ops.size();
    stats_.operations += plan.ops.size();
    network_.post_value(rank, kinds::plan, plan);
  }
}

void Driver::make_present(ChunkRef chunk, Entry& entry, int rank, Batch& batch) {
  if (entry.holders.count(rank) != 0) return;
  // Prefer the home rank's copy, else the lowest-numbered holder.
  const int source = entry.holders.count(entry.home) != 0 ? entry.home : *entry.holders.begin();
  const std::uint64_t transfer = next_transfer_++;
  PlanOp send{OpKind::send, 0,       {}, {}, {access_of(chunk, entry, runtime::Access::read)},
              rank,         transfer};
  PlanOp receive{
      OpKind::receive, 0,       {}, {}, {access_of(chunk, entry, runtime::Access::write)},
      source,          transfer};
  add(batch, source, std::move(send));
  add(batch, rank, std::move(receive));
  entry.holders.insert(rank);
  ++stats_.transfers;
  stats_.bytes_transferred += entry.bytes;
}

void Driver::write(ChunkRef chunk, std::span<const std::byte> bytes) {
  check_failure();
  Entry& target = entry(chunk, "write");
  if (bytes.size() != target.bytes) {
    throw Error("writing " + std::to_string(bytes.size()) + " bytes into chunk '" + target.name +
                "' of " + std::to_string(target.bytes) + " bytes");
  }
  Batch batch;
  for (int holder : target.holders) {
    if (holder == target.home) continue;
    add(batch, holder, PlanOp{OpKind::drop, 0, {}, {}, {access_of(chunk, target, {})}, -1, 0});
    ++stats_.replicas_dropped;
  }
  add(batch, target.home,
      PlanOp{OpKind::write_in,
             0,
             {},
             std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
             {access_of(chunk, target, runtime::Access::write)},
             -1,
             0});
  target.holders = {target.home};
  post(batch);
}

void Driver::run(int rank, const std::string& operation, const std::vector<Use>& uses,
                 std::string args) {
  check_failure();
  check_rank(rank, ("operation '" + operation + "'").c_str());
  operations_.find(operation);  // throws, naming what is defined, if it is not
  Batch batch;
  PlanOp execute{OpKind::execute, 0, operation, std::move(args), {}, -1, 0};
  std::set<std::uint64_t> seen;
  for (const Use& use : uses) {
    Entry& used = entry(use.chunk, ("operation '" + operation + "'").c_str());
    if (!seen.insert(use.chunk.id).second) {
      throw Error("operation '" + operation + "' declares chunk '" + used.name + "' twice");
    }
    if (reads(use.mode)) {
      if (used.holders.empty()) {
        throw Error("operation '" + operation + "' reads chunk '" + used.name +
                    "', which nothing has written yet");
      }
      make_present(use.chunk, used, rank, batch);
    }
    execute.accesses.push_back(access_of(use.chunk, used, use.mode));
  }
  add(batch, rank, std::move(execute));
  // A write leaves the writer's copy the only valid one: the other ranks drop theirs (after
  // their local readers, and after any send planned above).
  for (const Use& use : uses) {
    if (use.mode == runtime::Access::read) continue;
    Entry& written = chunks_.at(use.chunk.id);
    for (int holder : written.holders) {
      if (holder == rank) continue;
      add(batch, holder,
          PlanOp{OpKind::drop, 0, {}, {}, {access_of(use.chunk, written, {})}, -1, 0});
      ++stats_.replicas_dropped;
    }
    written.holders = {rank};
  }
  post(batch);
}

void Driver::destroy(ChunkRef chunk) {
  check_failure();
  Entry& gone = entry(chunk, "destroy");
  Batch batch;
  for (int holder : gone.holders) {
    add(batch, holder, PlanOp{OpKind::drop, 0, {}, {}, {access_of(chunk, gone, {})}, -1, 0});
  }
  chunks_.erase(chunk.id);
  post(batch);
}

std::vector<std::byte> Driver::fetch(ChunkRef chunk) {
  check_failure();
  Entry& fetched = entry(chunk, "fetch");
  if (fetched.holders.empty()) {
    throw Error("fetch: chunk '" + fetched.name + "' has no contents (nothing wrote it)");
  }
  Batch batch;
  make_present(chunk, fetched, network_.rank(), batch);
  add(batch, network_.rank(),
      PlanOp{
          OpKind::read_back, 0, {}, {}, {access_of(chunk, fetched, runtime::Access::read)}, -1, 0});
  const std::uint64_t op = batch[network_.rank()].ops.back().id;
  post(batch);
  return local_.take_read_back(op, [this] { check_failure(); });
}

void Driver::wait_all() {
  std::unique_lock guard(lock_);
  changed_.wait(guard, [&] {
    if (failure_) return true;
    for (std::size_t r = 0; r < planned_.size(); ++r) {
      if (finished_[r] < planned_[r]) return false;
    }
    return true;
  });
  if (failure_) throw *failure_;
}

void Driver::on_progress(int rank, const Progress& progress) {
  std::lock_guard guard(lock_);
  auto& finished = finished_.at(static_cast<std::size_t>(rank));
  finished = std::max(finished, progress.finished);
  changed_.notify_all();
}

void Driver::on_failure(int rank, const FailureReport& report) {
  std::lock_guard guard(lock_);
  if (!failure_) failure_.emplace(rank, report.task, report.message);
  changed_.notify_all();
}

void Driver::check_failure() const {
  std::lock_guard guard(lock_);
  if (failure_) throw *failure_;
}

}  // namespace strata::cluster
