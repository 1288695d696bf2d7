#pragma once
// KeySlices: the widened keys of a block's records, computed a slice of records at a time into
// buffers that are reused, so that an operation's temporaries stay in cache and never grow with
// the data.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "strata/dataset/record_function.hpp"

namespace strata::dataset::detail {

class KeySlices {
 public:
  static constexpr std::size_t slice_records = 8192;

  explicit KeySlices(const RecordFunction& key) : key_(key) {}
  // Calls f(first, records, keys) for consecutive slices of `in`; `context`: the key function's
  // context records, if it takes any.
  template <typename F>
  void each(std::span<const std::byte> in, F&& f, std::span<const std::byte> context = {}) {
    const std::size_t n = in.size() / key_.in_bytes;
    for (std::size_t first = 0; first < n; first += slice_records) {
      const std::size_t count = std::min(slice_records, n - first);
      const std::span<const std::byte> records =
          in.subspan(first * key_.in_bytes, count * key_.in_bytes);
      results_.resize(count * key_.out_bytes);
      keys_.resize(count);
      key_.block(records, results_, context);
      key_.widen(results_, keys_);
      f(first, records, std::span<const std::uint64_t>(keys_));
    }
  }

 private:
  const RecordFunction& key_;
  std::vector<std::byte> results_;
  std::vector<std::uint64_t> keys_;
};

}  // namespace strata::dataset::detail
