#pragma once
// ResultsJournal: where results stream while a run goes on (the rocket original keeps every
// result in the master's memory). Each record carries its own checksum, so after an interruption
// the valid prefix is the index a resumed run continues from; when the run completes, the
// records are sorted into the results file (results_file.hpp), written atomically, and the
// journal is removed. A results file therefore only exists for a complete run.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <mutex>
#include <set>
#include <span>
#include <utility>

#include "strata/allpairs/application.hpp"

namespace strata::allpairs {

class ResultsJournal {
 public:
  // Opens the journal beside `output` ("<output>.journal"). With `resume`, the valid records of
  // an earlier interrupted run are kept (a torn or corrupt tail is cut off); without it, an
  // existing journal is an error that says how to resume or start over.
  ResultsJournal(std::filesystem::path output, std::uint32_t result_bytes, bool resume);
  ~ResultsJournal();
  ResultsJournal(const ResultsJournal&) = delete;
  ResultsJournal& operator=(const ResultsJournal&) = delete;

  static std::filesystem::path journal_path(const std::filesystem::path& output);

  // Pairs whose results the journal held when it was opened.
  const std::set<std::pair<ItemIndex, ItemIndex>>& resumed() const { return resumed_; }

  // Appends one record (thread-safe); records reach the file at flush() or every few hundred.
  void append(ItemIndex left, ItemIndex right, std::span<const std::byte> result);
  void flush();
  std::uint64_t records() const;
  // Of records(), those in the file (flushed): what a resumed run would find.
  std::uint64_t written() const;
  const std::filesystem::path& path() const { return path_; }
  // Called with written() each time records reach the file (under the journal's lock).
  void on_written(std::function<void(std::uint64_t written)> call);

  // Sorts every record into the results file (temp file, fsync, rename) and removes the journal.
  // `expected` records must be there, else nothing is written and the error says what is missing.
  void finish(std::uint64_t expected);

 private:
  void write_buffer();  // caller holds lock_

  std::filesystem::path output_;
  std::filesystem::path path_;
  std::uint32_t result_bytes_;
  std::set<std::pair<ItemIndex, ItemIndex>> resumed_;
  mutable std::mutex lock_;
  std::FILE* file_ = nullptr;
  std::vector<std::byte> buffer_;
  std::uint64_t records_ = 0;
  std::uint64_t written_ = 0;
  std::function<void(std::uint64_t)> on_written_;
};

}  // namespace strata::allpairs
