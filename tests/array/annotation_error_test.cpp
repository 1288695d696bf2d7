// Bad annotations: each error quotes the annotation, puts a caret under the column at fault and
// says what was expected there.

#include "strata/array/annotation_error.hpp"

#include <gtest/gtest.h>

#include "strata/array/annotation.hpp"

namespace strata::array {
namespace {

struct BadAnnotation {
  const char* text;
  std::size_t column;  // 1-based
  const char* reason;  // a part of the reason
};

AnnotationError error_of(std::string_view text) {
  try {
    parse_annotation(text);
  } catch (const AnnotationError& error) {
    return error;
  }
  throw std::logic_error("parsed: " + std::string(text));
}

TEST(AnnotationError, SaysWhereAndWhatWasExpected) {
  const BadAnnotation cases[] = {
      {"", 1, "expected a binding: global, block or local, found the end of the annotation"},
      {"globl i => read A[i]", 1, "expected a binding: global, block or local, found 'globl'"},
      {"global => read A[i]", 8, "expected a variable name, or '[' and 1 to 3 of them"},
      {"global i read A[i]", 10, "expected '=>' after the bound variables, found 'read'"},
      {"global i = read A[i]", 10, "unexpected '='"},
      {"global [i j] => read A[i]", 11, "expected ',' or ']' after a bound variable, found 'j'"},
      {"global [i, j, k, l] => read A[i]", 18, "at most 3 variables"},
      {"global [i, i] => read A[i]", 12, "variable 'i' is bound twice"},
      {"global i => reed A[i]", 13, "expected an access mode: read, write, readwrite or reduce"},
      {"global i => reduce(-) s[i]", 20, "expected a reduction: +, *, min or max, found '-'"},
      {"global i => reduce s[i]", 20, "expected '(' and a reduction after reduce"},
      {"global i => read A[i], write", 29, "expected the name of an array argument, found the end"},
      {"global i => read A[i],", 23, "expected an access mode"},
      {"global i => read A[i] write B[i]", 23, "expected ',' and another access, or the end"},
      {"global i => read A[i", 21,
       "expected an operator (+ - *), ':', ',' or ']' in the indices "
       "of 'A', found the end"},
      {"global i => read A[0:i:2]", 23, "(slices have no step)"},
      {"global i => read A[]", 20, "a 0-d array is named without brackets"},
      {"global i => read A[i,i,i,i]", 26, "arrays have at most 3 dimensions"},
      {"global [i, j] => read A[i*j]", 27,
       "the product of bound variables 'i' and 'j' is not linear"},
      {"global i => read A[(i+1)*(i-1)]", 26, "bound variables 'i' and 'i'"},
      {"global i => read A[k*n*i]", 22,
       "the product of scalar arguments 'k' and 'n' is not linear"},
      {"global i => read A[2i]", 21, "write a product as 2*i"},
      {"global i => read A[i + ]", 24, "expected a name, an integer or '(', found ']'"},
      {"global i => read A[(i + 1]", 26, "expected an operator (+ - *) or ')', found ']'"},
      {"global i => read A[99999999999999999999]", 20, "does not fit in 64 bits"},
      {"global i => read A[4611686018427387904*2]", 39, "does not fit in 64 bits"},
      {"global i => read A[i], write A[i]", 30, "array 'A' is already accessed (column 18)"},
      {"global i => read i[i]", 18, "'i' is a bound variable"},
      {"global i => read A[i$]", 21, "unexpected '$'"},
      {"global i => read A[i/2]", 21, "unexpected '/'"},
  };
  for (const BadAnnotation& bad : cases) {
    SCOPED_TRACE(bad.text);
    const AnnotationError error = error_of(bad.text);
    EXPECT_EQ(error.column(), bad.column);
    EXPECT_EQ(error.line(), 1u);
    EXPECT_NE(error.reason().find(bad.reason), std::string::npos) << error.reason();
    // The message: where and why, the annotation, and the caret under the column.
    const std::string expected = "bad annotation at column " + std::to_string(bad.column) + ": " +
                                 error.reason() + "\n  " + bad.text + "\n  " +
                                 std::string(bad.column - 1, ' ') + "^";
    EXPECT_EQ(error.what(), expected);
  }
}

TEST(AnnotationError, NamesTheLineOfAnAnnotationOnSeveralLines) {
  const AnnotationError error = error_of("global i => read A[i-1:i+1],\n\twrite B[i j]");
  EXPECT_EQ(error.line(), 2u);
  EXPECT_EQ(error.column(), 12u);
  EXPECT_EQ(std::string(error.what()),
            "bad annotation at line 2, column 12: expected an operator (+ - *), ':', ',' or ']' "
            "in the indices of 'B', found 'j'\n  \twrite B[i j]\n  \t          ^");
}

TEST(AnnotationError, ShowsBytesATerminalWouldNotAsQuestionMarks) {
  const AnnotationError error = error_of(std::string_view("global i => read A[\x01]", 21));
  EXPECT_EQ(error.column(), 20u);
  EXPECT_NE(error.reason().find("the byte 0x01"), std::string::npos);
  EXPECT_NE(std::string(error.what()).find("\n  global i => read A[?]\n"), std::string::npos);
}

TEST(AnnotationError, IsAStrataError) {
  EXPECT_THROW(parse_annotation("global"), Error);
}

}  // namespace
}  // namespace strata::array
