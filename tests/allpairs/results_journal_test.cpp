#include "strata/allpairs/results_journal.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <vector>

#include "strata/allpairs/results_file.hpp"

namespace strata::allpairs {
namespace {

std::filesystem::path fresh_directory() {
  std::string pattern = std::filesystem::temp_directory_path() / "strata-journal-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp");
  return pattern;
}

std::span<const std::byte> bytes_of(const float& value) {
  return {reinterpret_cast<const std::byte*>(&value), sizeof value};
}

TEST(ResultsJournal, FinishSortsRecordsIntoTheResultsFileAndRemovesTheJournal) {
  const auto dir = fresh_directory();
  const auto output = dir / "out.bin";
  {
    ResultsJournal journal(output, 4, false);
    for (ItemIndex k : {5u, 1u, 3u}) {
      const float value = static_cast<float>(k) / 2;
      journal.append(k, k + 1, bytes_of(value));
    }
    journal.finish(3);
  }
  EXPECT_FALSE(std::filesystem::exists(ResultsJournal::journal_path(output)));
  const auto results = read_results<float>(output);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].left, 1u);
  EXPECT_EQ(results[1].left, 3u);
  EXPECT_EQ(results[2].left, 5u);
  EXPECT_FLOAT_EQ(results[2].value, 2.5f);
  EXPECT_THROW(read_results<double>(output), Error);
}

TEST(ResultsJournal, MissingRecordsKeepTheJournalAndWriteNoResults) {
  const auto dir = fresh_directory();
  const auto output = dir / "out.bin";
  ResultsJournal journal(output, 4, false);
  const float value = 1;
  journal.append(0, 1, bytes_of(value));
  EXPECT_THROW(journal.finish(2), Error);
  EXPECT_FALSE(std::filesystem::exists(output));
  EXPECT_TRUE(std::filesystem::exists(ResultsJournal::journal_path(output)));
}

// What an interrupted run reports: the records in the file, not those still buffered.
TEST(ResultsJournal, WrittenCountsTheRecordsInTheFileAndIsToldEachWrite) {
  const auto dir = fresh_directory();
  const auto output = dir / "out.bin";
  ResultsJournal journal(output, 4, false);
  std::vector<std::uint64_t> told;
  journal.on_written([&told](std::uint64_t written) { told.push_back(written); });
  const float value = 1;
  journal.append(0, 1, bytes_of(value));
  journal.append(0, 2, bytes_of(value));
  EXPECT_EQ(journal.records(), 2u);
  EXPECT_EQ(journal.written(), 0u);
  journal.flush();
  EXPECT_EQ(journal.written(), 2u);
  EXPECT_EQ(told, (std::vector<std::uint64_t>{0, 2}));
  // A resumed run starts from what the file holds.
  journal.on_written({});
  ResultsJournal resumed(dir / "out.bin", 4, true);
  EXPECT_EQ(resumed.written(), 2u);
}

TEST(ResultsJournal, ResumeKeepsValidRecordsAndCutsATornTail) {
  const auto dir = fresh_directory();
  const auto output = dir / "out.bin";
  {
    ResultsJournal journal(output, 4, false);
    for (ItemIndex k = 0; k < 10; ++k) {
      const float value = static_cast<float>(k);
      journal.append(k, k + 1, bytes_of(value));
    }
    journal.flush();
  }
  const auto path = ResultsJournal::journal_path(output);
  // A torn write: half a record, then a record whose checksum does not match.
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 10);
  EXPECT_THROW(ResultsJournal(output, 4, false), Error) << "an existing journal needs resume";
  EXPECT_THROW(ResultsJournal(output, 8, true), Error) << "a journal of other results";
  ResultsJournal resumed(output, 4, true);
  EXPECT_EQ(resumed.resumed().size(), 9u);
  EXPECT_TRUE(resumed.resumed().contains({8, 9}));
  const float value = 9;
  resumed.append(9, 10, bytes_of(value));
  resumed.finish(10);
  const auto results = read_results<float>(output);
  ASSERT_EQ(results.size(), 10u);
  EXPECT_FLOAT_EQ(results[9].value, 9.0f);
}

TEST(ResultsFile, AForeignOrTruncatedFileIsAnErrorNamingIt) {
  const auto dir = fresh_directory();
  std::ofstream(dir / "foreign.bin") << "not results at all, just text";
  try {
    read_raw_results(dir / "foreign.bin");
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("foreign.bin"), std::string::npos);
  }
  EXPECT_THROW(read_raw_results(dir / "missing.bin"), Error);
}

}  // namespace
}  // namespace strata::allpairs
