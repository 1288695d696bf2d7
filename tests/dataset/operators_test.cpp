// The operators against plain sequential C++ over the same records, on however many ranks the
// program runs: fixed cases, then random pipelines over random data.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <vector>

#include "dataset_test_support.hpp"

namespace strata::dataset::testing {
namespace {

struct Sale {
  std::int32_t store = 0;
  std::uint32_t units = 0;
  double price = 0;
};

const Select<std::int64_t, std::int64_t> square("test.square",
                                                [](const std::int64_t& x) { return x * x; });
const Where<std::int64_t> is_even("test.is_even", [](const std::int64_t& x) { return x % 2 == 0; });
const Combine<std::int64_t> add("test.add",
                                [](const std::int64_t& a, const std::int64_t& b) { return a + b; });
const Combine<std::int64_t> largest("test.largest",
                                    [](const std::int64_t& a, const std::int64_t& b) {
                                      return std::max(a, b);
                                    });
const Select<std::int64_t, std::int32_t> mod_seven("test.mod_seven", [](const std::int64_t& x) {
  return static_cast<std::int32_t>(x % 7);
});
const Select<std::uint64_t, std::int64_t> triangle("test.triangle", [](const std::uint64_t& i) {
  return static_cast<std::int64_t>(i * (i + 1) / 2);
});
const Select<Sale, std::int32_t> store_of("test.store_of", [](const Sale& s) { return s.store; });
const Select<Sale, double> revenue("test.revenue", [](const Sale& s) { return s.units * s.price; });
const Combine<double> add_double("test.add_double",
                                 [](const double& a, const double& b) { return a + b; });
const Select<std::int64_t, std::int64_t> square_mod("test.square_mod", [](const std::int64_t& x) {
  return x * x % 100003;
});
const Select<std::int64_t, std::int64_t> shift("test.shift",
                                               [](const std::int64_t& x) { return x - 500; });
// Keeps x when it is below every threshold of the context.
const Where<std::int64_t, std::int64_t> below_all(
    "test.below_all", [](const std::int64_t& x, std::span<const std::int64_t> thresholds) {
      return std::all_of(thresholds.begin(), thresholds.end(),
                         [&](std::int64_t t) { return x < t; });
    });

// x % 4 copies of x * 10 + copy (none for multiples of 4 and negative remainders).
const SelectMany<std::int64_t, std::int64_t> copies(
    "test.copies", 3, [](const std::int64_t& x, std::span<std::int64_t> out) {
      const std::int64_t n = x % 4;
      for (std::int64_t c = 0; c < n; ++c)
        out[static_cast<std::size_t>(c)] = x * 10 + c;
      return static_cast<std::size_t>(std::max<std::int64_t>(n, 0));
    });
// Each threshold of the context that x lies below.
const SelectMany<std::int64_t, std::int64_t, std::int64_t> thresholds_above(
    "test.thresholds_above", 4,
    [](const std::int64_t& x, std::span<std::int64_t> out, std::span<const std::int64_t> ts) {
      std::size_t n = 0;
      for (std::int64_t t : ts) {
        if (x < t) out[n++] = t;
      }
      return n;
    });
const SelectMany<std::int64_t, std::int64_t> too_many("test.too_many", 1,
                                                      [](const std::int64_t&,
                                                         std::span<std::int64_t>) { return 2; });

std::vector<std::int64_t> random_values(std::size_t n, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<std::int64_t> value(-1000, 1000);
  std::vector<std::int64_t> values(n);
  for (auto& v : values)
    v = value(random);
  return values;
}

TEST(DatasetOperators, RecordsComeBackInOrderWhateverTheBlocks) {
  Datasets datasets(*the_node, *the_driver);
  const std::vector<std::int64_t> values = random_values(1000, 1);
  for (std::uint64_t blocks : {0, 1, 3, 7, 64, 1000}) {
    const auto data = datasets.from_host<std::int64_t>("values", values, blocks);
    EXPECT_EQ(data.collect(), values) << blocks << " blocks";
    EXPECT_EQ(data.count(), values.size());
  }
}

TEST(DatasetOperators, SelectWhereAndAggregateMatchSequentialCode) {
  for (const TaskUnit unit : {TaskUnit::partition, TaskUnit::block}) {
    Datasets datasets(*the_node, *the_driver, {0, unit, 1u << 14});
    const std::vector<std::int64_t> values = random_values(5000, 2);
    const auto data = datasets.from_host<std::int64_t>("values", values, 13);
    const auto squares = data.select(square);
    const auto even = squares.where(is_even);
    std::vector<std::int64_t> expected;
    for (std::int64_t v : values) {
      if ((v * v) % 2 == 0) expected.push_back(v * v);
    }
    EXPECT_EQ(even.collect(), expected);
    EXPECT_EQ(even.count(), expected.size());
    EXPECT_EQ(even.aggregate(add), std::accumulate(expected.begin(), expected.end(), 0ll));
    EXPECT_EQ(data.aggregate(largest), *std::max_element(values.begin(), values.end()));
    // A select after a where keeps the late sizes.
    const auto again = even.select(square);
    ASSERT_EQ(again.count(), expected.size());
    EXPECT_EQ(again.collect().front(), expected.front() * expected.front());
  }
}

TEST(DatasetOperators, AnEmptyResultAggregatesToNothing) {
  Datasets datasets(*the_node, *the_driver);
  const std::vector<std::int64_t> odd{1, 3, 5, 7, 9, 11};
  const auto none = datasets.from_host<std::int64_t>("odd", odd, 3).where(is_even);
  EXPECT_EQ(none.count(), 0u);
  EXPECT_TRUE(none.collect().empty());
  EXPECT_FALSE(none.aggregate(add).has_value());
}

TEST(DatasetOperators, UnionConcatenatesAndTakeCutsInBlockOrder) {
  Datasets datasets(*the_node, *the_driver);
  const std::vector<std::int64_t> a = random_values(700, 8);
  const std::vector<std::int64_t> b = random_values(300, 9);
  auto both = datasets.from_host<std::int64_t>("a", a, 5).where(is_even).union_with(
      datasets.from_host<std::int64_t>("b", b, 3));
  std::vector<std::int64_t> expected;
  std::copy_if(a.begin(), a.end(), std::back_inserter(expected),
               [](std::int64_t v) { return v % 2 == 0; });
  expected.insert(expected.end(), b.begin(), b.end());
  EXPECT_EQ(both.collect(), expected);
  for (std::uint64_t n : {0ul, 1ul, 250ul, expected.size(), expected.size() + 10}) {
    const auto first = both.take(n).collect();
    EXPECT_EQ(first, std::vector<std::int64_t>(
                         expected.begin(),
                         expected.begin() + static_cast<std::ptrdiff_t>(
                                                std::min<std::uint64_t>(n, expected.size()))))
        << n;
  }
  // The union outlives what it was made of, and an operator on it works.
  both = both.select(square);
  EXPECT_EQ(both.count(), expected.size());
}

TEST(DatasetOperators, GenerateMakesTheRecordsOnTheRanks) {
  Datasets datasets(*the_node, *the_driver);
  const auto data = datasets.generate<std::int64_t>("triangles", 777, triangle, 5);
  const std::vector<std::int64_t> got = data.collect();
  ASSERT_EQ(got.size(), 777u);
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], static_cast<std::int64_t>(i * (i + 1) / 2));
}

