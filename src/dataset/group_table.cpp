#include "group_table.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "operation_args.hpp"
#include "strata/base/error.hpp"

namespace strata::dataset::detail {

GroupTable::GroupTable(const GroupShape& shape, const RecordFunction* combine)
    : shape_(shape), combine_(combine) {}

void GroupTable::add(std::span<const std::uint64_t> keys, std::span<const std::byte> values,
                     std::span<const std::uint64_t> counts) {
  // A batch at a time: its keys' slots, then its groups' counts and values, are prefetched
  // together, so that a table larger than the cache waits for memory once per batch.
  constexpr std::size_t batch = 32;
  const std::size_t bytes = shape_.value_bytes;
  group_of_.resize(batch);
  for (std::size_t first = 0; first < keys.size(); first += batch) {
    const std::size_t n = std::min(batch, keys.size() - first);
    for (std::size_t i = first; i < first + n; ++i)
      index_.prefetch(keys[i]);
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t i = first + j;
      const auto [group, added] = index_.insert(keys[i]);
      if (added) {
        keys_.push_back(keys[i]);
        counts_.push_back(counts.empty() ? 1 : counts[i]);  // a new group's first record
        if (combine_ == nullptr) {
          values_.resize(values_.size() + bytes);
        } else {
          values_.insert(values_.end(), values.begin() + static_cast<std::ptrdiff_t>(i * bytes),
                         values.begin() + static_cast<std::ptrdiff_t>((i + 1) * bytes));
        }
      } else {
        __builtin_prefetch(&counts_[group], 1);
        if (combine_ != nullptr) __builtin_prefetch(values_.data() + group * bytes, 1);
      }
      group_of_[j] = added ? RecordFunction::skip : group;
    }
    for (std::size_t j = 0; j < n; ++j) {
      if (group_of_[j] != RecordFunction::skip)
        counts_[group_of_[j]] += counts.empty() ? 1 : counts[first + j];
    }
    if (combine_ != nullptr) {
      combine_->scatter(values_.data(), std::span<const std::uint32_t>(group_of_.data(), n),
                        values.subspan(first * bytes, n * bytes));
    }
  }
}

void GroupTable::add_groups(std::span<const std::byte> groups) {
  const std::size_t n = groups.size() / shape_.group_bytes;
  std::vector<std::uint64_t> keys(n);
  std::vector<std::uint64_t> counts(n);
  std::vector<std::byte> values(n * shape_.value_bytes);
  for (std::size_t g = 0; g < n; ++g) {
    const std::byte* group = groups.data() + g * shape_.group_bytes;
    std::uint64_t key = 0;
    std::memcpy(&key, group, shape_.key_bytes);
    if (shape_.key_signed && shape_.key_bytes < 8) {
      const unsigned shift = 64 - 8 * shape_.key_bytes;
      key = static_cast<std::uint64_t>(static_cast<std::int64_t>(key << shift) >> shift);
    }
    keys[g] = key;
    std::memcpy(&counts[g], group + 8, 8);
    std::memcpy(values.data() + g * shape_.value_bytes, group + shape_.value_offset,
                shape_.value_bytes);
  }
  add(keys, values, counts);
}

std::vector<std::vector<std::uint32_t>> GroupTable::by_bucket(std::uint32_t buckets) const {
  std::vector<std::vector<std::uint32_t>> lists(buckets);
  for (std::uint32_t g = 0; g < keys_.size(); ++g)
    lists[buckets <= 1 ? 0 : bucket_of_key(keys_[g], buckets)].push_back(g);
  return lists;
}

std::uint64_t GroupTable::write(std::span<std::byte> out,
                                const std::vector<std::uint32_t>* chosen_groups,
                                const std::string& what, bool sorted) const {
  std::vector<std::uint32_t> chosen;
  if (chosen_groups != nullptr) {
    chosen = *chosen_groups;
  } else {
    chosen.resize(keys_.size());
    std::iota(chosen.begin(), chosen.end(), 0u);
  }
  const std::uint64_t room = out.size() / shape_.group_bytes;
  if (chosen.size() > room) {
    throw Error(what + ": " + std::to_string(chosen.size()) + " groups, more than the " +
                std::to_string(room) +
                " its buffer holds (DatasetOptions::max_groups): raise max_groups");
  }
  const bool is_signed = shape_.key_signed;
  if (sorted)
    std::sort(chosen.begin(), chosen.end(), [&](std::uint32_t a, std::uint32_t b) {
      return is_signed ? static_cast<std::int64_t>(keys_[a]) < static_cast<std::int64_t>(keys_[b])
                       : keys_[a] < keys_[b];
    });
  std::memset(out.data(), 0, chosen.size() * shape_.group_bytes);
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    std::byte* group = out.data() + i * shape_.group_bytes;
    const std::uint32_t g = chosen[i];
    std::memcpy(group, &keys_[g], shape_.key_bytes);
    std::memcpy(group + 8, &counts_[g], 8);
    std::memcpy(group + shape_.value_offset, values_.data() + std::size_t{g} * shape_.value_bytes,
                shape_.value_bytes);
  }
  return chosen.size();
}

}  // namespace strata::dataset::detail
