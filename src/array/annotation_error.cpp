#include "strata/array/annotation_error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace strata::array {
namespace {

struct TextPlace {
  std::size_t line = 1;    // 1-based
  std::size_t column = 1;  // 1-based
  std::size_t line_start = 0;
  std::size_t line_end = 0;
};

TextPlace locate(std::string_view text, std::size_t offset) {
  TextPlace place;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++place.line;
      place.line_start = i + 1;
    }
  }
  place.column = offset - place.line_start + 1;
  place.line_end = std::min(text.size(), text.find('\n', place.line_start));
  return place;
}

// The line quoted with every byte a terminal might not show as one column replaced by '?', and
// the caret under `column` (tabs copied, so that it lines up).
std::string quote_with_caret(std::string_view line, std::size_t column) {
  std::string quoted = "  ";
  std::string caret = "  ";
  for (std::size_t i = 0; i < line.size(); ++i) {
    const auto byte = static_cast<unsigned char>(line[i]);
    const bool shown = byte == '\t' || (byte >= 0x20 && byte < 0x7f);
    quoted += shown ? line[i] : '?';
    if (i + 1 < column) caret += byte == '\t' ? '\t' : ' ';
  }
  for (std::size_t i = line.size() + 1; i < column; ++i)
    caret += ' ';
  caret += '^';
  return quoted + "\n" + caret;
}

std::string message(std::string_view text, std::size_t offset, const std::string& reason) {
  const TextPlace place = locate(text, offset);
  const std::string where = place.line == 1 && place.line_end == text.size()
                                ? fmt::format("column {}", place.column)
                                : fmt::format("line {}, column {}", place.line, place.column);
  return fmt::format(
      "bad annotation at {}: {}\n{}", where, reason,
      quote_with_caret(text.substr(place.line_start, place.line_end - place.line_start),
                       place.column));
}

}  // namespace

AnnotationError::AnnotationError(std::string_view annotation, std::size_t offset,
                                 std::string reason)
    : Error(message(annotation, std::min(offset, annotation.size()), reason)),
      annotation_(annotation),
      reason_(std::move(reason)),
      offset_(std::min(offset, annotation.size())) {
  const TextPlace place = locate(annotation, offset_);
  line_ = place.line;
  column_ = place.column;
}

}  // namespace strata::array
