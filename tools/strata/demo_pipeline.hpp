#pragma once
// DemoPipeline: the demo job's task graph over real files. Per file: generate the input if absent
// (I/O) -> read it (I/O) -> histogram, checksum and delta-encode it (CPU) -> write the output
// (I/O) -> re-read and verify the output (I/O); each histogram is merged into a total with a
// reduce access (CPU), and a summary file is written once every output is verified (I/O).

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "block_transform.hpp"
#include "strata/runtime/runtime.hpp"

namespace strata::cli {

// One input file and what the tasks learned about it.
struct DemoFile {
  std::string name;  // "file-0007"
  std::filesystem::path input;
  std::filesystem::path output;
  bool needs_generating = false;
  std::vector<std::uint8_t> block;  // the file's bytes between read and write
  ByteHistogram histogram{};
  std::uint64_t input_checksum = 0;   // FNV-1a of the input bytes
  std::uint64_t output_checksum = 0;  // FNV-1a of the delta-encoded bytes
  std::string verify_error;           // empty once the output was re-read and matched
  bool verified = false;
};

// Counters the tasks bump and the progress line reads while the job runs.
struct DemoCounters {
  std::atomic<std::uint64_t> files_generated{0};
  std::atomic<std::uint64_t> bytes_generated{0};
  std::atomic<std::uint64_t> bytes_read{0};
  std::atomic<std::uint64_t> bytes_written{0};
  std::atomic<std::uint64_t> files_done{0};  // outputs written and checked
};

// Plans and submits the demo job, and keeps what its tasks produce.
class DemoPipeline {
 public:
  // Plans the job for `file_count` files of `file_bytes` each under `directory` (which must
  // exist with input/ and output/ subdirectories); inputs that are absent or of another size
  // are regenerated. At most `files_in_memory` files are held between read and write: the read
  // of file i waits for the write of file i - files_in_memory.
  DemoPipeline(runtime::Runtime& runtime, const std::filesystem::path& directory,
               std::uint64_t file_count, std::uint64_t file_bytes, std::size_t files_in_memory);

  // Submits every task and returns the last one (writing the summary file); the job runs while
  // the caller waits on the runtime.
  runtime::TaskHandle submit();

  const std::vector<DemoFile>& files() const { return files_; }
  const DemoCounters& counters() const { return counters_; }
  const ByteHistogram& total_histogram() const { return total_histogram_; }
  const std::filesystem::path& summary_file() const { return summary_file_; }
  std::uint64_t files_to_generate() const;

 private:
  void submit_file(std::size_t index, const runtime::DataHandle& total);
  void generate(DemoFile& file, std::uint64_t seed);
  void read(DemoFile& file);
  void transform(DemoFile& file);
  void write(DemoFile& file);
  void verify(DemoFile& file);
  void write_summary() const;

  runtime::Runtime& runtime_;
  std::uint64_t file_bytes_;
  std::size_t files_in_memory_;
  std::vector<DemoFile> files_;
  std::vector<runtime::TaskHandle> writes_;
  std::vector<runtime::TaskHandle> verifications_;
  DemoCounters counters_;
  ByteHistogram total_histogram_{};
  std::filesystem::path summary_file_;
};

}  // namespace strata::cli
