#include "rank_census.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "strata/cluster/message_kinds.hpp"
#include "strata/cluster/termination_note.hpp"

namespace strata::cluster::detail {

namespace {
constexpr std::size_t max_ranks = 4096;
constexpr std::size_t message_bytes = 160;

// What the SIGTERM handler reads: an entry is filled before `watched_count` counts it.
struct WatchedRank {
  pid_t pid = 0;
  char message[message_bytes] = {};
};
WatchedRank watched[max_ranks];
std::atomic<std::size_t> watched_count{0};
std::atomic<bool> is_rank_zero{false};
const char launcher_message[] =
    "strata: the MPI launcher is ending the job (a rank exited or was killed)\n";

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "?";
  return name;
}

void write_text(const char* text) {
  ssize_t ignored = write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

void on_terminate(int signal) {
  // Async-signal-safe only: kill(), write(), _exit().
  if (is_rank_zero.load()) write_text(launcher_message);
  const std::size_t count = watched_count.load();
  for (std::size_t i = 0; i < count; ++i) {
    if (kill(watched[i].pid, 0) == -1 && errno == ESRCH) write_text(watched[i].message);
  }
  write_termination_notes(STDERR_FILENO);
  _exit(128 + signal);
}

// Rank 0, on the network thread: one worker's report (only ranks on this host can be watched).
void watch(int rank, const RankProcess& process) {
  static const std::string here = host_name();
  const std::size_t at = watched_count.load();
  if (process.host != here || at == max_ranks) return;
  WatchedRank& entry = watched[at];
  entry.pid = process.pid;
  const std::string text = "strata: rank " + std::to_string(rank) + " (pid " +
                           std::to_string(process.pid) + " on " + process.host +
                           ") is gone: it was killed or crashed\n";
  std::strncpy(entry.message, text.c_str(), message_bytes - 1);
  watched_count.store(at + 1);
}
}  // namespace

RankCensus::RankCensus(Network& network) {
  if (network.rank() == 0) {
    watched_count.store(0);
    is_rank_zero.store(true);
    network.on(kinds::hello, [](int source, std::span<const std::byte> payload) {
      watch(source, decode<RankProcess>(payload, "a rank's hello"));
    });
  } else {
    network.post_value(0, kinds::hello, RankProcess{static_cast<int>(getpid()), host_name()});
  }
  struct sigaction action {};
  action.sa_handler = on_terminate;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, &previous_);
}

RankCensus::~RankCensus() {
  sigaction(SIGTERM, &previous_, nullptr);
  watched_count.store(0);
  is_rank_zero.store(false);
}

}  // namespace strata::cluster::detail
