#pragma once
// Strata's logger: one spdlog logger named "strata", writing to standard error.

#include <spdlog/spdlog.h>

#include <string_view>

namespace strata {

// The process-wide logger.
spdlog::logger& log();

// Sets the least severe level shown ("trace" ... "off"); the level was validated by Config.
void set_log_level(std::string_view level);

}  // namespace strata