TEST(DatasetOperators, GroupByAggregatesEveryKeyOnce) {
  Datasets datasets(*the_node, *the_driver);
  const std::vector<std::int64_t> values = random_values(4000, 3);
  const auto groups = datasets.from_host<std::int64_t>("values", values, 9)
                          .group_by(mod_seven)
                          .aggregate(add)
                          .collect();
  std::map<std::int32_t, std::pair<std::uint64_t, std::int64_t>> expected;
  for (std::int64_t v : values) {
    auto& [count, sum] = expected[static_cast<std::int32_t>(v % 7)];
    ++count;
    sum += v;
  }
  ASSERT_EQ(groups.size(), expected.size());  // negative keys too: -6 .. 6
  for (const auto& group : groups) {
    ASSERT_TRUE(expected.count(group.key)) << group.key;
    EXPECT_EQ(group.count, expected[group.key].first) << group.key;
    EXPECT_EQ(group.value, expected[group.key].second) << group.key;
  }
  // Within each rank's block the groups come in key order.
  for (std::size_t i = 1; i < groups.size(); ++i) {
    if (groups[i - 1].key > groups[i].key) {
      // a new block (rank) starts here; keys never repeat across blocks
      for (std::size_t j = 0; j < i; ++j)
        EXPECT_NE(groups[j].key, groups[i].key);
    }
  }
}

