#include "demo_command.hpp"

#include <fmt/format.h>
#include <stdlib.h>  // mkdtemp

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <utility>

#include "demo_files.hpp"
#include "demo_pipeline.hpp"
#include "progress_line.hpp"
#include "strata/base/error.hpp"
#include "strata/base/units.hpp"
#include "strata/runtime/runtime.hpp"

namespace strata::cli {
namespace {

namespace fs = std::filesystem;

double mebibytes(std::uint64_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

// The directory the demo works in: the one asked for, or a fresh one (removed afterwards).
struct DemoDirectory {
  fs::path path;
  bool fresh = false;
};

DemoDirectory choose_directory(const DemoOptions& options) {
  if (!options.directory.empty()) return {fs::path(options.directory), false};
  std::string pattern = (fs::temp_directory_path() / "strata-demo-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw Error(fmt::format("cannot create a directory like '{}': {}", pattern,
                            std::generic_category().message(errno)));
  }
  return {fs::path(pattern), true};
}

// Accepts what parse_bytes() accepts, but not zero.
const CLI::Validator positive_byte_size(
    [](const std::string& text) -> std::string {
      const auto bytes = parse_bytes(text);
      if (!bytes || *bytes == 0)
        return fmt::format("'{}' is not a positive byte size like 4MiB", text);
      return {};
    },
    "");

std::string progress_text(const DemoPipeline& pipeline, double seconds) {
  const DemoCounters& counters = pipeline.counters();
  const std::uint64_t read = counters.bytes_read.load();
  const std::uint64_t written = counters.bytes_written.load();
  std::string text =
      fmt::format("demo: {}/{} files done | read {} | written {} | {:.1f} MiB/s",
                  counters.files_done.load(), pipeline.files().size(), format_bytes(read),
                  format_bytes(written), seconds > 0 ? mebibytes(read + written) / seconds : 0.0);
  const std::uint64_t to_generate = pipeline.files_to_generate();
  if (to_generate > 0 && counters.files_generated.load() < to_generate) {
    text += fmt::format(" | generated {}/{}", counters.files_generated.load(), to_generate);
  }
  return text;
}

void print_report(const DemoPipeline& pipeline, const DemoDirectory& directory,
                  std::uint64_t file_bytes, std::size_t files_in_memory, double seconds,
                  std::size_t verified) {
  const DemoCounters& counters = pipeline.counters();
  const std::uint64_t moved = counters.bytes_read.load() + counters.bytes_written.load();
  fmt::print("strata demo: {} files of {} in {}\n", pipeline.files().size(),
             format_bytes(file_bytes), directory.path.string());
  fmt::print("  inputs generated : {} ({})\n", counters.files_generated.load(),
             format_bytes(counters.bytes_generated.load()));
  fmt::print("  bytes read       : {}\n", format_bytes(counters.bytes_read.load()));
  fmt::print("  bytes written    : {}\n", format_bytes(counters.bytes_written.load()));
  fmt::print("  in memory        : at most {} files ({}) between read and write\n", files_in_memory,
             format_bytes(files_in_memory * file_bytes));
  fmt::print("  outputs verified : {}/{} (re-read, decoded, checksums compared)\n", verified,
             pipeline.files().size());
  fmt::print("  wall time        : {}\n", format_seconds(seconds));
  fmt::print("  throughput       : {:.1f} MiB/s read + written\n",
             seconds > 0 ? mebibytes(moved) / seconds : 0.0);
  fmt::print("  summary file     : {}\n", pipeline.summary_file().string());
}

// Fails early, before the job runs, when the trace could not be written at its end.
void check_trace_file_writable(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) {
    throw Error(fmt::format("cannot write trace file '{}': {}", path,
                            std::generic_category().message(errno)));
  }
  std::fclose(file);
}

