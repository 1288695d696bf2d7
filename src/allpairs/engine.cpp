#include "strata/allpairs/engine.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <utility>

#include "rank_engine.hpp"
#include "strata/allpairs/cache_size.hpp"

namespace strata::allpairs {

double EngineReport::loads_per_item() const {
  const std::uint64_t used = items - items_skipped;
  return used == 0 ? 0.0 : static_cast<double>(loads) / static_cast<double>(used);
}

double EngineReport::pairs_per_second() const {
  return seconds <= 0 ? 0.0 : static_cast<double>(pairs_computed) / seconds;
}

namespace {
// Eq. (4) for `pairs` comparisons, spread over `devices`.
double model_seconds(double items, double pairs, double t_preprocess, double t_compare,
                     unsigned devices) {
  return devices == 0 ? 0.0 : (items * t_preprocess + pairs * t_compare) / devices;
}
}  // namespace

double EngineReport::model_minimum_seconds() const {
  return model_seconds(static_cast<double>(items - items_skipped),
                       static_cast<double>(pairs_computed), preprocess.mean(), compare.mean(),
                       devices);
}

double EngineReport::efficiency() const {
  return seconds <= 0 ? 0.0 : model_minimum_seconds() / seconds;
}

double EngineReport::calibrated_minimum_seconds() const {
  if (calibrated_compare.count == 0) return 0.0;
  return model_seconds(static_cast<double>(items - items_skipped),
                       static_cast<double>(pairs_computed), calibrated_preprocess.mean(),
                       calibrated_compare.mean(), devices);
}

double EngineReport::calibrated_efficiency() const {
  return seconds <= 0 ? 0.0 : calibrated_minimum_seconds() / seconds;
}

std::string EngineReport::format() const {
  const auto stage = [](const char* name, const StageTime& s) {
    return fmt::format("  {:<12} {:>9} runs  mean {:>9.3f} ms  total {:>8.2f} s\n", name, s.count,
                       s.mean() * 1e3, s.seconds);
  };
  std::string out = fmt::format(
      "{}: {} pairs of {} items on {} device(s), {} rank(s), in {:.2f} s\n"
      "  computed {}  resumed {}  skipped {} (items skipped: {})\n"
      "  pairs/s {:.1f}   loads {}  R (loads per item) {:.2f}   remote cache hits {} misses {}\n"
      "  bytes read {:.1f} MB   steals: local {} remote {}\n",
      application, pairs_total, items, devices, ranks, seconds, pairs_computed, pairs_resumed,
      pairs_skipped, items_skipped, pairs_per_second(), loads, loads_per_item(), remote_hits,
      remote_misses, static_cast<double>(bytes_read) / 1e6, steals_local, steals_remote);
  out += "stages (device stages: time on the device's in-order compute queue)\n";
  out += stage("read", read) + stage("parse", parse) + stage("preprocess", preprocess) +
         stage("compare", compare) + stage("postprocess", postprocess);
  out += fmt::format(
      "performance model (rocket §6.1): T_min = n t_pre + pairs t_cmp over {} device(s) = "
      "{:.3f} s; T = {:.3f} s; system efficiency {:.1f}%\n",
      devices, model_minimum_seconds(), seconds, efficiency() * 100);
  if (calibrated_compare.count > 0) {
    out += stage("preprocess*", calibrated_preprocess) + stage("compare*", calibrated_compare);
    out += fmt::format(
        "  with the stage times * (alone on the idle device before the run, the first items "
        "only: preprocessing one item at a time, comparisons back to back): T_min = {:.3f} s, "
        "efficiency {:.1f}%\n",
        calibrated_minimum_seconds(), calibrated_efficiency() * 100);
  }
  return out;
}

CacheOptions CacheOptions::from(const Config& config) {
  const auto& settings = config.section<AllPairsSettings>();
  const CacheSize device = parse_cache_size("allpairs_device_cache", settings.device_cache, "code");
  const CacheSize host = parse_cache_size("allpairs_host_cache", settings.host_cache, "code");
  return {device.bytes, device.slots, host.bytes, host.slots, settings.distributed_cache,
          settings.hops};
}

EngineOptions EngineOptions::from(Config config) {
  EngineOptions options;
  options.config = std::move(config);
  options.cache = CacheOptions::from(options.config);
  options.jobs_per_device = options.config.section<AllPairsSettings>().jobs_per_device;
  options.leaf = options.config.section<AllPairsSettings>().leaf;
  options.cache_aware_stealing = options.config.section<AllPairsSettings>().cache_aware_stealing;
  return options;
}

namespace {

// The device slots and working room a device space needs.
std::uint64_t device_capacity(const ApplicationBase& app, const EngineOptions& options) {
  std::uint64_t items = options.cache.device_bytes;
  if (items == 0 && options.cache.device_slots != 0)
    items = options.cache.device_slots * app.slot_bytes();
  if (items == 0)
    return options.config.section<memory::MemorySettings>().device_capacity;  // 0: 90%
  // Room for the jobs' results and for items being preprocessed from their parsed bytes.
  return items + options.jobs_per_device * app.comparison_bytes() + 4 * app.slot_bytes();
}

std::uint64_t host_capacity(const ApplicationBase& app, const EngineOptions& options,
                            std::size_t devices) {
  std::uint64_t items = options.cache.host_bytes;
  if (items == 0 && options.cache.host_slots != 0)
    items = options.cache.host_slots * app.slot_bytes();
  if (items == 0) items = options.config.section<memory::MemorySettings>().host_capacity;
  const std::uint64_t room =
      devices * (options.jobs_per_device * app.comparison_bytes() + 8 * app.slot_bytes());
  return items + items / 4 + room;
}

}  // namespace

node::NodeOptions node_options(const ApplicationBase& application, const EngineOptions& options) {
  node::NodeOptions made;
  made.config = options.config;
  made.config.section<device::DeviceSettings>().backends = options.devices;
  const std::uint64_t device = device_capacity(application, options);
  const std::uint64_t host = host_capacity(application, options, 0);
  const std::uint64_t room_per_device = host_capacity(application, options, 1) - host;
  made.size_memory = [device, host, room_per_device](memory::MemoryOptions& memory,
                                                     std::span<device::Device* const> devices) {
    memory.device_capacity = device;
    memory.host_capacity = host + devices.size() * room_per_device;
  };
  return made;
}

EngineReport run_all_pairs(const ApplicationBase& application, const EngineOptions& options,
                           node::Node& node) {
  try {
    detail::RankEngine engine(application, options, node);
    EngineReport report = engine.run();
    return report;
  } catch (const std::exception& error) {
    if (node.size() == 1) throw;
    // A rank that fails ends the whole job: the others would wait for its work forever.
    std::fprintf(stderr, "strata: rank %d failed in all-pairs run of %s: %s\n", node.rank(),
                 application.name().c_str(), error.what());
    std::fflush(stderr);
    node.network().abort(1);
  }
}

EngineReport run_all_pairs(const ApplicationBase& application, const EngineOptions& options,
                           cluster::Network& network) {
  std::unique_ptr<node::Node> node;
  try {
    node = std::make_unique<node::Node>(node_options(application, options), network);
  } catch (const std::exception& error) {
    if (network.size() == 1) throw;
    std::fprintf(stderr, "strata: rank %d failed to start all-pairs run of %s: %s\n",
                 network.rank(), application.name().c_str(), error.what());
    std::fflush(stderr);
    network.abort(1);
  }
  return run_all_pairs(application, options, *node);
}

}  // namespace strata::allpairs
