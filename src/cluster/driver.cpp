#include "strata/cluster/driver.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <unordered_map>

#include "plan_executor.hpp"
#include "strata/base/spin_wait.hpp"
#include "strata/cluster/message_kinds.hpp"
#include "strata/cluster/serialization.hpp"

namespace strata::cluster {

namespace {
bool reads(runtime::Access mode) {
  return mode != runtime::Access::write;
}

// An operation's arguments, encoded as PlanOp::args holds them.
template <class T>
std::string encode_string(const T& value) {
  const std::vector<std::byte> bytes = encode(value);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}
}  // namespace

RankFailed::RankFailed(int rank, std::string task, std::string error)
    : Error("rank " + std::to_string(rank) + " failed in task '" + task + "': " + error),
      rank_(rank),
      task_(std::move(task)),
      error_(std::move(error)) {}

Driver::Driver(Network& network, detail::PlanExecutor& local, const OperationTable& operations,
               const PlanKindTable& kinds, std::uint64_t window)
    : network_(network),
      local_(local),
      operations_(operations),
      kinds_(kinds),
      planned_(static_cast<std::size_t>(network.size()), 0),
      window_(std::max<std::uint64_t>(1, window)),
      finished_(static_cast<std::size_t>(network.size()), 0),
      loads_(static_cast<std::size_t>(network.size())) {}

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

ChunkRef Driver::create_late_chunk(std::string name, std::uint64_t capacity, int home) {
  const ChunkRef chunk = create_chunk(std::move(name), capacity, home);
  chunks_.at(chunk.id).late = true;
  return chunk;
}

std::uint64_t Driver::size_of(ChunkRef chunk) {
  check_failure();
  Entry& sized = entry(chunk, "size_of");
  if (sized.holders.empty()) {
    throw Error("size_of: chunk '" + sized.name + "' has no size yet: nothing has written it");
  }
  if (!sized.late) return sized.bytes;
  Batch batch;
  const int holder = source_of(sized);
  add(batch, holder,
      PlanOp{
          op_kinds::read_size, 0, {}, {}, {access_of(chunk, sized, runtime::Access::read)}, -1, 0});
  const std::uint64_t op = batch[holder].ops.back().id;
  post(batch);
  flush();  // the driver waits for the answer: what is batched goes now
  const std::vector<std::byte> answer = local_.take_read_back(op, [this] { check_failure(); });
  return decode<std::uint64_t>(answer, "the size of a chunk");
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
  return PlannedAccess{chunk.id, entry.bytes, entry.name, mode, entry.late};
}

void Driver::add(Batch& batch, int rank, PlanOp op) {
  op.id = next_op_++;
  batch[rank].ops.push_back(std::move(op));
}

void Driver::post(Batch& batch) {
  if (batching_ > 0) {
    for (auto& [rank, plan] : batch) {
      auto& ops = pending_[rank].ops;
      ops.insert(ops.end(), std::make_move_iterator(plan.ops.begin()),
                 std::make_move_iterator(plan.ops.end()));
    }
    return;
  }
  for (auto& [rank, plan] : batch) {
    planned_[static_cast<std::size_t>(rank)] += plan.ops.size();
    stats_.operations += plan.ops.size();
    ++stats_.messages;
    // The driver's own rank takes its plan as it is, not encoded for the network thread to
    // decode: that round trip took cores from the kernels, an op at a time.
    if (rank == network_.rank()) {
      local_.enqueue(std::move(plan));
    } else {
      network_.post_value(rank, kinds::plan, plan);
    }
  }
  keep_window();
}

std::uint64_t Driver::unfinished() const {
  std::uint64_t count = 0;
  for (std::size_t r = 0; r < planned_.size(); ++r)
    count += planned_[r] - std::min(planned_[r], finished_[r]);
  return count;
}

void Driver::keep_window() {
  std::unique_lock guard(lock_);
  if (unfinished() <= window_) return;
  ++stats_.window_waits;
  changed_.wait(guard, [&] { return failure_.has_value() || unfinished() <= window_ / 2; });
}

void Driver::begin_batch() {
  ++batching_;
}

void Driver::end_batch() {
  if (batching_ == 0) throw Error("end_batch() without begin_batch()");
  if (--batching_ > 0) return;
  Batch batch = std::move(pending_);
  pending_.clear();
  post(batch);
}

void Driver::flush() {
  if (batching_ == 0) return;
  const unsigned depth = batching_;
  batching_ = 0;
  Batch batch = std::move(pending_);
  pending_.clear();
  post(batch);
  batching_ = depth;
}

void Driver::make_present(ChunkRef chunk, Entry& entry, int rank, Batch& batch) {
  if (entry.holders.count(rank) != 0) return;
  // Prefer the home rank's copy, else the lowest-numbered holder.
  const int source = source_of(entry);
  const std::uint64_t transfer = next_transfer_;
  next_transfer_ += entry.late ? 2 : 1;  // a late-sized chunk's size, then its bytes
  PlanOp send{op_kinds::send, 0,       {}, {}, {access_of(chunk, entry, runtime::Access::read)},
              rank,           transfer};
  PlanOp receive{
      op_kinds::receive, 0, {}, {}, {access_of(chunk, entry, runtime::Access::write)}, source,
      transfer};
  hurry(source, entry.writer_op);  // the other rank waits on it
  add(batch, source, std::move(send));
  add(batch, rank, std::move(receive));
  entry.holders.insert(rank);
  ++stats_.transfers;
  stats_.bytes_transferred += entry.bytes;
}

void Driver::write(ChunkRef chunk, std::span<const std::byte> bytes) {
  check_failure();
  Entry& target = entry(chunk, "write");
  if (target.late && bytes.size() > target.bytes) {
    throw Error("writing " + std::to_string(bytes.size()) + " bytes into late-sized chunk '" +
                target.name + "' of a capacity of " + std::to_string(target.bytes) + " bytes");
  }
  if (!target.late && bytes.size() != target.bytes) {
    throw Error("writing " + std::to_string(bytes.size()) + " bytes into chunk '" + target.name +
                "' of " + std::to_string(target.bytes) + " bytes");
  }
  Batch batch;
  for (int holder : target.holders) {
    if (holder == target.home) continue;
    add(batch, holder, PlanOp{op_kinds::drop, 0, {}, {}, {access_of(chunk, target, {})}, -1, 0});
    ++stats_.replicas_dropped;
  }
  add(batch, target.home,
      PlanOp{op_kinds::write_in,
             0,
             {},
             std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
             {access_of(chunk, target, runtime::Access::write)},
             -1,
             0});
  target.holders = {target.home};
  target.writer_op = 0;
  post(batch);
}

void Driver::run(int rank, const std::string& operation, const std::vector<Use>& uses,
                 std::string args) {
  check_failure();
  operations_.find(operation);  // throws, naming what is defined, if it is not
  add_planned(rank, op_kinds::execute, operation, uses, std::move(args));
}

void Driver::plan(int rank, const std::string& kind, const std::vector<Use>& uses, std::string args,
                  std::string label) {
  check_failure();
  kinds_.find(kind);  // throws, naming what is defined, if it is not
  add_planned(rank, kind, label.empty() ? kind : std::move(label), uses, std::move(args));
}

std::uint64_t Driver::plan_tracked(int rank, const std::string& kind, const std::vector<Use>& uses,
                                   std::string args, std::string label) {
  check_failure();
  kinds_.find(kind);
  return add_planned(rank, kind, label.empty() ? kind : std::move(label), uses, std::move(args),
                     false, true);
}

std::vector<std::uint64_t> Driver::wait_tracked() {
  flush();
  spin_until(
      [&] {
        std::lock_guard guard(lock_);
        return failure_.has_value() || !tracked_done_.empty();
      },
      plan_spin);
  std::unique_lock guard(lock_);
  changed_.wait(guard, [&] { return failure_.has_value() || !tracked_done_.empty(); });
  if (failure_) throw *failure_;
  return std::exchange(tracked_done_, {});
}

std::uint64_t Driver::capacity_of(ChunkRef chunk) const {
  auto it = chunks_.find(chunk.id);
  return it == chunks_.end() ? 0 : it->second.bytes;
}

std::uint64_t Driver::add_planned(int rank, const std::string& kind, const std::string& name,
                                  const std::vector<Use>& uses, std::string args, bool urgent,
                                  bool tracked) {
  check_rank(rank, ("operation '" + name + "'").c_str());
  Batch batch;
  PlanOp op{kind, 0, name, std::move(args), {}, -1, 0, urgent, tracked};
  std::set<std::uint64_t> seen;
  for (const Use& use : uses) {
    Entry& used = entry(use.chunk, ("operation '" + name + "'").c_str());
    if (!seen.insert(use.chunk.id).second) {
      throw Error("operation '" + name + "' declares chunk '" + used.name + "' twice");
    }
    if (reads(use.mode)) {
      if (used.holders.empty()) {
        throw Error("operation '" + name + "' reads chunk '" + used.name +
                    "', which nothing has written yet");
      }
      make_present(use.chunk, used, rank, batch);
    }
    op.accesses.push_back(access_of(use.chunk, used, use.mode));
  }
  add(batch, rank, std::move(op));
  const std::uint64_t id = batch[rank].ops.back().id;
  // A write leaves the writer's copy the only valid one: the other ranks drop theirs (after
  // their local readers, and after any send planned above).
  for (const Use& use : uses) {
    if (use.mode == runtime::Access::read) continue;
    Entry& written = chunks_.at(use.chunk.id);
    for (int holder : written.holders) {
      if (holder == rank) continue;
      add(batch, holder,
          PlanOp{op_kinds::drop, 0, {}, {}, {access_of(use.chunk, written, {})}, -1, 0});
      ++stats_.replicas_dropped;
    }
    written.holders = {rank};
    written.writer_op = id;
  }
  post(batch);
  return id;
}

void Driver::hurry(int rank, std::uint64_t op) {
  auto plan = pending_.find(rank);
  if (op == 0 || plan == pending_.end()) return;
  // Most often the writer was planned shortly before: look from the end.
  for (auto it = plan->second.ops.rbegin(); it != plan->second.ops.rend(); ++it) {
    if (it->id == op) {
      it->urgent = true;
      return;
    }
    if (it->id < op) return;  // ids grow in the order planned
  }
}

int Driver::source_of(const Entry& entry) const {
  return entry.holders.count(entry.home) != 0 ? entry.home : *entry.holders.begin();
}

namespace {

// Whether two boxes of one chunk may share an element: their spans meet in every dimension.
bool may_overlap(const memory::Box& a, const memory::Box& b) {
  if (a.dims != b.dims || a.shape != b.shape) return true;
  for (std::uint32_t d = 0; d < a.dims; ++d) {
    if (a.extent[d] == 0 || b.extent[d] == 0) return false;
    const std::uint64_t a_last = a.offset[d] + (a.extent[d] - 1) * a.step[d];
    const std::uint64_t b_last = b.offset[d] + (b.extent[d] - 1) * b.step[d];
    if (a_last < b.offset[d] || b_last < a.offset[d]) return false;
  }
  return true;
}

// The box a copy between ranks travels in: its source box's extent, whole.
memory::Box packed_box(const BoxCopyRequest& copy) {
  std::vector<std::uint64_t> extent(copy.from_box.extent.begin(),
                                    copy.from_box.extent.begin() + copy.from_box.dims);
  return memory::Box::whole(extent);
}

}  // namespace

void Driver::copy_box(ChunkRef from, const memory::Box& from_box, ChunkRef to,
                      const memory::Box& to_box, std::uint32_t element_bytes, int device) {
  const BoxCopyRequest copy{from, from_box, to, to_box, element_bytes, device};
  copy_boxes(std::span(&copy, 1));
}

// Consecutive box copies within one rank, gathered into one operation. Its chunks are declared
// once each: read when only copied from, else written afresh when nothing held them before the
// group (a read of one comes after the group's own write), else read and written.
class Driver::CopyGroup {
 public:
  int rank = -1;
  int device = -1;
  std::vector<Use> uses;
  BoxCopies copies;

