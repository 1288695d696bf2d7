#pragma once
// Tracer: per-thread buffers of task spans and counter samples, written as Chrome trace-event
// JSON (opens in Perfetto and chrome://tracing). Spans on one lane (one trace "tid") are nested
// or disjoint: worker spans nest by construction, and asynchronous spans (memory copies,
// transfers), which overlap freely, are spread over as many lanes as are busy at once.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace strata::runtime::detail {

class Tracer {
 public:
  Tracer();
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  void enable() { enabled_.store(true, std::memory_order_release); }
  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }

  // A task that ran on worker `worker` of executor `executor` from start_ns to end_ns.
  // `args`, when given, are more members of the event's "args" object (JSON, without braces).
  void span(const std::string& name, std::uint32_t executor, std::uint32_t worker,
            std::int64_t start_ns, std::int64_t end_ns, std::uint64_t bytes, std::string args = {});
  // The lane of an executor where asynchronous work for its tasks appears (memory-manager
  // copies, network transfers). Its spans may overlap: write() puts each on the lowest of the
  // lanes "<executor>/memory", "<executor>/memory #2", ... that is free at its start.
  static constexpr std::uint32_t memory_lane = 999;

  // A sample of a named counter.
  void counter(const char* name, std::int64_t at_ns, std::int64_t value);

  // Writes every recorded event; `executor_names[i]` and `workers[i]` name the threads.
  void write(const std::string& path, const std::vector<std::string>& executor_names,
             const std::vector<unsigned>& workers) const;

 private:
  struct Event {
    std::string name;
    std::int64_t start_ns;
    std::int64_t duration_ns;  // < 0: a counter sample, `bytes` holds its value
    std::uint64_t bytes;
    std::uint32_t executor;
    std::uint32_t worker;
    std::string args;
  };
  struct Buffer {
    std::mutex lock;
    std::vector<Event> events;
  };
  Buffer& local_buffer();
  // The lane of each asynchronous span (per buffer, per event) and how many each executor needs.
  struct AsyncLanes {
    std::vector<std::vector<std::uint32_t>> lane;
    std::map<std::uint32_t, std::uint32_t> count;
  };
  // Lanes for the asynchronous spans of copied buffers.
  static AsyncLanes assign_async_lanes(const std::vector<std::vector<Event>>& buffers);

  const std::uint64_t generation_;
  std::atomic<bool> enabled_{false};
  mutable std::mutex buffers_lock_;
  std::vector<std::unique_ptr<Buffer>> buffers_;
};

}  // namespace strata::runtime::detail
