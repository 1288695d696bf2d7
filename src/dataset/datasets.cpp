#include "strata/dataset/datasets.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "operation_args.hpp"
#include "strata/base/error.hpp"

namespace strata::dataset {

using cluster::ChunkRef;
using cluster::Use;
using runtime::Access;

namespace detail {

DatasetState::~DatasetState() {
  if (owner == nullptr || owner->datasets == nullptr || !borrowed_from.empty()) return;
  try {
    owner->datasets->release(blocks);
  } catch (...) {
    // A driver that failed keeps its chunks; the failure is reported where it happened.
  }
}

}  // namespace detail

namespace {

std::string block_name(const std::string& name, std::size_t block) {
  return name + " block " + std::to_string(block);
}

// Checks that `function` is registered with `kind`, reads records of `bytes` and, with a
// context of `context_bytes` records (0: none), takes one.
const RecordFunction& checked(const std::string& name, RecordFunction::Kind kind,
                              std::uint32_t bytes, const Datasets::State* context,
                              const std::string& data) {
  const RecordFunction& function = FunctionTable::instance().find(name);
  if (function.kind != kind) {
    throw Error("data-set function '" + name + "' is a " + function.signature +
                ", which this operator does not take");
  }
  if (function.in_bytes != bytes) {
    throw Error("data-set function '" + name + "' (" + function.signature + ") cannot read '" +
                data + "', whose records have " + std::to_string(bytes) + " bytes");
  }
  const std::uint32_t given = context == nullptr ? 0 : (*context)->record_bytes;
  if (given != function.context_bytes) {
    throw Error("data-set function '" + name + "' (" + function.signature + ") is given " +
                (context == nullptr ? std::string("no context")
                                    : "context '" + (*context)->name + "' of " +
                                          std::to_string(given) + "-byte records"));
  }
  return function;
}

void add_uses(std::vector<Use>& uses, const Datasets::State& state,
              const std::vector<std::uint32_t>& blocks, Access mode) {
  for (std::uint32_t b : blocks)
    uses.push_back({state->blocks[b].chunk, mode});
}

void add_context(std::vector<Use>& uses, const Datasets::State* context) {
  if (context == nullptr) return;
  for (const detail::Block& block : (*context)->blocks)
    uses.push_back({block.chunk, Access::read});
}

std::uint32_t context_blocks(const Datasets::State* context) {
  return context == nullptr ? 0 : static_cast<std::uint32_t>((*context)->blocks.size());
}

std::uint64_t capacity_of(const Datasets::State& state, const std::vector<std::uint32_t>& blocks) {
  std::uint64_t records = 0;
  for (std::uint32_t b : blocks)
    records += state->blocks[b].capacity;
  return records;
}

}  // namespace

Datasets::Datasets(node::Node& node, cluster::Driver& driver, DatasetOptions options)
    : node_(node),
      driver_(driver),
      options_(options),
      owner_(std::make_shared<detail::Owner>(detail::Owner{this})) {}

Datasets::~Datasets() {
  owner_->datasets = nullptr;
}

void Datasets::prepare(node::Node& node) {
  detail::define_operations(node.program());
}

std::uint32_t Datasets::partitions_per_rank() const {
  if (options_.partitions_per_rank != 0) return options_.partitions_per_rank;
  runtime::Runtime& runtime = node_.runtime();
  return std::max<std::uint32_t>(
      1, static_cast<std::uint32_t>(runtime.executor(runtime.cpu()).worker_count()));
}

std::uint32_t Datasets::bucket_count() const {
  return static_cast<std::uint32_t>(driver_.size()) * partitions_per_rank();
}

int Datasets::rank_of_bucket(std::uint32_t bucket) const {
  return static_cast<int>(bucket / partitions_per_rank());
}

Datasets::State Datasets::make_state(std::string name, std::uint32_t record_bytes) {
  if (record_bytes == 0) throw Error("data set '" + name + "': records of 0 bytes");
  return std::make_shared<detail::DatasetState>(owner_, std::move(name), record_bytes);
}

void Datasets::release(const std::vector<detail::Block>& blocks) {
  for (const detail::Block& block : blocks)
    driver_.destroy(block.chunk);
}

namespace {

// `count` records in `blocks` blocks (0: `fallback`) of about equal size, none empty.
std::vector<std::uint64_t> block_sizes(std::uint64_t count, std::uint64_t blocks,
                                       std::uint64_t fallback) {
  std::uint64_t b = blocks == 0 ? fallback : blocks;
  b = std::min(b, count);
  std::vector<std::uint64_t> sizes(b);
  for (std::uint64_t i = 0; i < b; ++i)
    sizes[i] = count * (i + 1) / b - count * i / b;
  return sizes;
}

}  // namespace

std::vector<std::uint64_t> Datasets::lay_out(const State& state, std::uint64_t count,
                                             std::uint64_t blocks, std::uint64_t fallback) {
  const int ranks = driver_.size();
  const auto sizes = block_sizes(count, blocks, fallback);
  std::vector<std::uint64_t> firsts;
  std::uint64_t first = 0;
  for (std::size_t b = 0; b < sizes.size(); ++b) {
    const int rank = static_cast<int>(b * ranks / sizes.size());
    const ChunkRef chunk =
        driver_.create_chunk(block_name(state->name, b), sizes[b] * state->record_bytes, rank);
    state->blocks.push_back({chunk, rank, sizes[b], false});
    firsts.push_back(first);
    first += sizes[b];
  }
  return firsts;
}

std::uint64_t Datasets::default_blocks() const {
  return std::uint64_t{4} * partitions_per_rank() * static_cast<std::uint64_t>(driver_.size());
}

Datasets::State Datasets::create(std::string name, std::uint32_t record_bytes,
                                 std::span<const std::byte> records, std::uint64_t blocks) {
  State state = make_state(std::move(name), record_bytes);
  if (records.size() % record_bytes != 0) {
    throw Error("data set '" + state->name + "': " + std::to_string(records.size()) +
                " bytes are not whole records of " + std::to_string(record_bytes) + " bytes");
  }
  cluster::PlanBatch batch(driver_);
  const std::vector<std::uint64_t> firsts =
      lay_out(state, records.size() / record_bytes, blocks, default_blocks());
  for (std::size_t b = 0; b < firsts.size(); ++b) {
    const detail::Block& block = state->blocks[b];
    driver_.write(block.chunk,
                  records.subspan(firsts[b] * record_bytes, block.capacity * record_bytes));
  }
  return state;
}

Datasets::State Datasets::generate_blocks(std::string name, std::uint32_t record_bytes,
                                          std::uint64_t count, const std::string& function,
                                          std::uint64_t blocks) {
  const RecordFunction& f = checked(function, RecordFunction::Kind::select, 8, nullptr, name);
  if (f.out_bytes != record_bytes) {
    throw Error("generate: function '" + function + "' (" + f.signature + ") does not make " +
                std::to_string(record_bytes) + "-byte records");
  }
  State state = make_state(std::move(name), record_bytes);
  const std::vector<std::uint64_t> firsts = lay_out(state, count, blocks, default_blocks());
  cluster::PlanBatch batch(driver_);
  for (const Partition& unit : units_of(state)) {
    std::vector<Use> uses;
    add_uses(uses, state, unit.blocks, Access::write);
    detail::GenerateArgs args{function, {}};
    for (std::uint32_t b : unit.blocks)
      args.first.push_back(firsts[b]);
    driver_.run_with(unit.rank, detail::operations::generate, uses, args);
  }
  return state;
}

const Split& Datasets::split_of(const State& in) {
  if (in->split) return *in->split;
  const std::uint32_t per_rank = partitions_per_rank();
  Split split;
  for (int rank = 0; rank < driver_.size(); ++rank) {
    std::vector<std::uint32_t> local;
    for (std::uint32_t b = 0; b < in->blocks.size(); ++b) {
      if (in->blocks[b].rank == rank) local.push_back(b);
    }
    const std::size_t parts = std::min<std::size_t>(per_rank, local.size());
    for (std::size_t p = 0; p < parts; ++p) {
      Partition partition{rank, {}};
      for (std::size_t i = local.size() * p / parts; i < local.size() * (p + 1) / parts; ++i)
        partition.blocks.push_back(local[i]);
      split.partitions.push_back(std::move(partition));
    }
  }
  in->split = std::move(split);
  return *in->split;
}

std::vector<Partition> Datasets::units_of(const State& in) {
  if (options_.unit == TaskUnit::partition) return split_of(in).partitions;
  std::vector<Partition> units;
  for (std::uint32_t b = 0; b < in->blocks.size(); ++b)
    units.push_back({in->blocks[b].rank, {b}});
  return units;
}

void Datasets::map_blocks(const State& in, const State& out, const std::string& function,
                          const char* operation, const State* context) {
  out->split = in->split;
  const std::vector<Partition> units = units_of(in);
  cluster::PlanBatch batch(driver_);
  for (const Partition& unit : units) {
    std::vector<Use> uses;
    add_uses(uses, in, unit.blocks, Access::read);
    add_uses(uses, out, unit.blocks, Access::write);
    add_context(uses, context);
    detail::BlockArgs args{
        function, static_cast<std::uint32_t>(unit.blocks.size()), context_blocks(context), {}};
    for (std::uint32_t b : unit.blocks)
      args.late.push_back(out->blocks[b].late ? 1 : 0);
    driver_.run_with(unit.rank, operation, uses, args);
  }
}

Datasets::State Datasets::select_blocks(const State& in, const std::string& function,
                                        std::uint32_t out_bytes, const State* context) {
  const RecordFunction& f =
      checked(function, RecordFunction::Kind::select, in->record_bytes, context, in->name);
  if (f.out_bytes != out_bytes) throw Error("select: '" + function + "' gives other records");
  State out = make_state(in->name + "." + function, out_bytes);
  for (std::size_t b = 0; b < in->blocks.size(); ++b) {
    const detail::Block& from = in->blocks[b];
    const std::string name = block_name(out->name, b);
    const ChunkRef chunk =
        from.late ? driver_.create_late_chunk(
                        name, std::max<std::uint64_t>(1, from.capacity) * out_bytes, from.rank)
                  : driver_.create_chunk(name, from.capacity * out_bytes, from.rank);
    out->blocks.push_back({chunk, from.rank, from.capacity, from.late});
  }
  map_blocks(in, out, function, detail::operations::select, context);
  return out;
}

Datasets::State Datasets::where_blocks(const State& in, const std::string& function,
                                       const State* context) {
  checked(function, RecordFunction::Kind::where, in->record_bytes, context, in->name);
  return late_map(in, function, detail::operations::where, context);
}

Datasets::State Datasets::select_many_blocks(const State& in, const std::string& function,
                                             const State* context) {
  checked(function, RecordFunction::Kind::select_many, in->record_bytes, context, in->name);
  return late_map(in, function, detail::operations::select_many, context);
}

Datasets::State Datasets::late_map(const State& in, const std::string& function,
                                   const char* operation, const State* context) {
  const RecordFunction& f = FunctionTable::instance().find(function);
  State out = make_state(in->name + "." + function, f.out_bytes);
  for (std::size_t b = 0; b < in->blocks.size(); ++b) {
    const detail::Block& from = in->blocks[b];
    const std::uint64_t most = from.capacity * f.expands;
    const ChunkRef chunk = driver_.create_late_chunk(
        block_name(out->name, b), std::max<std::uint64_t>(1, most) * f.out_bytes, from.rank);
    out->blocks.push_back({chunk, from.rank, most, true});
  }
  map_blocks(in, out, function, operation, context);
  return out;
}

Datasets::State Datasets::group_blocks(const State& in, const GroupShape& shape,
                                       const State* context) {
  const RecordFunction& key =
      checked(shape.key, RecordFunction::Kind::select, in->record_bytes, context, in->name);
  if (!key.widen || key.out_bytes != shape.key_bytes)
    throw Error("group_by: key function '" + shape.key + "' (" + key.signature + ") is no key");
  std::uint32_t value_bytes = in->record_bytes;
  if (!shape.value.empty()) {
    const RecordFunction& value = FunctionTable::instance().find(shape.value);
    if (value.kind != RecordFunction::Kind::select || value.in_bytes != in->record_bytes) {
      throw Error("group_by: value function '" + shape.value + "' (" + value.signature +
                  ") cannot read '" + in->name + "'");
    }
    if (value.context_bytes != 0 && value.context_bytes != key.context_bytes)
      throw Error("group_by: value function '" + shape.value + "' takes another context");
    value_bytes = value.out_bytes;
  }
  if (!shape.combine.empty()) {
    const RecordFunction& combine =
        checked(shape.combine, RecordFunction::Kind::combine, value_bytes, nullptr, in->name);
    if (combine.in_bytes != shape.value_bytes || value_bytes != shape.value_bytes)
      throw Error("group_by: combine '" + shape.combine + "' does not combine the values");
  }

  const std::uint32_t buckets = bucket_count();
  const std::uint64_t most = options_.max_groups;
  State out = make_state(in->name + ".group_by(" + shape.key + ")", shape.group_bytes);
  const std::vector<Partition> units = units_of(in);
  cluster::PlanBatch batch(driver_);
  // partials[u][b]: the groups of unit u for bucket b, and their capacity in groups.
  std::vector<std::vector<ChunkRef>> partials(units.size());
  std::vector<std::uint64_t> merged(buckets, 0);
  for (std::size_t u = 0; u < units.size(); ++u) {
    const Partition& unit = units[u];
    const std::uint64_t groups =
        std::max<std::uint64_t>(1, std::min(capacity_of(in, unit.blocks), most));
    std::vector<Use> uses;
    add_uses(uses, in, unit.blocks, Access::read);
    for (std::uint32_t b = 0; b < buckets; ++b) {
      partials[u].push_back(driver_.create_late_chunk(
          out->name + " partial " + std::to_string(u) + " for bucket " + std::to_string(b),
          groups * shape.group_bytes, unit.rank));
      uses.push_back({partials[u].back(), Access::write});
      merged[b] += groups;
    }
    add_context(uses, context);
    detail::GroupArgs args{shape, static_cast<std::uint32_t>(unit.blocks.size()), buckets,
                           context_blocks(context)};
    driver_.run_with(unit.rank, detail::operations::group_partial, uses, args);
  }
  for (std::uint32_t b = 0; b < buckets; ++b) {
    const int rank = rank_of_bucket(b);
    const std::uint64_t groups = std::max<std::uint64_t>(1, std::min(merged[b], most));
    const ChunkRef chunk =
        driver_.create_late_chunk(block_name(out->name, b), groups * shape.group_bytes, rank);
    out->blocks.push_back({chunk, rank, groups, true});
    std::vector<Use> uses;
    for (const auto& unit_partials : partials)
      uses.push_back({unit_partials[b], Access::read});
    uses.push_back({chunk, Access::write});
    detail::GroupArgs args{shape, static_cast<std::uint32_t>(units.size()), 1, 0};
    driver_.run_with(rank, detail::operations::group_merge, uses, args);
  }
  for (const auto& unit_partials : partials) {
    for (const ChunkRef chunk : unit_partials)
      driver_.destroy(chunk);
  }
  return out;
}

Datasets::State Datasets::reduce_blocks(const State& in, const std::string& combine) {
  checked(combine, RecordFunction::Kind::combine, in->record_bytes, nullptr, in->name);
  State out = make_state(in->name + "." + combine, in->record_bytes);
  cluster::PlanBatch batch(driver_);
  // Each unit folds its blocks; rank 0 folds the units' results.
  std::vector<ChunkRef> partials;
  for (const Partition& unit : units_of(in)) {
    partials.push_back(
        driver_.create_late_chunk(out->name + " partial", in->record_bytes, unit.rank));
    std::vector<Use> uses;
    add_uses(uses, in, unit.blocks, Access::read);
    uses.push_back({partials.back(), Access::write});
    driver_.run_with(unit.rank, detail::operations::fold, uses,
                     detail::FoldArgs{combine, static_cast<std::uint32_t>(unit.blocks.size())});
  }
  const ChunkRef result = driver_.create_late_chunk(block_name(out->name, 0), in->record_bytes, 0);
  out->blocks.push_back({result, 0, 1, true});
  std::vector<Use> uses;
  for (const ChunkRef chunk : partials)
    uses.push_back({chunk, Access::read});
  uses.push_back({result, Access::write});
  driver_.run_with(0, detail::operations::fold, uses,
                   detail::FoldArgs{combine, static_cast<std::uint32_t>(partials.size())});
  for (const ChunkRef chunk : partials)
    driver_.destroy(chunk);
  return out;
}

const std::vector<std::uint64_t>& Datasets::records_of(const State& in) {
  if (!in->records) {
    std::vector<std::uint64_t> records;
    for (const detail::Block& block : in->blocks) {
      records.push_back(block.late ? driver_.size_of(block.chunk) / in->record_bytes
                                   : block.capacity);
    }
    in->records = std::move(records);
  }
  return *in->records;
}

std::uint64_t Datasets::count_records(const State& in) {
  const std::vector<std::uint64_t>& records = records_of(in);
  std::uint64_t count = 0;
  for (std::uint64_t n : records)
    count += n;
  return count;
}

std::vector<std::byte> Datasets::collect_blocks(const State& in) {
  std::vector<std::byte> all;
  for (const detail::Block& block : in->blocks) {
    const std::vector<std::byte> bytes = driver_.fetch(block.chunk);
    all.insert(all.end(), bytes.begin(), bytes.end());
  }
  return all;
}

std::vector<std::uint64_t> Datasets::item_indexes_of(const State& in, const Partition& partition) {
  const std::vector<std::uint64_t>& records = records_of(in);
  std::vector<std::uint64_t> starts(records.size() + 1, 0);
  for (std::size_t b = 0; b < records.size(); ++b)
    starts[b + 1] = starts[b] + records[b];
  std::vector<std::uint64_t> indexes;
  for (std::uint32_t b : partition.blocks) {
    if (b >= records.size())
      throw Error("item_indexes: the partition is not of '" + in->name + "'");
    for (std::uint64_t i = starts[b]; i < starts[b + 1]; ++i)
      indexes.push_back(i);
  }
  return indexes;
}

Datasets::State Datasets::rechunk_blocks(const State& in, std::uint32_t blocks_per_rank) {
  const std::vector<std::uint64_t>& records = records_of(in);
  std::vector<std::uint64_t> starts(records.size() + 1, 0);
  for (std::size_t b = 0; b < records.size(); ++b)
    starts[b + 1] = starts[b] + records[b];
  State out = make_state(in->name + ".rechunk", in->record_bytes);
  cluster::PlanBatch batch(driver_);
  const std::vector<std::uint64_t> firsts =
      lay_out(out, starts.back(),
              std::uint64_t{blocks_per_rank} * static_cast<std::uint64_t>(driver_.size()), 1);
  std::size_t source = 0;
  for (std::size_t j = 0; j < firsts.size(); ++j) {
    const detail::Block& block = out->blocks[j];
    std::vector<Use> uses;
    detail::GatherArgs args{in->record_bytes, {}};
    const std::uint64_t first = firsts[j];
    const std::uint64_t end = first + block.capacity;
    while (starts[source + 1] <= first)
      ++source;
    for (std::size_t b = source; b < records.size() && starts[b] < end; ++b) {
      const std::uint64_t from = std::max(first, starts[b]);
      const std::uint64_t to = std::min(end, starts[b + 1]);
      if (from >= to) continue;
      args.pieces.push_back({static_cast<std::uint32_t>(uses.size()), from - starts[b], to - from});
      uses.push_back({in->blocks[b].chunk, Access::read});
    }
    uses.push_back({block.chunk, Access::write});
    driver_.run_with(block.rank, detail::operations::gather, uses, args);
  }
  return out;
}

Datasets::Routed Datasets::route(const State& in, const std::string& name, const std::string& key,
                                 std::vector<std::string> splitters, bool hash_key) {
  const std::uint32_t buckets = bucket_count();
  const std::uint32_t bytes = in->record_bytes;
  const std::vector<Partition> units = units_of(in);
  detail::RouteArgs args{key, std::move(splitters), bytes, buckets, 0, hash_key};
  // How many records each unit sends each bucket: the host reads the counts, not the records.
  std::vector<ChunkRef> counted;
  {
    cluster::PlanBatch batch(driver_);
    for (const Partition& unit : units) {
      counted.push_back(
          driver_.create_chunk(name + " counts", std::uint64_t{8} * buckets, unit.rank));
      std::vector<Use> uses;
      add_uses(uses, in, unit.blocks, Access::read);
      uses.push_back({counted.back(), Access::write});
      args.blocks = static_cast<std::uint32_t>(unit.blocks.size());
      driver_.run_with(unit.rank, detail::operations::route_count, uses, args);
    }
  }
  Routed routed;
  for (const ChunkRef chunk : counted) {
    const std::vector<std::byte> bytes_of = driver_.fetch(chunk);
    driver_.destroy(chunk);
    routed.counts.emplace_back(buckets);
    std::memcpy(routed.counts.back().data(), bytes_of.data(), std::size_t{8} * buckets);
  }
  cluster::PlanBatch batch(driver_);
  routed.parts.resize(units.size());
  for (std::size_t u = 0; u < units.size(); ++u) {
    std::vector<Use> uses;
    add_uses(uses, in, units[u].blocks, Access::read);
    for (std::uint32_t b = 0; b < buckets; ++b) {
      routed.parts[u].push_back(driver_.create_late_chunk(
          name + " part " + std::to_string(u) + " for bucket " + std::to_string(b),
          std::max<std::uint64_t>(1, routed.counts[u][b]) * bytes, units[u].rank));
      uses.push_back({routed.parts[u].back(), Access::write});
    }
    args.blocks = static_cast<std::uint32_t>(units[u].blocks.size());
    driver_.run_with(units[u].rank, detail::operations::route, uses, args);
  }
  return routed;
}

void Datasets::release(const Routed& routed) {
  for (const auto& unit_parts : routed.parts) {
    for (const ChunkRef chunk : unit_parts)
      driver_.destroy(chunk);
  }
}

Datasets::State Datasets::shuffle(const State& in, std::string name, const std::string& key,
                                  std::vector<std::string> splitters, const char* merge) {
  const Routed routed = route(in, name, key, std::move(splitters), false);
  State out = merge_buckets(std::move(name), in->record_bytes, routed, nullptr, merge, key);
  release(routed);
  return out;
}

Datasets::State Datasets::merge_buckets(std::string name, std::uint32_t record_bytes,
                                        const Routed& routed, const Routed* other,
                                        const char* merge, const std::string& key) {
  State out = make_state(std::move(name), record_bytes);
  const detail::MergeArgs args{
      key, record_bytes, static_cast<std::uint32_t>(routed.parts.size()),
      other == nullptr ? 0 : static_cast<std::uint32_t>(other->parts.size())};
  cluster::PlanBatch batch(driver_);
  for (std::uint32_t b = 0; b < bucket_count(); ++b) {
    const int rank = rank_of_bucket(b);
    std::uint64_t total = 0;
    for (const auto& unit_counts : routed.counts)
      total += unit_counts[b];
    const ChunkRef chunk = driver_.create_late_chunk(
        block_name(out->name, b), std::max<std::uint64_t>(1, total) * record_bytes, rank);
    out->blocks.push_back({chunk, rank, total, true});
    std::vector<Use> uses;
    for (const Routed* from : {&routed, other}) {
      if (from == nullptr) continue;
      for (const auto& unit_parts : from->parts)
        uses.push_back({unit_parts[b], Access::read});
    }
    uses.push_back({chunk, Access::write});
    driver_.run_with(rank, merge, uses, args);
  }
  return out;
}

Datasets::State Datasets::join_blocks(const State& left, const State& right,
                                      const JoinShape& shape) {
  const RecordFunction& lk = checked(shape.left_key, RecordFunction::Kind::select,
                                     left->record_bytes, nullptr, left->name);
  const RecordFunction& rk = checked(shape.right_key, RecordFunction::Kind::select,
                                     right->record_bytes, nullptr, right->name);
  if (!lk.widen || !rk.widen)
    throw Error("join: the key functions '" + shape.left_key + "' and '" + shape.right_key +
                "' must give integers");
  const std::uint32_t buckets = bucket_count();
  const std::string name = left->name + ".join(" + right->name + ")";
  const Routed lefts = route(left, name + " left", shape.left_key, {}, true);
  const Routed rights = route(right, name + " right", shape.right_key, {}, true);
  const detail::JoinArgs args{shape.left_key,
                              shape.right_key,
                              static_cast<std::uint32_t>(lefts.parts.size()),
                              static_cast<std::uint32_t>(rights.parts.size()),
                              shape.pair_bytes,
                              shape.right_offset};
  const auto uses_of = [&](std::uint32_t b) {
    std::vector<Use> uses;
    for (const auto& unit_parts : lefts.parts)
      uses.push_back({unit_parts[b], Access::read});
    for (const auto& unit_parts : rights.parts)
      uses.push_back({unit_parts[b], Access::read});
    return uses;
  };
  // Each bucket counts its pairs; the host reads the counts and sizes the outputs.
  std::vector<ChunkRef> counted;
  {
    cluster::PlanBatch batch(driver_);
    for (std::uint32_t b = 0; b < buckets; ++b) {
      counted.push_back(driver_.create_chunk(name + " pairs", 8, rank_of_bucket(b)));
      std::vector<Use> uses = uses_of(b);
      uses.push_back({counted.back(), Access::write});
      driver_.run_with(rank_of_bucket(b), detail::operations::join_count, uses, args);
    }
  }
  State out = make_state(name, shape.pair_bytes);
  for (std::uint32_t b = 0; b < buckets; ++b) {
    const int rank = rank_of_bucket(b);
    std::uint64_t pairs = 0;
    const std::vector<std::byte> bytes = driver_.fetch(counted[b]);
    driver_.destroy(counted[b]);
    std::memcpy(&pairs, bytes.data(), 8);
    const ChunkRef chunk = driver_.create_late_chunk(
        block_name(name, b), std::max<std::uint64_t>(1, pairs) * shape.pair_bytes, rank);
    out->blocks.push_back({chunk, rank, pairs, true});
    std::vector<Use> uses = uses_of(b);
    uses.push_back({chunk, Access::write});
    driver_.run_with(rank, detail::operations::join, uses, args);
  }
  release(lefts);
  release(rights);
  return out;
}

Datasets::State Datasets::order_blocks(const State& in, const std::string& key) {
  const RecordFunction& f =
      checked(key, RecordFunction::Kind::select, in->record_bytes, nullptr, in->name);
  if (!f.order) {
    throw Error("order_by: key function '" + key + "' (" + f.signature +
                ") does not give integers or arrays of bytes");
  }
  // A sample of every unit's keys, sorted; the buckets' ranges cut it into equal parts.
  constexpr std::uint32_t samples = 64;
  std::vector<ChunkRef> sampled;
  {
    cluster::PlanBatch batch(driver_);
    for (const Partition& unit : units_of(in)) {
      sampled.push_back(driver_.create_late_chunk(in->name + " key sample",
                                                  std::uint64_t{samples} * f.out_bytes, unit.rank));
      std::vector<Use> uses;
      add_uses(uses, in, unit.blocks, Access::read);
      uses.push_back({sampled.back(), Access::write});
      driver_.run_with(
          unit.rank, detail::operations::sample_keys, uses,
          detail::SampleArgs{key, static_cast<std::uint32_t>(unit.blocks.size()), samples});
    }
  }
  std::vector<std::string> keys;
  for (const ChunkRef chunk : sampled) {
    const std::vector<std::byte> bytes = driver_.fetch(chunk);
    driver_.destroy(chunk);
    for (std::size_t at = 0; at + f.out_bytes <= bytes.size(); at += f.out_bytes)
      keys.emplace_back(reinterpret_cast<const char*>(bytes.data()) + at, f.out_bytes);
  }
  std::sort(keys.begin(), keys.end(), [](const std::string& a, const std::string& b) {
    return std::memcmp(a.data(), b.data(), a.size()) < 0;
  });
  std::vector<std::string> splitters;
  const std::size_t buckets = bucket_count();
  for (std::size_t b = 1; b < buckets && !keys.empty(); ++b)
    splitters.push_back(keys[b * keys.size() / buckets]);
  return shuffle(in, in->name + ".order_by(" + key + ")", key, std::move(splitters),
                 detail::operations::merge_sorted);
}

Datasets::State Datasets::distinct_blocks(const State& in) {
  return shuffle(in, in->name + ".distinct", {}, {}, detail::operations::merge_distinct);
}

Datasets::State Datasets::intersect_blocks(const State& first, const State& second) {
  if (first->record_bytes != second->record_bytes) {
    throw Error("intersect: '" + first->name + "' and '" + second->name +
                "' have records of different sizes");
  }
  const std::string name = first->name + ".intersect(" + second->name + ")";
  const Routed firsts = route(first, name + " first", {}, {}, false);
  const Routed seconds = route(second, name + " second", {}, {}, false);
  State out = merge_buckets(name, first->record_bytes, firsts, &seconds,
                            detail::operations::merge_intersect, {});
  release(firsts);
  release(seconds);
  return out;
}

Datasets::State Datasets::union_blocks(const State& first, const State& second) {
  if (first->record_bytes != second->record_bytes) {
    throw Error("union: '" + first->name + "' and '" + second->name +
                "' hold records of different sizes");
  }
  State out = make_state(first->name + ".union(" + second->name + ")", first->record_bytes);
  out->blocks = first->blocks;
  out->blocks.insert(out->blocks.end(), second->blocks.begin(), second->blocks.end());
  out->borrowed_from = {first, second};
  return out;
}

Datasets::State Datasets::take_blocks(const State& in, std::uint64_t n) {
  const std::vector<std::uint64_t>& records = records_of(in);
  State out = make_state(in->name + ".take(" + std::to_string(n) + ")", in->record_bytes);
  cluster::PlanBatch batch(driver_);
  std::uint64_t left = n;
  for (std::size_t b = 0; b < records.size() && left > 0; ++b) {
    const std::uint64_t count = std::min(left, records[b]);
    if (count == 0) continue;
    left -= count;
    const detail::Block& from = in->blocks[b];
    const ChunkRef chunk = driver_.create_chunk(block_name(out->name, out->blocks.size()),
                                                count * in->record_bytes, from.rank);
    out->blocks.push_back({chunk, from.rank, count, false});
    driver_.run_with(from.rank, detail::operations::gather,
                     {{from.chunk, Access::read}, {chunk, Access::write}},
                     detail::GatherArgs{in->record_bytes, {{0, 0, count}}});
  }
  return out;
}

}  // namespace strata::dataset
