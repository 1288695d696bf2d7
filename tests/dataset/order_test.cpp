// The operators that move records between ranks — order_by, distinct, join — against
// std::stable_sort, a set and a nested loop, and over a real word list (Debian's
// wamerican-huge) against `LC_ALL=C sort -u`, byte for byte.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "dataset_test_support.hpp"

namespace strata::dataset::testing {
namespace {

struct Tagged {
  std::int32_t key = 0;
  std::uint32_t index = 0;
};

using Word = std::array<char, 64>;

const Select<Tagged, std::int32_t> key_of("order_test.key", [](const Tagged& t) { return t.key; });
struct Order {
  std::uint32_t customer = 0;
  double amount = 0;
};
struct Customer {
  std::int64_t id = 0;
  std::int32_t region = 0;
};
const Select<Order, std::uint32_t> customer_of("order_test.customer_of",
                                               [](const Order& o) { return o.customer; });
const Select<Customer, std::int64_t> id_of("order_test.id_of",
                                           [](const Customer& c) { return c.id; });
const Select<Word, Word> word_itself("order_test.word", [](const Word& w) { return w; });

TEST(DatasetOrder, OrderByIsAStableSortOverTheRanks) {
  std::mt19937 random(11);
  for (int round = 0; round < 6; ++round) {
    Datasets datasets(*the_node, *the_driver,
                      {0, round % 2 ? TaskUnit::block : TaskUnit::partition, 1u << 14});
    std::vector<Tagged> records(round == 0 ? 0 : 1 + random() % 5000);
    std::uniform_int_distribution<std::int32_t> key(round < 3 ? -50 : -1000000, 1000000);
    for (std::uint32_t i = 0; i < records.size(); ++i)
      records[i] = {key(random), i};
    auto expected = records;
    std::stable_sort(expected.begin(), expected.end(),
                     [](const Tagged& a, const Tagged& b) { return a.key < b.key; });
    const auto sorted =
        datasets.from_host<Tagged>("tagged", records, random() % 30).order_by(key_of).collect();
    ASSERT_EQ(sorted.size(), expected.size());
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      ASSERT_EQ(sorted[i].key, expected[i].key) << i;
      ASSERT_EQ(sorted[i].index, expected[i].index) << i;
    }
  }
}

TEST(DatasetOrder, DistinctKeepsOneOfEachRecord) {
  std::mt19937 random(12);
  Datasets datasets(*the_node, *the_driver);
  std::vector<std::int64_t> values(20000);
  for (auto& v : values)
    v = static_cast<std::int64_t>(random() % 3000) - 1500;
  auto got = datasets.from_host<std::int64_t>("values", values, 17).distinct().collect();
  std::sort(got.begin(), got.end());
  const std::set<std::int64_t> expected(values.begin(), values.end());
  EXPECT_EQ(got, std::vector<std::int64_t>(expected.begin(), expected.end()));
}

TEST(DatasetOrder, IntersectKeepsOneOfEachRecordBothHold) {
  std::mt19937 random(15);
  for (int round = 0; round < 4; ++round) {
    Datasets datasets(*the_node, *the_driver);
    std::vector<std::int64_t> first(round == 0 ? 0 : random() % 4000);
    std::vector<std::int64_t> second(random() % 3000);
    for (auto& v : first)
      v = static_cast<std::int64_t>(random() % 2000);
    for (auto& v : second)
      v = static_cast<std::int64_t>(random() % 2000) + 1000;
    auto got = datasets.from_host<std::int64_t>("first", first, random() % 20)
                   .intersect(datasets.from_host<std::int64_t>("second", second, random() % 9))
                   .collect();
    std::sort(got.begin(), got.end());
    const std::set<std::int64_t> a(first.begin(), first.end());
    const std::set<std::int64_t> b(second.begin(), second.end());
    std::vector<std::int64_t> expected;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(expected));
    EXPECT_EQ(got, expected) << "round " << round;
  }
}

TEST(DatasetOrder, JoinGivesEveryPairOfEqualKeys) {
  std::mt19937 random(14);
  for (int round = 0; round < 4; ++round) {
    Datasets datasets(*the_node, *the_driver);
    std::vector<Order> orders(round == 0 ? 0 : random() % 3000);
    for (auto& o : orders)
      o = {static_cast<std::uint32_t>(random() % 400), static_cast<double>(random() % 1000)};
    std::vector<Customer> customers(1 + random() % 500);
    for (auto& c : customers)  // some ids twice, some never ordered from
      c = {static_cast<std::int64_t>(random() % 450), static_cast<std::int32_t>(random() % 9)};
    std::multiset<std::tuple<std::uint32_t, double, std::int64_t, std::int32_t>> expected;
    for (const Order& o : orders) {
      for (const Customer& c : customers) {
        if (static_cast<std::int64_t>(o.customer) == c.id)
          expected.emplace(o.customer, o.amount, c.id, c.region);
      }
    }
    const auto pairs =
        datasets.from_host<Order>("orders", orders, random() % 20)
            .join(datasets.from_host<Customer>("customers", customers), customer_of, id_of)
            .collect();
    std::multiset<std::tuple<std::uint32_t, double, std::int64_t, std::int32_t>> got;
    for (const auto& p : pairs)
      got.emplace(p.left.customer, p.left.amount, p.right.id, p.right.region);
    EXPECT_EQ(got, expected) << "round " << round;
  }
}

TEST(DatasetOrder, DistinctSortedWordsAreByteIdenticalToCSortUnique) {
  const std::string words = "/usr/share/dict/american-english-huge";
  if (!std::filesystem::exists(words)) GTEST_SKIP() << "wamerican-huge is not installed";
  std::vector<Word> records;
  {
    std::ifstream in(words);
    for (std::string line; std::getline(in, line);) {
      Word w{};
      ASSERT_LT(line.size(), w.size()) << line;
      std::copy(line.begin(), line.end(), w.begin());
      records.push_back(w);
    }
  }
  // Every word twice, the copies shuffled in: distinct must drop them.
  std::vector<Word> doubled = records;
  doubled.insert(doubled.end(), records.begin(), records.begin() + records.size() / 3);
  std::shuffle(doubled.begin(), doubled.end(), std::mt19937(13));
  Datasets datasets(*the_node, *the_driver);
  const auto unique =
      datasets.from_host<Word>("words", doubled).distinct().order_by(word_itself).collect();
  std::string ours;
  for (const Word& w : unique)
    ours.append(w.data()).push_back('\n');

  const std::string reference = ::testing::TempDir() + "words.sorted";
  ASSERT_EQ(std::system(("LC_ALL=C sort -u " + words + " > " + reference).c_str()), 0);
  std::ifstream in(reference, std::ios::binary);
  std::string theirs;
  for (std::string line; std::getline(in, line);)
    theirs.append(line).push_back('\n');
  EXPECT_EQ(unique.size(),
            static_cast<std::size_t>(std::count(theirs.begin(), theirs.end(), '\n')));
  EXPECT_TRUE(ours == theirs)
      << "the first difference at byte "
      << std::mismatch(ours.begin(), ours.end(), theirs.begin(), theirs.end()).first - ours.begin();
  std::remove(reference.c_str());
}

}  // namespace
}  // namespace strata::dataset::testing
