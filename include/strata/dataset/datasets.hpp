#pragma once
// Datasets: the data-set front end on the driver (the dandelion paper's cluster engine, with the
// spliter paper's partitions). It makes data sets from host records or generators, and plans
// each operator as operations on the ranks that hold the blocks: by default one task per
// partition (the blocks of a rank grouped by its workers, no data moved), or one per block.
// A group_by is a hash shuffle: every partition groups and combines its records, sends each
// rank the groups whose keys hash to it, and each rank merges what it received, in key order.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "strata/cluster/driver.hpp"
#include "strata/dataset/dataset.hpp"
#include "strata/dataset/record_function.hpp"
#include "strata/node/node.hpp"

namespace strata::dataset {

// What the operators use as their task: a partition (the default; spliter) or each block.
enum class TaskUnit : std::uint8_t { partition, block };

struct DatasetOptions {
  // Partitions per rank; 0: as many as the rank's CPU workers.
  std::uint32_t partitions_per_rank = 0;
  TaskUnit unit = TaskUnit::partition;
  // Groups a partition may send one rank, and a rank may hold, in a group_by: its buffers are
  // sized for this many. More is an error that names this option (nothing is dropped).
  std::uint32_t max_groups = 1u << 14;
};

// The shape of a group_by's groups, for the type-erased planner.
struct GroupShape {
  std::string key;      // the key function
  std::string value;    // the value function; empty: the records themselves
  std::string combine;  // the combine function; empty: count the records only (count())
  std::uint32_t key_bytes = 0;
  std::uint32_t value_bytes = 0;
  bool key_signed = false;
  std::uint32_t group_bytes = 0;  // sizeof(Group<K, A>)
  std::uint32_t value_offset = 0;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(key, value, combine, key_bytes, value_bytes, key_signed, group_bytes, value_offset);
  }
};

// The shape of a join's pairs, for the type-erased planner.
struct JoinShape {
  std::string left_key;
  std::string right_key;
  std::uint32_t pair_bytes = 0;  // sizeof(Pair<L, R>)
  std::uint32_t right_offset = 0;
};

class Datasets {
 public:
  using State = std::shared_ptr<detail::DatasetState>;

  // Every rank's node must be prepared (prepare()) before the program runs.
  Datasets(node::Node& node, cluster::Driver& driver, DatasetOptions options = {});
  ~Datasets();
  Datasets(const Datasets&) = delete;
  Datasets& operator=(const Datasets&) = delete;

  // Defines the front end's operations on `node`: call on every rank, before
  // node.program().run().
  static void prepare(node::Node& node);

  const DatasetOptions& options() const { return options_; }
  cluster::Driver& driver() { return driver_; }

  // The host's records in `blocks` blocks (0: four per partition of every rank), consecutive
  // blocks on one rank, ranks in order.
  template <Record T>
  Dataset<T> from_host(std::string name, std::span<const T> records, std::uint64_t blocks = 0) {
    return Dataset<T>(create(std::move(name), sizeof(T), std::as_bytes(records), blocks));
  }
  // count records f(0), f(1), ..., made on the ranks that hold their blocks.
  template <Record T>
  Dataset<T> generate(std::string name, std::uint64_t count, const Select<std::uint64_t, T>& f,
                      std::uint64_t blocks = 0) {
    return Dataset<T>(generate_blocks(std::move(name), sizeof(T), count, f.name(), blocks));
  }
  // The data set's partitions (computed once per set of blocks).
  template <Record T>
  const Split& split(const Dataset<T>& data) {
    return split_of(data.state());
  }
  // The global index of every record of a partition, in its blocks' order (spliter's
  // get_item_indexes); waits for the blocks' writers when their sizes are late.
  template <Record T>
  std::vector<std::uint64_t> item_indexes(const Dataset<T>& data, const Partition& partition) {
    return item_indexes_of(data.state(), partition);
  }
  // The same records in `blocks_per_rank` blocks per rank of about equal size: the records move
  // (Dask's rechunk, which the spliter paper compares with).
  template <Record T>
  Dataset<T> rechunk(const Dataset<T>& data, std::uint32_t blocks_per_rank) {
    return Dataset<T>(rechunk_blocks(data.state(), blocks_per_rank));
  }

