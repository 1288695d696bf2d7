#pragma once
// What the bench programs share for timing and their reports' headers: repetitions timed after
// untimed preparation, the host's name and the date in UTC.

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <string>
#include <vector>

namespace strata::bench {

// Times `run` `repetitions` times in seconds, each after `prepare` (untimed).
template <typename Prepare, typename Run>
std::vector<double> timed(int repetitions, Prepare prepare, Run run) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> seconds;
  for (int r = 0; r < repetitions; ++r) {
    prepare();
    const auto start = Clock::now();
    run();
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  return seconds;
}

inline std::string host_name() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

// Now as 2026-12-07T02:30:00Z.
inline std::string utc_date() {
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return date;
}

}  // namespace strata::bench