  bool empty() const { return copies.steps.empty(); }
  // Whether a step of the group writes `chunk`.
  bool writes(ChunkRef chunk) const {
    const auto found = index_.find(chunk.id);
    return found != index_.end() && uses[found->second].mode != runtime::Access::read;
  }
  void add(const BoxCopyRequest& copy, runtime::Access write_mode) {
    copies.steps.push_back({use(copy.from, runtime::Access::read), use(copy.to, write_mode),
                            copy.from_box, copy.to_box, copy.element_bytes});
  }

 private:
  std::uint32_t use(ChunkRef chunk, runtime::Access mode) {
    const auto [at, added] = index_.try_emplace(chunk.id, static_cast<std::uint32_t>(uses.size()));
    if (added) {
      uses.push_back({chunk, mode});
    } else if (uses[at->second].mode == runtime::Access::read && mode != runtime::Access::read) {
      uses[at->second].mode = runtime::Access::read_write;
    }
    return at->second;
  }
  std::map<std::uint64_t, std::uint32_t> index_;
};

void Driver::copy_boxes(std::span<const BoxCopyRequest> copies) {
  check_failure();
  const PlanBatch one_message(*this);
  CopyGroup group;
  const auto plan_group = [&] {
    if (group.empty()) return;
    if (group.copies.steps.size() == 1) {
      const BoxCopies::Step& step = group.copies.steps[0];
      add_planned(group.rank, "copy_box", "copy_box", {group.uses[step.from], group.uses[step.to]},
                  encode_string(BoxCopy{step.from_box, step.to_box, step.element_bytes,
                                        static_cast<std::int32_t>(group.device)}));
    } else {
      group.copies.device = group.device;
      add_planned(group.rank, "copy_boxes", "copy_boxes", group.uses, encode_string(group.copies));
    }
    group = CopyGroup{};
  };
  // Every copy is checked before any is planned.
  std::set<std::uint64_t> written;  // by an earlier copy
  for (const BoxCopyRequest& copy : copies) {
    const Entry& source = entry(copy.from, "copy_box");
    const Entry& target = entry(copy.to, "copy_box");
    copy.from_box.check(copy.element_bytes, source.bytes,
                        "copy_box from chunk '" + source.name + "'");
    copy.to_box.check(copy.element_bytes, target.bytes,
                      "copy_box into chunk '" + target.name + "'");
    if (copy.from_box.elements() != copy.to_box.elements()) {
      throw Error("copy_box from chunk '" + source.name + "' " + copy.from_box.describe() +
                  " into chunk '" + target.name + "' " + copy.to_box.describe() +
                  ": the extents differ");
    }
    if (copy.from.id == copy.to.id) {
      throw Error("copy_box from chunk '" + source.name + "' into itself");
    }
    if (source.holders.empty() && written.count(copy.from.id) == 0) {
      throw Error("copy_box reads chunk '" + source.name + "', which nothing has written yet");
    }
    written.insert(copy.to.id);
  }
  std::vector<Unpack> unpacks;
  std::unordered_map<std::uint64_t, std::vector<memory::Box>> unpacked_into;  // by target chunk
  // Whether a copy's `box` of `chunk` must wait for the unpacking into it: their boxes may meet,
  // or nothing held the chunk before (an unpacking gives it its first holder).
  const auto meets_unpacked = [&](ChunkRef chunk, const memory::Box& box) {
    const auto found = unpacked_into.find(chunk.id);
    if (found == unpacked_into.end()) return false;
    return chunks_.at(chunk.id).holders.empty() ||
           std::any_of(found->second.begin(), found->second.end(),
                       [&](const memory::Box& unpacked) { return may_overlap(unpacked, box); });
  };
  // The group planned so far, then the unpackings that waited.
  const auto plan_waiting = [&] {
    plan_group();
    for (const Unpack& packed : unpacks)
      unpack(packed);
    unpacks.clear();
    unpacked_into.clear();
  };
  for (const BoxCopyRequest& copy : copies) {
    if (meets_unpacked(copy.from, copy.from_box) || meets_unpacked(copy.to, copy.to_box)) {
      plan_waiting();
    }
    const Entry& source = chunks_.at(copy.from.id);
    const Entry& target = chunks_.at(copy.to.id);
    // What the group planned so far counts as held on its rank.
    const bool source_written = group.writes(copy.from);
    const bool target_written = group.writes(copy.to);
    const int reader = source_written ? group.rank : source_of(source);
    // The box is written where the target's copy is (its home when it has none).
    const int writer = target_written           ? group.rank
                       : target.holders.empty() ? target.home
                                                : source_of(target);
    if (!group.empty() &&
        (reader != group.rank || writer != group.rank || copy.device != group.device)) {
      plan_group();
    }
    if (reader != writer) {
      unpacks.push_back(pack(copy, reader, writer));
      unpacked_into[copy.to.id].push_back(copy.to_box);
      continue;
    }
    group.rank = reader;
    group.device = copy.device;
    group.add(copy, target_written || !target.holders.empty() ? runtime::Access::read_write
                                                              : runtime::Access::write);
  }
  plan_waiting();
}

// Only the box's bytes travel: packed on the reader, sent, unpacked on the writer.
Driver::Unpack Driver::pack(const BoxCopyRequest& copy, int reader, int writer) {
  const Entry& source = chunks_.at(copy.from.id);
  const Entry& target = chunks_.at(copy.to.id);
  const ChunkRef box = create_chunk("box of " + source.name + " for " + target.name,
                                    copy.from_box.elements() * copy.element_bytes, reader);
  // The other rank waits on the source's writer, the packing and the unpacking: they go first.
  hurry(reader, source.writer_op);
  add_planned(
      reader, "copy_box", "copy_box",
      {{copy.from, runtime::Access::read}, {box, runtime::Access::write}},
      encode_string(BoxCopy{copy.from_box, packed_box(copy), copy.element_bytes, copy.device}),
      true);
  return {copy, box, writer};
}

void Driver::unpack(const Unpack& packed) {
  const BoxCopyRequest& copy = packed.copy;
  const runtime::Access write_mode =
      chunks_.at(copy.to.id).holders.empty() ? runtime::Access::write : runtime::Access::read_write;
  add_planned(
      packed.writer, "copy_box", "copy_box",
      {{packed.box, runtime::Access::read}, {copy.to, write_mode}},
      encode_string(BoxCopy{packed_box(copy), copy.to_box, copy.element_bytes, copy.device}), true);
  destroy(packed.box);
}

void Driver::reduce(const std::vector<ChunkRef>& partials, ChunkRef result, memory::ReduceOp op,
                    device::ElementType type) {
  check_failure();
  if (partials.empty()) throw Error("reduce: no partial results");
  const Entry& into = entry(result, "reduce");
  const std::uint64_t bytes = into.bytes;
  if (into.late) throw Error("reduce: the result '" + into.name + "' is late-sized");
  // Level 1: each rank combines the partials it holds into an accumulator of its own.
  std::map<int, std::vector<ChunkRef>> by_rank;
  for (const ChunkRef& partial : partials) {
    const Entry& part = entry(partial, "reduce");
    if (part.bytes != bytes) {
      throw Error("reduce: partial '" + part.name + "' has " + std::to_string(part.bytes) +
                  " bytes, the result '" + into.name + "' " + std::to_string(bytes));
    }
    if (part.holders.empty()) {
      throw Error("reduce: partial '" + part.name + "' was never written");
    }
    if (part.late) throw Error("reduce: partial '" + part.name + "' is late-sized");
    by_rank[source_of(part)].push_back(partial);
  }
  const auto encode_args = [op, type](bool assign) {
    return encode_string(Combine{op, type, assign});
  };
  const std::string label = "reduce " + std::string(memory::to_string(op)) + " into " + into.name;
  const PlanBatch one_message(*this);
  // The first rank accumulates into the result itself (unless the result is one of the
  // partials): a round with every partial on one rank is then one combine.
  const bool result_is_a_partial =
      std::any_of(partials.begin(), partials.end(),
                  [&result](const ChunkRef& partial) { return partial.id == result.id; });
  const bool into_result = !result_is_a_partial;
  std::vector<int> ranks;
  std::vector<ChunkRef> accumulators;
  for (const auto& [rank, held] : by_rank) {
    const ChunkRef accumulator =
        accumulators.empty() && into_result
            ? result
            : create_chunk(into.name + " (partial of rank " + std::to_string(rank) + ")", bytes,
                           rank);
    std::vector<Use> uses{{accumulator, runtime::Access::write}};
    for (const ChunkRef& partial : held)
      uses.push_back({partial, runtime::Access::read});
    add_planned(rank, "combine", label, uses, encode_args(true));
    ranks.push_back(rank);
    accumulators.push_back(accumulator);
  }
  // Level 2: a binary tree over the ranks; each step moves one accumulator to its partner.
  for (std::size_t stride = 1; stride < ranks.size(); stride *= 2) {
    for (std::size_t i = 0; i + stride < ranks.size(); i += 2 * stride) {
      add_planned(ranks[i], "combine", label,
                  {{accumulators[i], runtime::Access::read_write},
                   {accumulators[i + stride], runtime::Access::read}},
                  encode_args(false));
    }
  }
  if (!into_result) {
    add_planned(ranks[0], "combine", label,
                {{result, runtime::Access::write}, {accumulators[0], runtime::Access::read}},
                encode_args(true));
  }
  for (const ChunkRef& accumulator : accumulators)
    if (accumulator.id != result.id) destroy(accumulator);
}

void Driver::combine(int rank, ChunkRef into, const std::vector<ChunkRef>& from,
                     memory::ReduceOp op, device::ElementType type) {
  check_failure();
  const Entry& target = entry(into, "combine");
  std::vector<Use> uses{{into, runtime::Access::read_write}};
  for (const ChunkRef& partial : from) {
    const Entry& part = entry(partial, "combine");
    if (part.bytes != target.bytes || part.late || target.late) {
      throw Error("combine: '" + part.name + "' (" + std::to_string(part.bytes) + " bytes" +
                  (part.late ? ", late-sized" : "") + ") into '" + target.name + "' (" +
                  std::to_string(target.bytes) + " bytes" + (target.late ? ", late-sized" : "") +
                  "): chunks of one fixed size only");
    }
    uses.push_back({partial, runtime::Access::read});
  }
  add_planned(rank, "combine",
              "combine " + std::string(memory::to_string(op)) + " into " + target.name, uses,
              encode_string(Combine{op, type, false}));
}

void Driver::destroy(ChunkRef chunk) {
  check_failure();
  Entry& gone = entry(chunk, "destroy");
  Batch batch;
  for (int holder : gone.holders) {
    add(batch, holder, PlanOp{op_kinds::drop, 0, {}, {}, {access_of(chunk, gone, {})}, -1, 0});
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
      PlanOp{op_kinds::read_back,
             0,
             {},
             {},
             {access_of(chunk, fetched, runtime::Access::read)},
             -1,
             0});
  const std::uint64_t op = batch[network_.rank()].ops.back().id;
  post(batch);
  flush();  // the driver waits for the bytes: what is batched goes now
  return local_.take_read_back(op, [this] { check_failure(); });
}

void Driver::wait_all() {
  flush();
  spin_until(
      [&] {
        std::lock_guard guard(lock_);
        return failure_.has_value() || unfinished() == 0;
      },
      plan_spin);
  std::unique_lock guard(lock_);
  changed_.wait(guard, [&] { return failure_.has_value() || unfinished() == 0; });
  if (failure_) throw *failure_;
}

void Driver::on_progress(int rank, const Progress& progress) {
  std::lock_guard guard(lock_);
  auto& finished = finished_.at(static_cast<std::size_t>(rank));
  // Reports may cross on the way (they are sent from several threads): an older one's loads
  // do not replace a newer one's.
  if (!progress.devices.empty() && progress.finished >= finished) {
    loads_.at(static_cast<std::size_t>(rank)) = progress.devices;
  }
  finished = std::max(finished, progress.finished);
  tracked_done_.insert(tracked_done_.end(), progress.tracked.begin(), progress.tracked.end());
  changed_.notify_all();
}

std::vector<std::vector<DeviceLoad>> Driver::loads() const {
  std::vector<std::vector<DeviceLoad>> loads;
  {
    std::lock_guard guard(lock_);
    loads = loads_;
  }
  loads.at(static_cast<std::size_t>(network_.rank())) = local_.loads();
  return loads;
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