  // The type-erased planners behind Dataset<T>'s operators.
  State create(std::string name, std::uint32_t record_bytes, std::span<const std::byte> records,
               std::uint64_t blocks);
  State generate_blocks(std::string name, std::uint32_t record_bytes, std::uint64_t count,
                        const std::string& function, std::uint64_t blocks);
  State select_blocks(const State& in, const std::string& function, std::uint32_t out_bytes,
                      const State* context);
  State where_blocks(const State& in, const std::string& function, const State* context);
  State select_many_blocks(const State& in, const std::string& function, const State* context);
  State group_blocks(const State& in, const GroupShape& shape, const State* context);
  State rechunk_blocks(const State& in, std::uint32_t blocks_per_rank);
  // Sorted by the key's order, stably: a sample of the keys picks each rank's range, the
  // records are counted and sent to their ranks, and each rank sorts what it holds.
  State order_blocks(const State& in, const std::string& key);
  // The first of each set of equal records (equal bytes), sent to ranks by a hash of them.
  State distinct_blocks(const State& in);
  State union_blocks(const State& first, const State& second);
  State intersect_blocks(const State& first, const State& second);
  State take_blocks(const State& in, std::uint64_t n);
  // Every pair of a left and a right record with equal keys (a hash join: both sides sent to
  // ranks by a hash of the key, each rank joining what it holds, the smaller side hashed).
  State join_blocks(const State& left, const State& right, const JoinShape& shape);
  // One late-sized block on rank 0: the records combined (no record when there are none).
  State reduce_blocks(const State& in, const std::string& combine);
  std::uint64_t count_records(const State& in);
  std::vector<std::byte> collect_blocks(const State& in);
  const Split& split_of(const State& in);
  std::vector<std::uint64_t> item_indexes_of(const State& in, const Partition& partition);
  // Records per block (asks the ranks for late sizes once).
  const std::vector<std::uint64_t>& records_of(const State& in);
  // Frees blocks (their DatasetState went).
  void release(const std::vector<detail::Block>& blocks);

 private:
  State make_state(std::string name, std::uint32_t record_bytes);
  // Appends to `state` the blocks of `count` records in `blocks` blocks (0: `fallback`) of about
  // equal size, none empty, spread in order over the ranks; returns each one's first record.
  std::vector<std::uint64_t> lay_out(const State& state, std::uint64_t count, std::uint64_t blocks,
                                     std::uint64_t fallback);
  // Four blocks per partition.
  std::uint64_t default_blocks() const;
  // The task units of `in`: per partition (or per block), the blocks it covers.
  std::vector<Partition> units_of(const State& in);
  std::uint32_t partitions_per_rank() const;
  // The destinations of a shuffle: partitions_per_rank() buckets on each rank, bucket b on rank
  // b / partitions_per_rank(), so that each rank merges, sorts or joins with all its workers.
  std::uint32_t bucket_count() const;
  int rank_of_bucket(std::uint32_t bucket) const;
  // Plans `operation` (select or where) of `function` from each block of `in` into the same
  // block of `out`, per task unit.
  void map_blocks(const State& in, const State& out, const std::string& function,
                  const char* operation, const State* context);
  // Plans `operation` (where, select_many) into late-sized blocks of up to `expands` results per
  // record of `in`.
  State late_map(const State& in, const std::string& function, const char* operation,
                 const State* context);
  // The records of each task unit sent to each bucket: parts[u][b] holds counts[u][b] records.
  struct Routed {
    std::vector<std::vector<cluster::ChunkRef>> parts;
    std::vector<std::vector<std::uint64_t>> counts;
  };
  // Routes every record of `in` to a bucket: by the ranges `splitters` cut its key's order bytes
  // into, by a hash of its key's value (hash_key), or without a key by a hash of its bytes.
  Routed route(const State& in, const std::string& name, const std::string& key,
               std::vector<std::string> splitters, bool hash_key);
  void release(const Routed& routed);
  // Routes every record of `in` to a bucket (with a key: by the ranges `splitters` cut its order
  // bytes into; without: by hash), then runs `merge` on each bucket over what it received, in
  // unit order: the result has a block per bucket, in bucket order.
  State shuffle(const State& in, std::string name, const std::string& key,
                std::vector<std::string> splitters, const char* merge);
  // Runs `merge` on each bucket over what `routed` (then `other`, if given) sent it, in unit
  // order; each result block has room for what `routed` sent.
  State merge_buckets(std::string name, std::uint32_t record_bytes, const Routed& routed,
                      const Routed* other, const char* merge, const std::string& key);

