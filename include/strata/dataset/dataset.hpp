#pragma once
// Dataset<T>: a collection of fixed-size records in blocks spread over the ranks (the dandelion
// paper's Dandelion collection). A handle is a value: copies share the blocks, which are freed
// when the last copy goes. Operators (select, where, group_by, aggregate, ...) return new data
// sets at once; what they planned runs on the ranks where the blocks live, and only collect(),
// count() and aggregate() wait for it. The operators are defined in datasets.hpp.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "strata/cluster/driver.hpp"
#include "strata/dataset/record_function.hpp"

namespace strata::dataset {

class Datasets;

// One group of DatasetGroups::aggregate: its key, how many records it has and their combined
// value. Its layout is fixed (key first, the count at byte 8), so that every rank reads it alike.
template <Key K, Record A>
struct Group {
  K key{};
  std::uint64_t count = 0;
  A value{};
};

// One pair of a join: a left record and a right record whose keys are equal.
template <Record L, Record R>
struct Pair {
  L left{};
  R right{};
};

// A partition (the spliter paper, §4): blocks of one rank, processed by one task, without
// moving them. `blocks` are indexes into the data set's blocks, ascending.
struct Partition {
  int rank = 0;
  std::vector<std::uint32_t> blocks;
};

// The partitions of a data set: per rank as many as the rank has workers (or the number asked
// for), each holding a run of consecutive blocks of that rank.
struct Split {
  std::vector<Partition> partitions;
};

namespace detail {

// One block: its chunk, the rank that holds it, and how many records it holds (late-sized
// blocks, a where's output, know only their capacity until their writer ran).
struct Block {
  cluster::ChunkRef chunk;
  int rank = 0;
  std::uint64_t capacity = 0;  // records
  bool late = false;
};

// What outlives a Datasets front end for the handles still around: their blocks are then not
// freed (the driver is gone with it).
struct Owner {
  Datasets* datasets = nullptr;
};

struct DatasetState {
  DatasetState(std::shared_ptr<Owner> owner_of, std::string name_of, std::uint32_t bytes)
      : owner(std::move(owner_of)), name(std::move(name_of)), record_bytes(bytes) {}
  // Frees the blocks (after what is planned on them) while the front end lives.
  ~DatasetState();
  DatasetState(const DatasetState&) = delete;
  DatasetState& operator=(const DatasetState&) = delete;

  std::shared_ptr<Owner> owner;
  std::string name;
  std::uint32_t record_bytes = 0;
  std::vector<Block> blocks;
  std::optional<Split> split;  // computed once, reused by every operator on these blocks
  // Records per block, once known (all of them: the late ones asked of their ranks).
  std::optional<std::vector<std::uint64_t>> records;
  // Data sets whose blocks these are (a union's): they free them; this state frees none.
  std::vector<std::shared_ptr<const DatasetState>> borrowed_from;
};

}  // namespace detail

template <Key K, Record T, typename Context>
class Grouping;

template <Record T>
class Dataset {
 public:
  using record_type = T;

  Dataset() = default;
  explicit Dataset(std::shared_ptr<detail::DatasetState> state) : state_(std::move(state)) {}

  bool valid() const { return state_ != nullptr; }
  const std::string& name() const { return state_->name; }
  std::size_t block_count() const { return state_->blocks.size(); }
  const std::shared_ptr<detail::DatasetState>& state() const { return state_; }

  // Operators (datasets.hpp).
  template <Record Out>
  Dataset<Out> select(const Select<T, Out>& f) const;
  template <Record Out, Record C>
  Dataset<Out> select(const Select<T, Out, C>& f, const Dataset<C>& context) const;
  Dataset<T> where(const Where<T>& f) const;
  template <Record C>
  Dataset<T> where(const Where<T, C>& f, const Dataset<C>& context) const;
  // The results of f for each record (up to the most it was made with), in order (LINQ's
  // SelectMany).
  template <Record Out>
  Dataset<Out> select_many(const SelectMany<T, Out>& f) const;
  template <Record Out, Record C>
  Dataset<Out> select_many(const SelectMany<T, Out, C>& f, const Dataset<C>& context) const;
  template <Key K>
  Grouping<K, T, void> group_by(const Select<T, K>& key) const;
  template <Key K, Record C>
  Grouping<K, T, C> group_by(const Select<T, K, C>& key, const Dataset<C>& context) const;
  // The records ordered by key (stable: equal keys keep their order), over the ranks in order.
  template <OrderKey K>
  Dataset<T> order_by(const Select<T, K>& key) const;
  // The first of each set of equal records, in no promised order.
  Dataset<T> distinct() const;
  // This data set's records, then `other`'s: their blocks, nothing moved (LINQ's Concat; a
  // set union is union_with(other).distinct()).
  Dataset<T> union_with(const Dataset<T>& other) const;
  // The first of each set of equal records (equal bytes) that `other` holds too, in no promised
  // order (LINQ's Intersect).
  Dataset<T> intersect(const Dataset<T>& other) const;
  // The first `n` records, in block order.
  Dataset<T> take(std::uint64_t n) const;
  // Every pair of a record and a `right` record whose keys are equal (integer keys, compared
  // by value), in no promised order.
  template <Record R, Key K, Key KR>
  Dataset<Pair<T, R>> join(const Dataset<R>& right, const Select<T, K>& key,
                           const Select<R, KR>& right_key) const;
  // The records combined with `f`, as a data set of one record (none when this one is empty),
  // left on the ranks: what a loop's condition reads without the host.
  Dataset<T> reduce(const Combine<T>& f) const;
  // The records combined with `f` (nullopt for an empty data set).
  std::optional<T> aggregate(const Combine<T>& f) const;
  std::uint64_t count() const;
  // Every record, in block order.
  std::vector<T> collect() const;

 private:
  std::shared_ptr<detail::DatasetState> state_;
};

}  // namespace strata::dataset