TEST(DatasetOperators, GroupByAggregatesTheValuesOfStructRecords) {
  Datasets datasets(*the_node, *the_driver);
  std::vector<Sale> sales;
  std::mt19937 random(4);
  for (int i = 0; i < 3000; ++i)
    sales.push_back({static_cast<std::int32_t>(random() % 40),
                     static_cast<std::uint32_t>(random() % 9),
                     0.25 * static_cast<double>(random() % 100)});
  const auto totals = datasets.from_host<Sale>("sales", sales)
                          .group_by(store_of)
                          .aggregate(revenue, add_double)
                          .collect();
  std::map<std::int32_t, double> expected;
  for (const Sale& s : sales)
    expected[s.store] += s.units * s.price;
  ASSERT_EQ(totals.size(), expected.size());
  for (const auto& group : totals)
    EXPECT_DOUBLE_EQ(group.value, expected[group.key]) << group.key;
}

TEST(DatasetOperators, SelectManyGivesEachRecordsResultsInOrder) {
  Datasets datasets(*the_node, *the_driver);
  for (std::uint64_t blocks : {1, 5, 40}) {
    const std::vector<std::int64_t> values = random_values(3000, 8);
    std::vector<std::int64_t> expected;
    for (std::int64_t x : values) {
      for (std::int64_t c = 0; c < x % 4; ++c)
        expected.push_back(x * 10 + c);
    }
    const auto many =
        datasets.from_host<std::int64_t>("values", values, blocks).select_many(copies);
    EXPECT_EQ(many.collect(), expected) << blocks << " blocks";
    EXPECT_EQ(many.count(), expected.size());
  }
  const std::vector<std::int64_t> values = random_values(500, 9);
  const std::vector<std::int64_t> ts{-200, 0, 300};
  const auto context = datasets.from_host<std::int64_t>("thresholds", ts, 2);
  std::vector<std::int64_t> expected;
  for (std::int64_t x : values) {
    for (std::int64_t t : ts) {
      if (x < t) expected.push_back(t);
    }
  }
  EXPECT_EQ(datasets.from_host<std::int64_t>("values", values)
                .select_many(thresholds_above, context)
                .collect(),
            expected);
}