  node::Node& node_;
  cluster::Driver& driver_;
  DatasetOptions options_;
  std::shared_ptr<detail::Owner> owner_;
  std::uint64_t next_name_ = 0;
};

// A data set grouped by key, waiting for its aggregate: the dandelion paper's GroupBy followed
// by an aggregation, fused as its §4.2 describes.
template <Key K, Record T, typename Context>
class Grouping {
 public:
  Grouping(Dataset<T> data, std::string key, std::optional<Datasets::State> context)
      : data_(std::move(data)), key_(std::move(key)), context_(std::move(context)) {}

  // Groups that only count their records (their value is 0): a histogram.
  Dataset<Group<K, std::uint8_t>> count() const { return aggregate_values<std::uint8_t>({}, {}); }
  // Groups of the records combined with `f`.
  Dataset<Group<K, T>> aggregate(const Combine<T>& f) const {
    return aggregate_values<T>({}, f.name());
  }
  // Groups of value(record) combined with `f`.
  template <Record A>
  Dataset<Group<K, A>> aggregate(const Select<T, A>& value, const Combine<A>& f) const {
    return aggregate_values<A>(value.name(), f.name());
  }

 private:
  template <Record A>
  Dataset<Group<K, A>> aggregate_values(std::string value, std::string combine) const {
    using G = Group<K, A>;
    static_assert(offsetof(G, count) == 8, "a group's count is at byte 8");
    GroupShape shape;
    shape.key = key_;
    shape.value = std::move(value);
    shape.combine = std::move(combine);
    shape.key_bytes = sizeof(K);
    shape.value_bytes = sizeof(A);
    shape.key_signed = std::is_signed_v<K>;
    shape.group_bytes = sizeof(Group<K, A>);
    shape.value_offset = offsetof(G, value);
    Datasets& datasets = *data_.state()->owner->datasets;
    return Dataset<Group<K, A>>(
        datasets.group_blocks(data_.state(), shape, context_ ? &*context_ : nullptr));
  }

  Dataset<T> data_;
  std::string key_;
  std::optional<Datasets::State> context_;
};

namespace detail {
inline Datasets& datasets_of(const std::shared_ptr<DatasetState>& state) {
  if (state == nullptr || state->owner->datasets == nullptr)
    throw Error("a data set is used without its Datasets front end (empty, or after it ended)");
  return *state->owner->datasets;
}
template <Record T>
std::vector<T> records_from(const std::vector<std::byte>& bytes) {
  std::vector<T> records(bytes.size() / sizeof(T));
  if (!records.empty()) std::memcpy(records.data(), bytes.data(), records.size() * sizeof(T));
  return records;
}
}  // namespace detail

template <Record T>
template <Record Out>
Dataset<Out> Dataset<T>::select(const Select<T, Out>& f) const {
  return Dataset<Out>(
      detail::datasets_of(state_).select_blocks(state_, f.name(), sizeof(Out), nullptr));
}

