#include "demo_pipeline.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "demo_files.hpp"
#include "strata/base/error.hpp"
#include "strata/base/units.hpp"

namespace strata::cli {

using runtime::DataHandle;
using runtime::Priority;
using runtime::TaskHandle;
using runtime::TaskSpec;

DemoPipeline::DemoPipeline(runtime::Runtime& runtime, const std::filesystem::path& directory,
                           std::uint64_t file_count, std::uint64_t file_bytes,
                           std::size_t files_in_memory)
    : runtime_(runtime),
      file_bytes_(file_bytes),
      files_in_memory_(std::max<std::size_t>(1, files_in_memory)),
      summary_file_(directory / "summary.txt") {
  files_.resize(file_count);
  for (std::size_t i = 0; i < files_.size(); ++i) {
    DemoFile& file = files_[i];
    file.name = fmt::format("file-{:04}", i);
    file.input = directory / "input" / (file.name + ".bin");
    file.output = directory / "output" / (file.name + ".delta");
    const std::int64_t size = regular_file_size(file.input);
    file.needs_generating = size < 0 || static_cast<std::uint64_t>(size) != file_bytes;
  }
}

std::uint64_t DemoPipeline::files_to_generate() const {
  return static_cast<std::uint64_t>(std::count_if(
      files_.begin(), files_.end(), [](const DemoFile& file) { return file.needs_generating; }));
}

TaskHandle DemoPipeline::submit() {
  // Every file's histogram is merged into this one with a reduce access: the merges run in any
  // order, never two at a time, so they add without a lock.
  const DataHandle total = runtime_.create_data("total histogram", sizeof(ByteHistogram));
  for (std::size_t i = 0; i < files_.size(); ++i)
    submit_file(i, total);
  return runtime_.submit(
      TaskSpec("write summary").on(runtime_.io()).reads(total).after(verifications_),
      [this] { write_summary(); });
}

void DemoPipeline::submit_file(std::size_t index, const DataHandle& total) {
  DemoFile* file = &files_[index];
  runtime::Runtime& rt = runtime_;
  // The data the tasks hand on: the input file, its bytes in memory, its histogram, the output
  // file. Only memory counts against the staging budget; the files stay on disk.
  const DataHandle input_file = rt.create_data(file->name + " input file");
  const DataHandle block = rt.create_data(file->name + " block", file_bytes_);
  const DataHandle histogram = rt.create_data(file->name + " histogram", sizeof(ByteHistogram));
  const DataHandle output_file = rt.create_data(file->name + " output file");

  if (file->needs_generating) {
    rt.submit(TaskSpec("generate " + file->name).on(rt.io()).writes(input_file),
              [this, file, index] { generate(*file, index + 1); });
  }
  // Bounds memory: reads would otherwise run far ahead of the CPU and hold every file at once.
  const TaskHandle window_slot =
      index >= files_in_memory_ ? writes_[index - files_in_memory_] : TaskHandle();
  rt.submit(
      TaskSpec("read " + file->name).on(rt.io()).after(window_slot).reads(input_file).writes(block),
      [this, file] { read(*file); });
  rt.submit(TaskSpec("transform " + file->name).updates(block).writes(histogram),
            [this, file] { transform(*file); });
  // Writes go first among ready I/O so that buffers are released early.
  writes_.push_back(rt.submit(TaskSpec("write " + file->name)
                                  .on(rt.io())
                                  .with_priority(Priority::high)
                                  .updates(block)  // releases the buffer once written
                                  .writes(output_file),
                              [this, file] { write(*file); }));
  rt.submit(TaskSpec("merge histogram " + file->name).reads(histogram).reduces(total),
            [this, file] {
              for (std::size_t value = 0; value < total_histogram_.size(); ++value) {
                total_histogram_[value] += file->histogram[value];
              }
            });
  TaskHandle verification = rt.submit(
      TaskSpec("verify " + file->name).on(rt.io()).with_priority(Priority::low).reads(output_file),
      [this, file] { verify(*file); });
  verification.on_complete([this](const TaskHandle& task) {
    if (task.status() == runtime::TaskStatus::succeeded) counters_.files_done.fetch_add(1);
  });
  verifications_.push_back(std::move(verification));
}

void DemoPipeline::generate(DemoFile& file, std::uint64_t seed) {
  std::vector<std::uint8_t> bytes(file_bytes_);
  fill_random_walk(bytes, seed);
  write_file_atomically(file.input, bytes);
  counters_.files_generated.fetch_add(1);
  counters_.bytes_generated.fetch_add(bytes.size());
}

void DemoPipeline::read(DemoFile& file) {
  file.block = read_whole_file(file.input);
  counters_.bytes_read.fetch_add(file.block.size());
}

void DemoPipeline::transform(DemoFile& file) {
  count_bytes(file.block, file.histogram);
  file.input_checksum = fnv1a(file.block);
  delta_encode(file.block);
  file.output_checksum = fnv1a(file.block);
}

void DemoPipeline::write(DemoFile& file) {
  write_file_atomically(file.output, file.block);
  counters_.bytes_written.fetch_add(file.block.size());
  std::vector<std::uint8_t>().swap(file.block);
}

void DemoPipeline::verify(DemoFile& file) {
  std::vector<std::uint8_t> bytes = read_whole_file(file.output);
  if (fnv1a(bytes) != file.output_checksum) {
    file.verify_error = fmt::format(
        "'{}' does not hold the bytes that were written (checksum {:016x}, expected {:016x})",
        file.output.string(), fnv1a(bytes), file.output_checksum);
    return;
  }
  delta_decode(bytes);
  if (fnv1a(bytes) != file.input_checksum) {
    file.verify_error = fmt::format("'{}' does not decode to the input '{}'", file.output.string(),
                                    file.input.string());
    return;
  }
  file.verified = true;
}

void DemoPipeline::write_summary() const {
  std::string text = fmt::format("strata demo summary\nfiles: {}\nbytes per file: {}\n\n",
                                 files_.size(), file_bytes_);
  text += "file       input-fnv1a      output-fnv1a     verified\n";
  for (const DemoFile& file : files_) {
    text += fmt::format("{}  {:016x} {:016x} {}\n", file.name, file.input_checksum,
                        file.output_checksum, file.verified ? "yes" : "NO");
  }
  text += "\nbyte histogram over all inputs (value: count)\n";
  for (std::size_t value = 0; value < total_histogram_.size(); ++value) {
    text += fmt::format("{:3}: {}\n", value, total_histogram_[value]);
  }
  write_file_atomically(summary_file_,
                        std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

}  // namespace strata::cli