TEST(DatasetOperators, SelectManyRefusesMoreResultsThanItsMost) {
  const RecordFunction& f = FunctionTable::instance().find(too_many.name());
  const std::vector<std::int64_t> in{1, 2};
  std::vector<std::byte> out(in.size() * sizeof(std::int64_t));
  try {
    f.block(std::as_bytes(std::span(in)), out, {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("test.too_many"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("returned 2"), std::string::npos) << e.what();
  }
}

TEST(DatasetOperators, AContextReachesEveryRank) {
  Datasets datasets(*the_node, *the_driver);
  const std::vector<std::int64_t> values = random_values(2000, 5);
  const std::vector<std::int64_t> thresholds{500, 200, 800};
  const auto context = datasets.from_host<std::int64_t>("thresholds", thresholds, 2);
  const auto kept = datasets.from_host<std::int64_t>("values", values).where(below_all, context);
  std::vector<std::int64_t> expected;
  std::copy_if(values.begin(), values.end(), std::back_inserter(expected),
               [](std::int64_t v) { return v < 200; });
  EXPECT_EQ(kept.collect(), expected);
}

TEST(DatasetOperators, MisusedFunctionsAreClearErrorsOnTheDriver) {
  Datasets datasets(*the_node, *the_driver);
  const std::vector<std::int64_t> values{1, 2, 3};
  const auto data = datasets.from_host<std::int64_t>("values", values);
  const std::vector<std::int64_t> thresholds{2};
  const auto context = datasets.from_host<std::int64_t>("thresholds", thresholds);
  // A function that needs a context, given none: named with its signature.
  try {
    datasets.where_blocks(data.state(), below_all.name(), nullptr);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("test.below_all"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no context"), std::string::npos) << e.what();
  }
  // Records of another size.
  std::vector<Sale> sales(3);
  const auto other = datasets.from_host<Sale>("sales", sales);
  try {
    datasets.select_blocks(other.state(), square.name(), 8, nullptr);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'sales'"), std::string::npos) << e.what();
  }
  // An unknown function.
  EXPECT_THROW(datasets.select_blocks(data.state(), "test.nothing", 8, nullptr), Error);
  EXPECT_EQ(data.where(below_all, context).collect(), std::vector<std::int64_t>{1});
}

// Random pipelines of select, where, group_by and aggregate over random data against the
// same steps done sequentially.
TEST(DatasetOperators, RandomPipelinesMatchSequentialCode) {
  std::mt19937 random(42);
  for (int round = 0; round < 16; ++round) {
    const DatasetOptions options{static_cast<std::uint32_t>(1 + random() % 3),
                                 random() % 2 ? TaskUnit::partition : TaskUnit::block, 1u << 14};
    Datasets datasets(*the_node, *the_driver, options);
    const std::size_t n = random() % 3000;
    std::vector<std::int64_t> expected = random_values(n, static_cast<std::uint32_t>(random()));
    auto data = datasets.from_host<std::int64_t>("random", expected, random() % 40);
    const int steps = static_cast<int>(random() % 5);
    for (int s = 0; s < steps; ++s) {
      switch (random() % 3) {
        case 0:
          data = data.select(square_mod);
          for (auto& v : expected)
            v = v * v % 100003;
          break;
        case 1:
          data = data.select(shift);
          for (auto& v : expected)
            v -= 500;
          break;
        default:
          data = data.where(is_even);
          std::erase_if(expected, [](std::int64_t v) { return v % 2 != 0; });
      }
    }
    const std::string what = "round " + std::to_string(round);
    switch (random() % 3) {
      case 0:
        EXPECT_EQ(data.collect(), expected) << what;
        break;
      case 1:
        if (expected.empty()) {
          EXPECT_FALSE(data.aggregate(add).has_value()) << what;
        } else {
          EXPECT_EQ(data.aggregate(add), std::accumulate(expected.begin(), expected.end(), 0ll))
              << what;
        }
        break;
      default: {
        std::map<std::int32_t, std::pair<std::uint64_t, std::int64_t>> groups;
        for (std::int64_t v : expected) {
          auto& [count, sum] = groups[static_cast<std::int32_t>(v % 7)];
          ++count;
          sum += v;
        }
        std::map<std::int32_t, std::pair<std::uint64_t, std::int64_t>> got;
        for (const auto& group : data.group_by(mod_seven).aggregate(add).collect()) {
          EXPECT_EQ(got.count(group.key), 0u) << what << ": key " << group.key << " twice";
          got[group.key] = {group.count, group.value};
        }
        EXPECT_EQ(got, groups) << what;
      }
    }
  }
}

}  // namespace
}  // namespace strata::dataset::testing
