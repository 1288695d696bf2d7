#pragma once
// The tokens of an annotation: names, integers, punctuation ("=>", "[", ":", "+", ...), each with
// its place in the text. Private to the parser.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace strata::array::detail {

enum class TokenKind { name, integer, arrow, symbol, end };

struct Token {
  TokenKind kind = TokenKind::end;
  std::string_view text;   // as written (empty for end)
  std::size_t offset = 0;  // 0-based, into the annotation
  std::int64_t value = 0;  // of an integer
  bool is(std::string_view symbol_or_name) const {
    return kind != TokenKind::end && kind != TokenKind::integer && text == symbol_or_name;
  }
  // How an error message names it: "'wrte'", "'+'", "the end of the annotation".
  std::string describe() const;
};

// Splits `text` into tokens, the last one of kind end; throws AnnotationError on a character
// that starts no token and on an integer beyond 2^63 - 1.
std::vector<Token> tokenize(std::string_view text);

}  // namespace strata::array::detail
