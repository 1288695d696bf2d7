#pragma once
// ProgressLine: one status line on standard error, redrawn in place with '\r' while a job runs
// (only when standard error is a terminal; piped output gets no redraws).

#include <chrono>
#include <cstddef>
#include <string>

namespace strata::cli {

class ProgressLine {
 public:
  ProgressLine();
  // Redraws the line with `text` if at least `min_interval` passed since the last redraw.
  void update(const std::string& text);
  // Draws `text` one last time and ends the line, so that later output starts on a fresh one.
  void finish(const std::string& text);

  static constexpr std::chrono::milliseconds min_interval{100};

 private:
  void draw(const std::string& text);

  bool enabled_;
  bool drawn_ = false;
  std::size_t last_width_ = 0;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace strata::cli