template <Record T>
template <Record Out, Record C>
Dataset<Out> Dataset<T>::select(const Select<T, Out, C>& f, const Dataset<C>& context) const {
  return Dataset<Out>(
      detail::datasets_of(state_).select_blocks(state_, f.name(), sizeof(Out), &context.state()));
}

template <Record T>
Dataset<T> Dataset<T>::where(const Where<T>& f) const {
  return Dataset<T>(detail::datasets_of(state_).where_blocks(state_, f.name(), nullptr));
}

template <Record T>
template <Record C>
Dataset<T> Dataset<T>::where(const Where<T, C>& f, const Dataset<C>& context) const {
  return Dataset<T>(detail::datasets_of(state_).where_blocks(state_, f.name(), &context.state()));
}

template <Record T>
template <Record Out>
Dataset<Out> Dataset<T>::select_many(const SelectMany<T, Out>& f) const {
  return Dataset<Out>(detail::datasets_of(state_).select_many_blocks(state_, f.name(), nullptr));
}

template <Record T>
template <Record Out, Record C>
Dataset<Out> Dataset<T>::select_many(const SelectMany<T, Out, C>& f,
                                     const Dataset<C>& context) const {
  return Dataset<Out>(
      detail::datasets_of(state_).select_many_blocks(state_, f.name(), &context.state()));
}

template <Record T>
template <Key K>
Grouping<K, T, void> Dataset<T>::group_by(const Select<T, K>& key) const {
  return Grouping<K, T, void>(*this, key.name(), std::nullopt);
}

template <Record T>
template <Key K, Record C>
Grouping<K, T, C> Dataset<T>::group_by(const Select<T, K, C>& key,
                                       const Dataset<C>& context) const {
  return Grouping<K, T, C>(*this, key.name(), context.state());
}

template <Record T>
template <OrderKey K>
Dataset<T> Dataset<T>::order_by(const Select<T, K>& key) const {
  return Dataset<T>(detail::datasets_of(state_).order_blocks(state_, key.name()));
}

template <Record T>
template <Record R, Key K, Key KR>
Dataset<Pair<T, R>> Dataset<T>::join(const Dataset<R>& right, const Select<T, K>& key,
                                     const Select<R, KR>& right_key) const {
  using P = Pair<T, R>;
  const JoinShape shape{key.name(), right_key.name(), sizeof(P), offsetof(P, right)};
  return Dataset<P>(detail::datasets_of(state_).join_blocks(state_, right.state(), shape));
}

template <Record T>
Dataset<T> Dataset<T>::union_with(const Dataset<T>& other) const {
  return Dataset<T>(detail::datasets_of(state_).union_blocks(state_, other.state()));
}

template <Record T>
Dataset<T> Dataset<T>::intersect(const Dataset<T>& other) const {
  return Dataset<T>(detail::datasets_of(state_).intersect_blocks(state_, other.state()));
}

template <Record T>
Dataset<T> Dataset<T>::take(std::uint64_t n) const {
  return Dataset<T>(detail::datasets_of(state_).take_blocks(state_, n));
}

template <Record T>
Dataset<T> Dataset<T>::distinct() const {
  return Dataset<T>(detail::datasets_of(state_).distinct_blocks(state_));
}

template <Record T>
Dataset<T> Dataset<T>::reduce(const Combine<T>& f) const {
  return Dataset<T>(detail::datasets_of(state_).reduce_blocks(state_, f.name()));
}

template <Record T>
std::optional<T> Dataset<T>::aggregate(const Combine<T>& f) const {
  const std::vector<T> value = reduce(f).collect();
  if (value.empty()) return std::nullopt;
  return value.front();
}

template <Record T>
std::uint64_t Dataset<T>::count() const {
  return detail::datasets_of(state_).count_records(state_);
}

template <Record T>
std::vector<T> Dataset<T>::collect() const {
  return detail::records_from<T>(detail::datasets_of(state_).collect_blocks(state_));
}

}  // namespace strata::dataset
