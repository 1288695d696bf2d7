// Tracing: per-task spans written as Chrome trace-event JSON.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "strata/runtime/runtime.hpp"
#include "test_support.hpp"

namespace strata::runtime {
namespace {

TEST(Trace, WritesOneCompleteSpanPerTaskWithExecutorAndBytes) {
  const auto path = std::filesystem::temp_directory_path() / "strata-trace-test.json";
  {
    Runtime rt(testing::small_config(2, 1));
    rt.enable_tracing();
    DataHandle block = rt.create_data("block", 4096);
    for (int i = 0; i < 10; ++i)
      rt.submit(TaskSpec("compute"), [] {});
    rt.submit(TaskSpec("read block").on(rt.io()).writes(block), [] {});
    rt.wait_all();
    rt.write_trace(path.string());
  }
  std::ifstream file(path);
  const nlohmann::json trace = nlohmann::json::parse(file);
  int computes = 0;
  int reads = 0;
  bool named_threads = false;
  for (const auto& event : trace.at("traceEvents")) {
    if (event.at("ph") == "M" && event.at("name") == "thread_name") named_threads = true;
    if (event.at("ph") != "X") continue;
    EXPECT_GE(event.at("dur").get<double>(), 0.0);
    if (event.at("name") == "compute") {
      ++computes;
      EXPECT_EQ(event.at("args").at("executor"), "cpu");
    }
    if (event.at("name") == "read block") {
      ++reads;
      EXPECT_EQ(event.at("args").at("executor"), "io");
      EXPECT_EQ(event.at("args").at("bytes"), 4096);
    }
  }
  EXPECT_EQ(computes, 10);
  EXPECT_EQ(reads, 1);
  EXPECT_TRUE(named_threads);
  std::filesystem::remove(path);
}

TEST(Trace, ConfiguredTraceFileIsWrittenAtShutdown) {
  const auto path = std::filesystem::temp_directory_path() / "strata-trace-config.json";
  std::filesystem::remove(path);
  {
    Config config = testing::small_config(1, 1);
    config.trace = path.string();
    Runtime rt(config);
    rt.submit(TaskSpec("only"), [] {});
    rt.wait_all();
  }
  ASSERT_TRUE(std::filesystem::exists(path));
  std::ifstream file(path);
  const nlohmann::json trace = nlohmann::json::parse(file);
  EXPECT_TRUE(trace.contains("traceEvents"));
  std::filesystem::remove(path);
}

TEST(Trace, UnwritableTracePathIsAnErrorNamingTheFile) {
  Runtime rt(testing::small_config(1, 1));
  try {
    rt.write_trace("/nonexistent-dir/trace.json");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/trace.json"), std::string::npos);
  }
}

}  // namespace
}  // namespace strata::runtime
