#pragma once
// The results of an all-pairs run on disk: one record per computed pair, sorted by (left, right),
// written when the run completes (while it runs, records stream to a journal beside it, which is
// also what a resumed run continues from). Layout: "STRATAAP", u32 version, u32 result bytes,
// u64 record count, then per record u32 left, u32 right and the result's bytes.

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <span>
#include <vector>

#include "strata/allpairs/application.hpp"

namespace strata::allpairs {

// Every record of a results file, untyped.
struct RawResults {
  std::uint32_t result_bytes = 0;
  std::vector<std::pair<ItemIndex, ItemIndex>> pairs;
  std::vector<std::byte> values;  // pairs.size() * result_bytes
};

// Reads a results file; a missing, truncated or foreign file is an Error naming it.
RawResults read_raw_results(const std::filesystem::path& path);

// One pair's result.
template <class Result>
struct PairResult {
  ItemIndex left = 0;
  ItemIndex right = 0;
  Result value{};
};

// Reads a results file of `Result` records (the record size must match).
template <class Result>
std::vector<PairResult<Result>> read_results(const std::filesystem::path& path) {
  RawResults raw = read_raw_results(path);
  if (raw.result_bytes != sizeof(Result))
    throw Error(path.string() + ": results of " + std::to_string(raw.result_bytes) +
                " bytes, expected " + std::to_string(sizeof(Result)));
  std::vector<PairResult<Result>> out(raw.pairs.size());
  for (std::size_t k = 0; k < out.size(); ++k) {
    out[k].left = raw.pairs[k].first;
    out[k].right = raw.pairs[k].second;
    std::memcpy(&out[k].value, raw.values.data() + k * sizeof(Result), sizeof(Result));
  }
  return out;
}

}  // namespace strata::allpairs
