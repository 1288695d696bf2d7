#pragma once
// The error of a bad annotation: its message quotes the annotation, puts a caret under the column
// at fault and says what was expected there (or which name is unknown, which access overflows).

#include <cstddef>
#include <string>
#include <string_view>

#include "strata/base/error.hpp"

namespace strata::array {

class AnnotationError : public Error {
 public:
  // `offset` is the 0-based position in `annotation` of the fault; `reason` says what is wrong
  // ("expected ']' to close the indices of 'A', found ','").
  AnnotationError(std::string_view annotation, std::size_t offset, std::string reason);

  const std::string& annotation() const { return annotation_; }
  const std::string& reason() const { return reason_; }
  std::size_t offset() const { return offset_; }  // 0-based, into annotation()
  std::size_t line() const { return line_; }      // 1-based
  std::size_t column() const { return column_; }  // 1-based, within line()

 private:
  std::string annotation_;
  std::string reason_;
  std::size_t offset_;
  std::size_t line_;
  std::size_t column_;
};

}  // namespace strata::array
