// Partitions (the spliter paper): blocks grouped where they live, never moved, with their block
// and item indexes; one task per partition, per block or after a rechunk gives one histogram.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "dataset_test_support.hpp"

namespace strata::dataset::testing {
namespace {

struct Sample {
  double x = 0;
  double y = 0;
};

// A 16 x 16 histogram of [0, 1)^2.
std::uint32_t bin(const Sample& s) {
  const auto bx = static_cast<std::uint32_t>(std::clamp(s.x, 0.0, 0.999999) * 16);
  const auto by = static_cast<std::uint32_t>(std::clamp(s.y, 0.0, 0.999999) * 16);
  return by * 16 + bx;
}
const Select<Sample, std::uint32_t> bin_of("split_test.bin_of", bin);
const Select<Sample, std::uint8_t> nothing("split_test.nothing",
                                           [](const Sample&) { return std::uint8_t{0}; });
const Combine<std::uint8_t> keep_first("split_test.keep_first",
                                       [](const std::uint8_t& a, const std::uint8_t&) {
                                         return a;
                                       });

std::vector<Sample> samples(std::size_t n, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::normal_distribution<double> normal(0.5, 0.2);
  std::vector<Sample> out(n);
  for (auto& s : out)
    s = {normal(random), normal(random)};
  return out;
}

TEST(DatasetSplit, PartitionsHoldEveryBlockOnceOnItsRankInOrder) {
  for (std::uint32_t per_rank : {1u, 2u, 3u}) {
    Datasets datasets(*the_node, *the_driver, {per_rank, TaskUnit::partition, 1u << 14});
    const std::vector<Sample> records = samples(1001, 1);
    const auto data = datasets.from_host<Sample>("samples", records, 23);
    const Split& split = datasets.split(data);
    std::set<std::uint32_t> seen;
    std::map<int, int> per;
    std::set<std::uint64_t> items;
    for (const Partition& p : split.partitions) {
      ASSERT_FALSE(p.blocks.empty());
      EXPECT_TRUE(std::is_sorted(p.blocks.begin(), p.blocks.end()));
      for (std::uint32_t b : p.blocks) {
        EXPECT_TRUE(seen.insert(b).second) << "block " << b << " twice";
        EXPECT_EQ(data.state()->blocks[b].rank, p.rank);
      }
      ++per[p.rank];
      for (std::uint64_t i : datasets.item_indexes(data, p))
        EXPECT_TRUE(items.insert(i).second);
    }
    EXPECT_EQ(seen.size(), data.block_count());
    EXPECT_EQ(items.size(), records.size());
    EXPECT_EQ(*items.rbegin(), records.size() - 1);
    for (const auto& [rank, count] : per)
      EXPECT_LE(count, static_cast<int>(per_rank)) << "rank " << rank;
    // Computed once: the same object for the next operator.
    EXPECT_EQ(&datasets.split(data), &split);
  }
}

TEST(DatasetSplit, APartitionTaskPerBlockOrAfterRechunkGivesOneHistogram) {
  const std::vector<Sample> records = samples(20000, 2);
  std::map<std::uint32_t, std::uint64_t> expected;
  for (const Sample& s : records)
    ++expected[bin(s)];
  for (int variant = 0; variant < 3; ++variant) {
    Datasets datasets(*the_node, *the_driver,
                      {0, variant == 1 ? TaskUnit::block : TaskUnit::partition, 1u << 14});
    auto data = datasets.from_host<Sample>("samples", records, 48);
    if (variant == 2) {
      data = datasets.rechunk(data, 2);
      EXPECT_EQ(data.block_count(), 2u * static_cast<std::size_t>(the_driver->size()));
      EXPECT_EQ(data.count(), records.size());
    }
    const auto histogram = data.group_by(bin_of).aggregate(nothing, keep_first).collect();
    std::map<std::uint32_t, std::uint64_t> got;
    for (const auto& bin : histogram)
      got[bin.key] += bin.count;
    EXPECT_EQ(got, expected) << "variant " << variant;
  }
}

}  // namespace
}  // namespace strata::dataset::testing
