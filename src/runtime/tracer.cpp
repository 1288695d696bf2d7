#include "tracer.hpp"

#include <fmt/format.h>
#include <fmt/os.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <queue>
#include <tuple>

#include "strata/base/error.hpp"

namespace strata::runtime::detail {
namespace {

std::atomic<std::uint64_t> next_generation{1};

std::string quoted(const std::string& text) {
  return nlohmann::json(text).dump();
}

void print_thread_name(std::FILE* file, std::uint64_t tid, const std::string& name) {
  fmt::print(file,
             ",\n{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":{},\"args\":{{"
             "\"name\":{}}}}}",
             tid, quoted(name));
}

// The trace "tid" of lane `lane` of an executor's asynchronous spans: the first is the executor's
// memory lane, the others get ids above every executor's workers and memory lane.
std::uint64_t async_tid(std::uint32_t executor, std::uint32_t lane) {
  if (lane == 0) return executor * 1000ull + Tracer::memory_lane;
  return (executor + 1ull) * 1'000'000 + lane;
}

std::string async_lane_name(const std::string& executor, std::uint32_t lane) {
  if (lane == 0) return executor + "/memory";
  return fmt::format("{}/memory #{}", executor, lane + 1);
}

}  // namespace

Tracer::Tracer() : generation_(next_generation.fetch_add(1)) {}
Tracer::~Tracer() = default;

Tracer::Buffer& Tracer::local_buffer() {
  // One buffer per thread per tracer; tracers are told apart by generation, not address.
  thread_local std::uint64_t cached_generation = 0;
  thread_local Buffer* cached = nullptr;
  if (cached_generation != generation_) {
    auto buffer = std::make_unique<Buffer>();
    cached = buffer.get();
    cached_generation = generation_;
    std::lock_guard guard(buffers_lock_);
    buffers_.push_back(std::move(buffer));
  }
  return *cached;
}

void Tracer::span(const std::string& name, std::uint32_t executor, std::uint32_t worker,
                  std::int64_t start_ns, std::int64_t end_ns, std::uint64_t bytes,
                  std::string args) {
  Buffer& buffer = local_buffer();
  std::lock_guard guard(buffer.lock);
  buffer.events.push_back(
      {name, start_ns, end_ns - start_ns, bytes, executor, worker, std::move(args)});
}

void Tracer::counter(const char* name, std::int64_t at_ns, std::int64_t value) {
  Buffer& buffer = local_buffer();
  std::lock_guard guard(buffer.lock);
  buffer.events.push_back({name, at_ns, -1, static_cast<std::uint64_t>(value), 0, 0, {}});
}

Tracer::AsyncLanes Tracer::assign_async_lanes(const std::vector<std::vector<Event>>& buffers) {
  // Interval partitioning, per executor in order of start: each span takes the lowest lane whose
  // spans have all ended, so a lane's spans are disjoint and no more lanes are used than spans
  // ever overlap. (Recording order says nothing: a span is recorded when it ends.)
  struct Ref {
    std::uint32_t executor;
    std::int64_t start;
    std::int64_t end;
    std::size_t buffer;
    std::size_t index;
  };
  std::vector<Ref> spans;
  AsyncLanes lanes;
  lanes.lane.resize(buffers.size());
  for (std::size_t b = 0; b < buffers.size(); ++b) {
    const std::vector<Event>& events = buffers[b];
    lanes.lane[b].assign(events.size(), 0);
    for (std::size_t i = 0; i < events.size(); ++i) {
      const Event& event = events[i];
      if (event.duration_ns < 0 || event.worker != memory_lane) continue;
      spans.push_back({event.executor, event.start_ns, event.start_ns + event.duration_ns, b, i});
    }
  }
  std::sort(spans.begin(), spans.end(), [](const Ref& a, const Ref& b) {
    return std::tie(a.executor, a.start) < std::tie(b.executor, b.start);
  });
  using Busy = std::pair<std::int64_t, std::uint32_t>;  // (end, lane)
  std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> idle;
  for (std::size_t s = 0; s < spans.size(); ++s) {
    const Ref& span = spans[s];
    if (s == 0 || span.executor != spans[s - 1].executor) {
      busy = {};
      idle = {};
    }
    while (!busy.empty() && busy.top().first <= span.start) {
      idle.push(busy.top().second);
      busy.pop();
    }
    std::uint32_t& used = lanes.count[span.executor];
    std::uint32_t lane = used;
    if (idle.empty()) {
      ++used;
    } else {
      lane = idle.top();
      idle.pop();
    }
    busy.emplace(span.end, lane);
    lanes.lane[span.buffer][span.index] = lane;
  }
  return lanes;
}

void Tracer::write(const std::string& path, const std::vector<std::string>& executor_names,
                   const std::vector<unsigned>& workers) const {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) {
    throw Error(fmt::format("cannot write trace file '{}': {}", path, std::strerror(errno)));
  }
  // A copy of every buffer, each taken under its own lock (threads keep recording meanwhile);
  // lanes are assigned to the copied events by index.
  std::vector<std::vector<Event>> buffers;
  {
    std::lock_guard guard(buffers_lock_);
    for (const auto& buffer : buffers_) {
      std::lock_guard buffer_guard(buffer->lock);
      buffers.push_back(buffer->events);
    }
  }
  const AsyncLanes lanes = assign_async_lanes(buffers);
  const auto executor_name = [&](std::uint32_t executor) {
    return executor < executor_names.size() ? executor_names[executor] : std::string("?");
  };

