#pragma once
// The groups of one partition or bucket in a group_by: each distinct key with its count and its
// values combined by the user's function, written out as Group<K, A> records.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "key_index.hpp"
#include "strata/dataset/datasets.hpp"
#include "strata/dataset/record_function.hpp"

namespace strata::dataset::detail {

class GroupTable {
 public:
  // Without `combine` (count()) only the records are counted; values stay zero.
  GroupTable(const GroupShape& shape, const RecordFunction* combine);

  // Adds records: keys[i] with values[i] (value_bytes each) and counts[i] records (empty
  // counts: one each), combined into the groups of equal keys.
  void add(std::span<const std::uint64_t> keys, std::span<const std::byte> values,
           std::span<const std::uint64_t> counts = {});
  // Adds the Group records of `groups` (group_bytes each).
  void add_groups(std::span<const std::byte> groups);
  std::size_t size() const { return keys_.size(); }

  // The indexes of the groups whose keys go to each of `buckets` buckets (bucket_of_key), each
  // list in order of first appearance.
  std::vector<std::vector<std::uint32_t>> by_bucket(std::uint32_t buckets) const;
  // Writes the groups `chosen` (all of them when null) into `out` as Group records, in key order
  // when `sorted`; returns how many. Throws naming `what` when they do not fit.
  std::uint64_t write(std::span<std::byte> out, const std::vector<std::uint32_t>* chosen,
                      const std::string& what, bool sorted) const;

 private:
  GroupShape shape_;
  const RecordFunction* combine_;
  KeyIndex index_;
  std::vector<std::uint64_t> keys_;
  std::vector<std::uint64_t> counts_;
  std::vector<std::byte> values_;        // the groups' combined values
  std::vector<std::uint32_t> group_of_;  // scratch of add()
};

}  // namespace strata::dataset::detail
