// A cluster run's trace: the network's concurrent sends and receives go on lanes of their own,
// so every lane of the driver's trace holds nested or disjoint spans (Perfetto draws lanes whose
// spans partly overlap wrongly).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "cluster_test_support.hpp"

namespace strata::cluster::testing {
namespace {

using runtime::Access;

struct Span {
  std::int64_t start;  // ns, as Perfetto rounds the microseconds of the file
  std::int64_t end;
  std::string name;
};

std::int64_t to_ns(const nlohmann::json& microseconds) {
  return std::llround(microseconds.get<double>() * 1000.0);
}

// The spans of each lane (tid) whose name starts with `prefix` (every lane if empty).
std::map<std::int64_t, std::vector<Span>> lanes_of(const nlohmann::json& trace,
                                                   const std::string& prefix = "") {
  std::map<std::int64_t, std::string> names;
  for (const auto& event : trace.at("traceEvents")) {
    if (event.at("ph") == "M" && event.at("name") == "thread_name")
      names[event.at("tid").get<std::int64_t>()] = event.at("args").at("name");
  }
  std::map<std::int64_t, std::vector<Span>> lanes;
  for (const auto& event : trace.at("traceEvents")) {
    if (event.at("ph") != "X") continue;
    const auto tid = event.at("tid").get<std::int64_t>();
    if (!prefix.empty() && !(names.contains(tid) && names.at(tid).starts_with(prefix))) continue;
    const std::int64_t start = to_ns(event.at("ts"));
    lanes[tid].push_back({start, start + to_ns(event.at("dur")), event.at("name")});
  }
  return lanes;
}

TEST(ClusterTrace, ConcurrentTransfersNestOnEveryLaneOfTheDriversTrace) {
  Driver& driver = *the_driver;
  the_runtime->enable_tracing();
  const int size = driver.size();
  // Chunks homed on every rank; each rank then reads two chunks of others, all at once.
  constexpr int chunk_count = 24;
  constexpr std::size_t words = 6000;  // several network pieces each
  std::vector<ChunkRef> sources;
  for (int c = 0; c < chunk_count; ++c) {
    sources.push_back(driver.create_chunk("traced " + std::to_string(c), words * 8, c % size));
    driver.run_with(c % size, "fill", {{sources.back(), Access::write}},
                    static_cast<std::uint64_t>(c));
  }
  for (int c = 0; c < chunk_count; ++c) {
    const int reader = (c + 1) % size;
    ChunkRef result = driver.create_chunk("traced result " + std::to_string(c), words * 8, reader);
    driver.run_with(reader, "mix",
                    {{result, Access::write},
                     {sources[c], Access::read},
                     {sources[(c + 3) % chunk_count], Access::read}},
                    MixArgs{static_cast<std::uint64_t>(c)});
  }
  driver.wait_all();

  const auto path = std::filesystem::temp_directory_path() / "strata-cluster-trace-test.json";
  the_runtime->write_trace(path.string());
  std::ifstream in(path);
  const nlohmann::json trace = nlohmann::json::parse(in);
  std::filesystem::remove(path);
  for (auto& [tid, spans] : lanes_of(trace)) {
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
      return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
    std::vector<const Span*> open;  // the spans enclosing the current one
    for (const Span& span : spans) {
      while (!open.empty() && open.back()->end <= span.start)
        open.pop_back();
      if (!open.empty()) {
        EXPECT_LE(span.end, open.back()->end)
            << "lane " << tid << ": '" << span.name << "' starts inside '" << open.back()->name
            << "' and ends after it";
      }
      open.push_back(&span);
    }
  }
  std::size_t transfers = 0;
  const auto network_lanes = lanes_of(trace, "network/memory");
  for (const auto& [tid, spans] : network_lanes)
    transfers += spans.size();
  if (size > 1) {
    EXPECT_GT(transfers, 0u);
  }
  RecordProperty("transfer_spans", static_cast<int>(transfers));
  RecordProperty("transfer_lanes", static_cast<int>(network_lanes.size()));
}

}  // namespace
}  // namespace strata::cluster::testing
