#include "strata/allpairs/engine.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "rank_engine.hpp"

namespace strata::allpairs {

double EngineReport::loads_per_item() const {
  const std::uint64_t used = items - items_skipped;
  return used == 0 ? 0.0 : static_cast<double>(loads) / static_cast<double>(used);
}

double EngineReport::pairs_per_second() const {
  return seconds <= 0 ? 0.0 : static_cast<double>(pairs_computed) / seconds;
}

double EngineReport::model_minimum_seconds() const {
  // Eq. (4) for the pairs this run computed, spread over every device of the cluster.
  const double n = static_cast<double>(items - items_skipped);
  const bool calibrated = calibrated_compare.count > 0;
  const double t_preprocess = calibrated ? calibrated_preprocess.mean() : preprocess.mean();
  const double t_compare = calibrated ? calibrated_compare.mean() : compare.mean();
  const double t = n * t_preprocess + static_cast<double>(pairs_computed) * t_compare;
  return devices == 0 ? 0.0 : t / devices;
}

double EngineReport::efficiency() const {
  return seconds <= 0 ? 0.0 : model_minimum_seconds() / seconds;
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
  if (calibrated_compare.count > 0) {
    out += stage("preprocess*", calibrated_preprocess) + stage("compare*", calibrated_compare);
    out += "  (* medians of runs alone before the run: the model's stage times)\n";
  }
  out += fmt::format(
      "performance model (rocket §6.1): T_min = n t_pre + pairs t_cmp over {} device(s) = "
      "{:.3f} s; T = {:.3f} s; system efficiency {:.1f}%\n",
      devices, model_minimum_seconds(), seconds, efficiency() * 100);
  return out;
}

EngineReport run_all_pairs(const ApplicationBase& application, const EngineOptions& options,
                           cluster::Network& network) {
  try {
    detail::RankEngine engine(application, options, network);
    EngineReport report = engine.run();
    return report;
  } catch (const std::exception& error) {
    if (network.size() == 1) throw;
    // A rank that fails ends the whole job: the others would wait for its work forever.
    std::fprintf(stderr, "strata: rank %d failed in all-pairs run of %s: %s\n", network.rank(),
                 application.name().c_str(), error.what());
    std::fflush(stderr);
    network.abort(1);
  }
}

}  // namespace strata::allpairs
