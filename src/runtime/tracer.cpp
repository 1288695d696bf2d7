#include "tracer.hpp"

#include <fmt/format.h>
#include <fmt/os.h>

#include <nlohmann/json.hpp>

#include "strata/base/error.hpp"

namespace strata::runtime::detail {
namespace {

std::atomic<std::uint64_t> next_generation{1};

std::string quoted(const std::string& text) {
  return nlohmann::json(text).dump();
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
                  std::int64_t start_ns, std::int64_t end_ns, std::uint64_t bytes) {
  Buffer& buffer = local_buffer();
  std::lock_guard guard(buffer.lock);
  buffer.events.push_back({name, start_ns, end_ns - start_ns, bytes, executor, worker});
}

void Tracer::counter(const char* name, std::int64_t at_ns, std::int64_t value) {
  Buffer& buffer = local_buffer();
  std::lock_guard guard(buffer.lock);
  buffer.events.push_back({name, at_ns, -1, static_cast<std::uint64_t>(value), 0, 0});
}

void Tracer::write(const std::string& path, const std::vector<std::string>& executor_names,
                   const std::vector<unsigned>& workers) const {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) {
    throw Error(fmt::format("cannot write trace file '{}': {}", path, std::strerror(errno)));
  }
  fmt::print(file, "{{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
  fmt::print(file, R"({{"ph":"M","name":"process_name","pid":1,"args":{{"name":"strata"}}}})");
  for (std::size_t e = 0; e < executor_names.size(); ++e) {
    for (unsigned w = 0; w < workers[e]; ++w) {
      fmt::print(file,
                 ",\n{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":{},\"args\":{{"
                 "\"name\":{}}}}}",
                 e * 1000 + w, quoted(executor_names[e] + "/" + std::to_string(w)));
    }
  }
  std::lock_guard guard(buffers_lock_);
  std::vector<bool> has_memory_lane(executor_names.size(), false);
  for (const auto& buffer : buffers_) {
    std::lock_guard buffer_guard(buffer->lock);
    for (const Event& event : buffer->events) {
      if (event.duration_ns >= 0 && event.worker == memory_lane &&
          event.executor < has_memory_lane.size()) {
        has_memory_lane[event.executor] = true;
      }
    }
  }
  for (std::size_t e = 0; e < executor_names.size(); ++e) {
    if (!has_memory_lane[e]) continue;
    fmt::print(file,
               ",\n{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":{},\"args\":{{"
               "\"name\":{}}}}}",
               e * 1000 + memory_lane, quoted(executor_names[e] + "/memory"));
  }
  for (const auto& buffer : buffers_) {
    std::lock_guard buffer_guard(buffer->lock);
    for (const Event& event : buffer->events) {
      if (event.duration_ns < 0) {
        fmt::print(
            file,
            ",\n{{\"ph\":\"C\",\"name\":{},\"pid\":1,\"ts\":{:.3f},\"args\":{{\"value\":{}}}}}",
            quoted(event.name), static_cast<double>(event.start_ns) / 1e3,
            static_cast<std::int64_t>(event.bytes));
        continue;
      }
      fmt::print(
          file,
          ",\n{{\"ph\":\"X\",\"cat\":\"task\",\"name\":{},\"pid\":1,\"tid\":{},\"ts\":{:.3f},"
          "\"dur\":{:.3f},\"args\":{{\"executor\":{},\"bytes\":{}}}}}",
          quoted(event.name), event.executor * 1000 + event.worker,
          static_cast<double>(event.start_ns) / 1e3, static_cast<double>(event.duration_ns) / 1e3,
          quoted(event.executor < executor_names.size() ? executor_names[event.executor] : "?"),
          event.bytes);
    }
  }
  fmt::print(file, "\n]}}\n");
  const bool failed = std::ferror(file) != 0;
  if (std::fclose(file) != 0 || failed) {
    throw Error(fmt::format("writing trace file '{}' failed: {}", path, std::strerror(errno)));
  }
}

}  // namespace strata::runtime::detail
