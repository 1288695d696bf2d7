#include "progress_line.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace strata::cli {

ProgressLine::ProgressLine() : enabled_(::isatty(STDERR_FILENO) != 0) {}

void ProgressLine::update(const std::string& text) {
  if (!enabled_) return;
  if (drawn_ && std::chrono::steady_clock::now() - last_draw_ < min_interval) return;
  draw(text);
}

void ProgressLine::finish(const std::string& text) {
  if (!enabled_) return;
  draw(text);
  fmt::print(stderr, "\n");
  std::fflush(stderr);
  drawn_ = false;
  last_width_ = 0;
}

void ProgressLine::draw(const std::string& text) {
  // Pad with spaces so a shorter line fully covers the previous one.
  const std::size_t padding = last_width_ > text.size() ? last_width_ - text.size() : 0;
  fmt::print(stderr, "\r{}{:{}}", text, "", padding);
  std::fflush(stderr);
  last_width_ = text.size();
  last_draw_ = std::chrono::steady_clock::now();
  drawn_ = true;
}

}  // namespace strata::cli
