// Tracing: per-task spans written as Chrome trace-event JSON.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "strata/runtime/runtime.hpp"
#include "test_support.hpp"

namespace strata::runtime {
namespace {

using Clock = std::chrono::steady_clock;

// A span as Perfetto reads it: microseconds with three decimals, rounded to nanoseconds.
struct Span {
  std::int64_t start;
  std::int64_t end;
  std::string name;
};

std::int64_t to_ns(const nlohmann::json& microseconds) {
  return std::llround(microseconds.get<double>() * 1000.0);
}

// The spans of every lane (pid, tid) of a written trace.
std::map<std::pair<int, std::int64_t>, std::vector<Span>> lanes_of(const nlohmann::json& trace) {
  std::map<std::pair<int, std::int64_t>, std::vector<Span>> lanes;
  for (const auto& event : trace.at("traceEvents")) {
    if (event.at("ph") != "X") continue;
    const std::int64_t start = to_ns(event.at("ts"));
    lanes[{event.at("pid").get<int>(), event.at("tid").get<std::int64_t>()}].push_back(
        {start, start + to_ns(event.at("dur")), event.at("name").get<std::string>()});
  }
  return lanes;
}

// Every lane's spans are nested or disjoint: none starts inside another and ends after it.
void expect_lanes_nest(const nlohmann::json& trace) {
  for (auto& [lane, spans] : lanes_of(trace)) {
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
      return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
    std::vector<const Span*> open;  // the enclosing spans of the current one, outermost first
    for (const Span& span : spans) {
      while (!open.empty() && open.back()->end <= span.start)
        open.pop_back();
      if (!open.empty()) {
        EXPECT_LE(span.end, open.back()->end)
            << "lane " << lane.second << ": '" << span.name << "' [" << span.start << ", "
            << span.end << "] starts inside '" << open.back()->name << "' [" << open.back()->start
            << ", " << open.back()->end << "] and ends after it";
      }
      open.push_back(&span);
    }
  }
}

// The names of the lanes (thread_name metadata), by tid.
std::map<std::int64_t, std::string> lane_names(const nlohmann::json& trace) {
  std::map<std::int64_t, std::string> names;
  for (const auto& event : trace.at("traceEvents")) {
    if (event.at("ph") == "M" && event.at("name") == "thread_name")
      names[event.at("tid").get<std::int64_t>()] = event.at("args").at("name");
  }
  return names;
}

nlohmann::json written_trace(const Runtime& rt, const std::string& file) {
  const auto path = std::filesystem::temp_directory_path() / file;
  rt.write_trace(path.string());
  std::ifstream in(path);
  nlohmann::json trace = nlohmann::json::parse(in);
  std::filesystem::remove(path);
  return trace;
}

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
    config.section<runtime::RuntimeSettings>().trace = path.string();
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

TEST(Trace, OverlappingAsynchronousSpansGoOnLanesOfTheirOwn) {
  // Transfers as the network records them: a receive that starts inside a send and ends after
  // it, a third one overlapping both, and one after all of them.
  Runtime rt(testing::small_config(1, 1));
  rt.enable_tracing();
  const Clock::time_point t0 = Clock::now();
  const auto at = [t0](int us) { return t0 + std::chrono::microseconds(us); };
  rt.trace_memory_span(rt.io(), "send a", at(0), at(100), 1);
  rt.trace_memory_span(rt.io(), "receive b", at(50), at(150), 2);
  rt.trace_memory_span(rt.io(), "receive c", at(60), at(120), 3);
  rt.trace_memory_span(rt.io(), "send d", at(150), at(200), 4);
  const nlohmann::json trace = written_trace(rt, "strata-trace-overlap.json");
  expect_lanes_nest(trace);

  const auto names = lane_names(trace);
  std::map<std::string, std::string> lane_of;  // span -> its lane's name
  for (const auto& [lane, spans] : lanes_of(trace)) {
    for (const Span& span : spans)
      lane_of[span.name] = names.contains(lane.second) ? names.at(lane.second) : "unnamed";
  }
  ASSERT_EQ(lane_of.size(), 4u);
  EXPECT_EQ(lane_of["send a"], "io/memory");
  EXPECT_EQ(lane_of["receive b"], "io/memory #2");
  EXPECT_EQ(lane_of["receive c"], "io/memory #3");
  EXPECT_EQ(lane_of["send d"], "io/memory");  // the first lane is free again when it starts
}

TEST(Trace, DeferredTransfersFromManyThreadsNestOnEveryLane) {
  // Tasks on the I/O pool start "transfers" that end later on other threads, each recorded as
  // an asynchronous span when it ends (as the cluster's sends and receives are), while CPU tasks
  // run and wait inside each other.
  Runtime rt(testing::small_config(2, 2));
  rt.enable_tracing();
  std::vector<std::thread> completers;
  std::mutex completers_lock;
  for (int i = 0; i < 200; ++i) {
    rt.submit(TaskSpec("transfer " + std::to_string(i)).on(rt.io()), [&, i](TaskContext& context) {
      auto done = std::make_shared<DeferredCompletion>(context.defer_completion());
      const Clock::time_point start = Clock::now();
      std::lock_guard guard(completers_lock);
      completers.emplace_back([&rt, done, start, i] {
        std::this_thread::sleep_for(std::chrono::microseconds(50 + (i * 37) % 400));
        rt.trace_memory_span(rt.io(), "transfer " + std::to_string(i), start, Clock::now(), 64);
        done->complete();
      });
    });
    rt.submit(TaskSpec("outer"), [&rt] { rt.submit(TaskSpec("inner"), [] {}).wait(); });
  }
  rt.wait_all();
  {
    // A task completed by its thread may still be in its body, adding that thread: the lock
    // waits for it.
    std::lock_guard guard(completers_lock);
    for (auto& thread : completers)
      thread.join();
  }
  const nlohmann::json trace = written_trace(rt, "strata-trace-deferred.json");
  expect_lanes_nest(trace);
  const auto names = lane_names(trace);
  int transfers = 0;
  for (const auto& [lane, spans] : lanes_of(trace)) {
    if (!names.contains(lane.second) || !names.at(lane.second).starts_with("io/memory")) continue;
    transfers += static_cast<int>(spans.size());
  }
  EXPECT_EQ(transfers, 200);  // every asynchronous span on the I/O pool's memory lanes
}

}  // namespace
}  // namespace strata::runtime
