#include "strata/runtime/run_history.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "strata/base/error.hpp"

namespace strata::runtime {
namespace {

constexpr int file_version = 1;

ExecutorKind kind_named(const std::string& name) {
  for (std::size_t k = 0; k < executor_kinds; ++k) {
    if (name == to_string(static_cast<ExecutorKind>(k))) return static_cast<ExecutorKind>(k);
  }
  throw Error("unknown executor kind '" + name + "'");
}

// Welford's update of a running mean and sum of squared deviations.
void add_run(std::uint64_t& count, double& mean, double& m2, double seconds) {
  ++count;
  const double delta = seconds - mean;
  mean += delta / static_cast<double>(count);
  m2 += delta * (seconds - mean);
}

}  // namespace

unsigned RunHistory::bucket_of(std::uint64_t bytes) {
  return static_cast<unsigned>(std::bit_width(bytes));
}

void RunHistory::record(std::string_view operation, std::uint64_t bytes, ExecutorKind kind,
                        double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return;
  std::lock_guard guard(lock_);
  Key key{std::string(operation), bucket_of(bytes)};
  Bucket& bucket = buckets_[std::move(key)];
  Runs& runs = bucket.kinds[static_cast<std::size_t>(kind)];
  add_run(runs.count, runs.mean, runs.m2, seconds);
  bucket.hints.reset();
}

std::shared_ptr<const CostHints> RunHistory::hints(std::string_view operation,
                                                   std::uint64_t bytes) const {
  std::lock_guard guard(lock_);
  const auto found = buckets_.find(std::make_tuple(std::string(operation), bucket_of(bytes)));
  if (found == buckets_.end()) return nullptr;
  const Bucket& bucket = found->second;
  if (!bucket.hints) {
    auto made = std::make_shared<CostHints>();
    for (std::size_t k = 0; k < executor_kinds; ++k) {
      // A zero mean reads as "not given": keep a measured instant run positive.
      if (bucket.kinds[k].count != 0) made->seconds[k] = std::max(bucket.kinds[k].mean, 1e-9);
    }
    bucket.hints = std::move(made);
  }
  return bucket.hints;
}

std::vector<RunHistory::Entry> RunHistory::entries() const {
  std::lock_guard guard(lock_);
  std::vector<Entry> entries;
  for (const auto& [key, bucket] : buckets_) {
    for (std::size_t k = 0; k < executor_kinds; ++k) {
      const Runs& runs = bucket.kinds[k];
      if (runs.count == 0) continue;
      const double variance = runs.count > 1 ? runs.m2 / static_cast<double>(runs.count - 1) : 0;
      entries.push_back({std::get<0>(key), std::get<1>(key), static_cast<ExecutorKind>(k),
                         runs.count, runs.mean, std::sqrt(variance)});
    }
  }
  return entries;
}

bool RunHistory::empty() const {
  std::lock_guard guard(lock_);
  return buckets_.empty();
}

void RunHistory::load(const std::string& path) {
  std::ifstream file(path);
  if (!file) return;
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(file);
  } catch (const nlohmann::json::exception& error) {
    throw Error("run history '" + path + "' is not JSON: " + error.what());
  }
  if (!json.is_object() || json.value("strata_run_history", 0) != file_version ||
      !json.contains("entries") || !json["entries"].is_array()) {
    throw Error("run history '" + path + "' is not a strata run history (version " +
                std::to_string(file_version) + ")");
  }
  // Every entry is read before any is added: a bad one adds nothing.
  struct Loaded {
    Key key;
    std::size_t kind;
    Runs runs;
  };
  std::vector<Loaded> loaded;
  for (const nlohmann::json& entry : json["entries"]) {
    try {
      Loaded one{Key{entry.at("operation").get<std::string>(), entry.at("bucket").get<unsigned>()},
                 static_cast<std::size_t>(kind_named(entry.at("kind").get<std::string>())),
                 Runs{entry.at("runs").get<std::uint64_t>(), entry.at("mean_seconds").get<double>(),
                      entry.at("m2").get<double>()}};
      if (one.runs.count == 0 || !(one.runs.mean >= 0) || !(one.runs.m2 >= 0))
        throw Error("runs, mean or m2 out of range");
      loaded.push_back(std::move(one));
    } catch (const nlohmann::json::exception& error) {
      throw Error("run history '" + path + "': entry " + entry.dump() + ": " + error.what());
    } catch (const Error& error) {
      throw Error("run history '" + path + "': entry " + entry.dump() + ": " + error.what());
    }
  }
  std::lock_guard guard(lock_);
  for (const Loaded& one : loaded) {
    Bucket& bucket = buckets_[one.key];
    Runs& runs = bucket.kinds[one.kind];
    // Chan's combination of two sets of runs.
    const double total = static_cast<double>(runs.count + one.runs.count);
    const double delta = one.runs.mean - runs.mean;
    runs.m2 += one.runs.m2 + delta * delta * static_cast<double>(runs.count) *
                                 static_cast<double>(one.runs.count) / total;
    runs.mean += delta * static_cast<double>(one.runs.count) / total;
    runs.count += one.runs.count;
    bucket.hints.reset();
  }
}

void RunHistory::save(const std::string& path) const {
  nlohmann::json entries = nlohmann::json::array();
  {
    std::lock_guard guard(lock_);
    for (const auto& [key, bucket] : buckets_) {
      for (std::size_t k = 0; k < executor_kinds; ++k) {
        const Runs& runs = bucket.kinds[k];
        if (runs.count == 0) continue;
        entries.push_back({{"operation", std::get<0>(key)},
                           {"bucket", std::get<1>(key)},
                           {"kind", to_string(static_cast<ExecutorKind>(k))},
                           {"runs", runs.count},
                           {"mean_seconds", runs.mean},
                           {"m2", runs.m2}});
      }
    }
  }
  const nlohmann::json json{{"strata_run_history", file_version}, {"entries", entries}};
  const std::string temporary = path + ".tmp";
  {
    std::ofstream file(temporary, std::ios::trunc);
    file << json.dump(1) << '\n';
    if (!file.flush()) throw Error("cannot write run history '" + temporary + "'");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    throw Error("cannot replace run history '" + path + "'");
  }
}

}  // namespace strata::runtime