// Runs the job on a runtime and reports; returns the exit status. Writes the trace (if asked)
// even when the job failed, since that is when it helps most.
int run_job(const EffectiveConfig& effective, const DemoDirectory& directory,
            std::uint64_t file_count, std::uint64_t file_bytes) {
  Config config = effective.config;
  // The trace is written here rather than by the runtime's destructor, so that an unwritable
  // trace file is an error the user sees instead of a log line.
  auto& settings = config.section<runtime::RuntimeSettings>();
  const std::string trace_path = std::exchange(settings.trace, std::string());
  runtime::Runtime rt(config);
  if (!trace_path.empty()) rt.enable_tracing();
  auto write_trace = [&] {
    if (trace_path.empty()) return;
    rt.write_trace(trace_path);
    fmt::print("trace written to {} (open it in https://ui.perfetto.dev)\n", trace_path);
  };

  const auto started = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  // Enough files in memory to keep every CPU and I/O worker busy, and one more round staged.
  const std::size_t workers = std::size_t{settings.effective_cpu_threads()} + settings.io_threads;
  const std::size_t files_in_memory = std::min<std::size_t>(file_count, 2 * workers);
  DemoPipeline pipeline(rt, directory.path, file_count, file_bytes, files_in_memory);
  ProgressLine progress;
  // The main thread redraws the progress line until the last task finished (or was cancelled).
  std::mutex lock;
  std::condition_variable finished_signal;
  bool finished = false;
  try {
    const runtime::TaskHandle last = pipeline.submit();
    last.on_complete([&](const runtime::TaskHandle&) {
      const std::lock_guard guard(lock);
      finished = true;
      finished_signal.notify_one();
    });
    std::unique_lock guard(lock);
    while (
        !finished_signal.wait_for(guard, std::chrono::milliseconds(50), [&] { return finished; })) {
      progress.update(progress_text(pipeline, elapsed()));
    }
    guard.unlock();
    rt.wait_all();
  } catch (...) {
    progress.finish(progress_text(pipeline, elapsed()));
    rt.cancel_all();
    try {
      rt.wait_all();  // a failure stops the run; collect what is still running
      write_trace();
    } catch (const std::exception& error) {
      fmt::print(stderr, "strata: error: {}\n", error.what());
    }
    throw;
  }
  const double seconds = elapsed();
  progress.finish(progress_text(pipeline, seconds));

  std::size_t verified = 0;
  for (const DemoFile& file : pipeline.files()) {
    if (file.verified) ++verified;
    if (!file.verify_error.empty()) fmt::print(stderr, "strata: error: {}\n", file.verify_error);
  }
  print_report(pipeline, directory, file_bytes, files_in_memory, seconds, verified);
  fmt::print("\n{}", rt.summary().format());
  write_trace();
  if (verified != pipeline.files().size()) {
    fmt::print(stderr, "strata: error: {} of {} outputs failed verification\n",
               pipeline.files().size() - verified, pipeline.files().size());
    return 1;
  }
  return 0;
}

}  // namespace

CLI::App& add_demo_command(CLI::App& app, DemoOptions& options) {
  CLI::App& demo = *app.add_subcommand(
      "demo",
      "Run the showcase job: generate, read, transform (histogram, checksum, delta encoding), "
      "write and verify real files on the CPU and I/O executors");
  demo.add_option("--dir", options.directory,
                  "Directory for input/, output/ and summary.txt; inputs already there are "
                  "reused (default: a fresh directory under the temporary directory, removed "
                  "afterwards)")
      ->type_name("DIR");
  demo.add_option("--files", options.files, "Number of input files (1 to 1048576)")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20).description(""))
      ->type_name("N");
  demo.add_option("--size", options.size, "Bytes per input file, e.g. 4MiB, 100MB, 65536")
      ->capture_default_str()
      ->type_name("BYTES")
      ->check(positive_byte_size);
  demo.add_flag("--keep", options.keep, "Keep the fresh directory when --dir is not given");
  return demo;
}

int run_demo_command(const EffectiveConfig& effective, const DemoOptions& options) {
  const std::uint64_t file_bytes = parse_bytes(options.size).value_or(0);  // checked by CLI11
  const std::string& trace = effective.config.section<runtime::RuntimeSettings>().trace;
  if (!trace.empty()) check_trace_file_writable(trace);
  const DemoDirectory directory = choose_directory(options);
  ensure_writable_directory(directory.path / "input");
  ensure_writable_directory(directory.path / "output");

  const int status = run_job(effective, directory, options.files, file_bytes);
  if (directory.fresh && status != 0) {
    fmt::print(stderr, "strata: kept {} for inspection\n", directory.path.string());
  }
  if (directory.fresh && !options.keep && status == 0) {
    std::error_code ignored;
    fs::remove_all(directory.path, ignored);
    fmt::print("removed {} (use --dir DIR or --keep to keep the files)\n", directory.path.string());
  }
  return status;
}

}  // namespace strata::cli
