#pragma once
// The arguments of the data-set operations that plans run on the ranks (operations.cpp), and
// the order of the chunks each declares.

#include <cstdint>
#include <string>
#include <vector>

#include "strata/dataset/datasets.hpp"

namespace strata::dataset::detail {

namespace operations {
inline constexpr const char* generate = "dataset.generate";        // out[k]
inline constexpr const char* select = "dataset.select";            // in[k], out[k], context[c]
inline constexpr const char* where = "dataset.where";              // in[k], out[k], context[c]
inline constexpr const char* select_many = "dataset.select_many";  // in[k], out[k], context[c]
inline constexpr const char* fold = "dataset.fold";                // in[k], out
inline constexpr const char* group_partial =
    "dataset.group_partial";                                       // in[k], out[ranks], context[c]
inline constexpr const char* group_merge = "dataset.group_merge";  // in[parts], out
inline constexpr const char* gather = "dataset.gather";            // in[m], out
// sample_keys: in[k], out; route_count: in[k], out (ranks u64); route: in[k], out[ranks];
// merge_sorted and merge_distinct: in[parts], out; merge_intersect: in[parts], other[parts],
// out.
inline constexpr const char* sample_keys = "dataset.sample_keys";
inline constexpr const char* route_count = "dataset.route_count";
inline constexpr const char* route = "dataset.route";
inline constexpr const char* merge_sorted = "dataset.merge_sorted";
inline constexpr const char* merge_distinct = "dataset.merge_distinct";
inline constexpr const char* merge_intersect = "dataset.merge_intersect";
// join_count: left[l], right[r], out (one u64); join: left[l], right[r], out.
inline constexpr const char* join_count = "dataset.join_count";
inline constexpr const char* join = "dataset.join";
}  // namespace operations

// generate: block i's records are f(first[i]), f(first[i] + 1), ...
struct GenerateArgs {
  std::string function;
  std::vector<std::uint64_t> first;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(function, first);
  }
};

// select and where over `blocks` blocks; `late[i]`: output block i is late-sized.
struct BlockArgs {
  std::string function;
  std::uint32_t blocks = 0;
  std::uint32_t contexts = 0;
  std::vector<std::uint8_t> late;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(function, blocks, contexts, late);
  }
};

struct FoldArgs {
  std::string combine;
  std::uint32_t blocks = 0;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(combine, blocks);
  }
};

struct GroupArgs {
  GroupShape shape;
  std::uint32_t blocks = 0;   // group_partial: input blocks; group_merge: partials
  std::uint32_t buckets = 0;  // group_partial: output chunks, one per bucket
  std::uint32_t contexts = 0;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(shape, blocks, buckets, contexts);
  }
};

// gather: out = in[piece.use][piece.first .. piece.first + piece.count) for each piece, in order.
struct GatherArgs {
  struct Piece {
    std::uint32_t use = 0;
    std::uint64_t first = 0;
    std::uint64_t count = 0;

    template <class Archive>
    void serialize(Archive& archive) {
      archive(use, first, count);
    }
  };
  std::uint32_t record_bytes = 0;
  std::vector<Piece> pieces;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(record_bytes, pieces);
  }
};

// sample_keys: up to `samples` keys' order bytes of evenly spaced records of the blocks.
struct SampleArgs {
  std::string key;
  std::uint32_t blocks = 0;
  std::uint32_t samples = 0;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(key, blocks, samples);
  }
};

// route_count and route: each record goes to a bucket — by range of its key's order bytes
// (`splitters`, ascending: bucket b takes keys in [splitters[b-1], splitters[b])), or by a hash
// of its bytes when `key` is empty (distinct).
// With `hash_key`, by a hash of the key's value (an integer key: join).
struct RouteArgs {
  std::string key;
  std::vector<std::string> splitters;
  std::uint32_t record_bytes = 0;
  std::uint32_t buckets = 0;
  std::uint32_t blocks = 0;
  bool hash_key = false;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(key, splitters, record_bytes, buckets, blocks, hash_key);
  }
};

// join and join_count: the left and right records routed to this rank (`left_parts`, then
// `right_parts` inputs), matched on their keys' values; each pair written as a Pair<L, R>.
struct JoinArgs {
  std::string left_key;
  std::string right_key;
  std::uint32_t left_parts = 0;
  std::uint32_t right_parts = 0;
  std::uint32_t pair_bytes = 0;
  std::uint32_t right_offset = 0;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(left_key, right_key, left_parts, right_parts, pair_bytes, right_offset);
  }
};

// merge_sorted (stable, by the key's order bytes) and merge_distinct (the first of equal
// records) over `parts` inputs in order.
struct MergeArgs {
  std::string key;
  std::uint32_t record_bytes = 0;
  std::uint32_t parts = 0;
  std::uint32_t other_parts = 0;  // merge_intersect: the other data set's, after `parts`

  template <class Archive>
  void serialize(Archive& archive) {
    archive(key, record_bytes, parts, other_parts);
  }
};

// Defines the operations above on the program.
void define_operations(cluster::Program& program);
void define_shuffle_operations(cluster::Program& program);

// The bucket a key goes to in a shuffle over `buckets` buckets (each rank holds some buckets:
// Datasets plans which).
std::uint32_t bucket_of_key(std::uint64_t key, std::uint32_t buckets);

}  // namespace strata::dataset::detail
