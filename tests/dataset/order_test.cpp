// order_by and distinct against std::stable_sort and a set, and over a real word list
// (Debian's wamerican-huge) against `LC_ALL=C sort -u`, byte for byte.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
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
