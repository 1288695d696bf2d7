#include "strata/base/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace strata {

spdlog::logger& log() {
  static const std::shared_ptr<spdlog::logger> logger = [] {
    auto created = spdlog::stderr_color_mt("strata");
    created->set_pattern("[strata %^%l%$] %v");
    created->set_level(spdlog::level::warn);
    return created;
  }();
  return *logger;
}

void set_log_level(std::string_view level) {
  log().set_level(spdlog::level::from_str(std::string(level)));
}

}  // namespace strata
