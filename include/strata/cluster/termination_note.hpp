#pragma once
// TerminationNote: a line a process leaves on stderr when the MPI launcher ends the job because a
// rank was killed or crashed (SIGTERM) — e.g. how far a run got and how to continue it. Its owner
// rewrites it as the work goes on; the cluster layer's SIGTERM handler writes the latest text,
// after the lines that name the ranks that are gone (rank_census.cpp).

#include <atomic>
#include <cstddef>
#include <string_view>

namespace strata::cluster {

class TerminationNote {
 public:
  static constexpr std::size_t capacity = 1024;  // longer text is cut

  TerminationNote();   // registers the note (at most 8 at once)
  ~TerminationNote();  // unregisters it
  TerminationNote(const TerminationNote&) = delete;
  TerminationNote& operator=(const TerminationNote&) = delete;

  // Replaces the text (a newline is added); from one thread at a time.
  void set(std::string_view text);
  // Async-signal-safe: writes the current text to `fd`.
  void write_to(int fd) const noexcept;

 private:
  // Two buffers: set() fills the one not shown, then shows it.
  char text_[2][capacity + 1] = {};
  std::size_t length_[2] = {0, 0};
  std::atomic<int> shown_{0};
};

// Async-signal-safe: writes every registered note to `fd` (the SIGTERM handler calls it).
void write_termination_notes(int fd) noexcept;

}  // namespace strata::cluster
