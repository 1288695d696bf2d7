#include "rank_census.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "strata/cluster/message_kinds.hpp"

namespace strata::cluster::detail {

namespace {
constexpr auto census_timeout = std::chrono::seconds(30);
constexpr std::size_t max_ranks = 4096;
constexpr std::size_t message_bytes = 160;

// What the SIGTERM handler reads: filled before it is installed, never changed after.
struct WatchedRank {
  pid_t pid = 0;
  char message[message_bytes] = {};
};
WatchedRank watched[max_ranks];
std::size_t watched_count = 0;
const char launcher_message[] =
    "strata: the MPI launcher is ending the job (a rank exited or was killed)\n";

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "?";
  return name;
}

void on_terminate(int signal) {
  // Async-signal-safe only: kill(), write(), _exit().
  ssize_t ignored = write(STDERR_FILENO, launcher_message, sizeof launcher_message - 1);
  for (std::size_t i = 0; i < watched_count; ++i) {
    if (kill(watched[i].pid, 0) == -1 && errno == ESRCH) {
      ignored = write(STDERR_FILENO, watched[i].message, std::strlen(watched[i].message));
    }
  }
  (void)ignored;
  _exit(128 + signal);
}
}  // namespace

void RankCensus::report() {
  network_.post_value(0, kinds::hello, RankProcess{static_cast<int>(getpid()), host_name()});
}

void RankCensus::collect() {
  if (network_.size() == 1) return;
  // Shared with the handler, which a late hello may still run after this returns.
  struct Reports {
    std::mutex lock;
    std::condition_variable arrived;
    std::vector<std::pair<int, RankProcess>> ranks;
  };
  auto reports = std::make_shared<Reports>();
  network_.on(kinds::hello, [reports](int source, std::span<const std::byte> payload) {
    RankProcess process = decode<RankProcess>(payload, "a rank's hello");
    {
      std::lock_guard guard(reports->lock);
      reports->ranks.emplace_back(source, std::move(process));
    }
    reports->arrived.notify_all();
  });
  std::unique_lock guard(reports->lock);
  const auto expected = static_cast<std::size_t>(network_.size()) - 1;
  reports->arrived.wait_for(guard, census_timeout,
                            [&] { return reports->ranks.size() >= expected; });
  const std::string here = host_name();
  for (const auto& [rank, process] : reports->ranks) {
    if (process.host != here || watched_count == max_ranks) continue;
    WatchedRank& entry = watched[watched_count++];
    entry.pid = process.pid;
    const std::string text = "strata: rank " + std::to_string(rank) + " (pid " +
                             std::to_string(process.pid) + " on " + process.host +
                             ") is gone: it was killed or crashed\n";
    std::strncpy(entry.message, text.c_str(), message_bytes - 1);
  }
  guard.unlock();
  struct sigaction action {};
  action.sa_handler = on_terminate;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
}

}  // namespace strata::cluster::detail