  fmt::print(file, "{{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
  fmt::print(file, R"({{"ph":"M","name":"process_name","pid":1,"args":{{"name":"strata"}}}})");
  for (std::size_t e = 0; e < executor_names.size(); ++e) {
    for (unsigned w = 0; w < workers[e]; ++w)
      print_thread_name(file, e * 1000 + w, executor_names[e] + "/" + std::to_string(w));
  }
  for (const auto& [executor, count] : lanes.count) {
    for (std::uint32_t lane = 0; lane < count; ++lane)
      print_thread_name(file, async_tid(executor, lane),
                        async_lane_name(executor_name(executor), lane));
  }
  for (std::size_t b = 0; b < buffers.size(); ++b) {
    const std::vector<Event>& events = buffers[b];
    for (std::size_t i = 0; i < events.size(); ++i) {
      const Event& event = events[i];
      if (event.duration_ns < 0) {
        fmt::print(
            file,
            ",\n{{\"ph\":\"C\",\"name\":{},\"pid\":1,\"ts\":{:.3f},\"args\":{{\"value\":{}}}}}",
            quoted(event.name), static_cast<double>(event.start_ns) / 1e3,
            static_cast<std::int64_t>(event.bytes));
        continue;
      }
      const std::uint64_t tid = event.worker == memory_lane
                                    ? async_tid(event.executor, lanes.lane[b][i])
                                    : event.executor * 1000ull + event.worker;
      fmt::print(
          file,
          ",\n{{\"ph\":\"X\",\"cat\":\"task\",\"name\":{},\"pid\":1,\"tid\":{},\"ts\":{:.3f},"
          "\"dur\":{:.3f},\"args\":{{\"executor\":{},\"bytes\":{}{}{}}}}}",
          quoted(event.name), tid, static_cast<double>(event.start_ns) / 1e3,
          static_cast<double>(event.duration_ns) / 1e3, quoted(executor_name(event.executor)),
          event.bytes, event.args.empty() ? "" : ",", event.args);
    }
  }
  fmt::print(file, "\n]}}\n");
  const bool failed = std::ferror(file) != 0;
  if (std::fclose(file) != 0 || failed) {
    throw Error(fmt::format("writing trace file '{}' failed: {}", path, std::strerror(errno)));
  }
}

}  // namespace strata::runtime::detail
