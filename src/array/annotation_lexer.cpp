#include "annotation_lexer.hpp"

#include <fmt/format.h>

#include <limits>

#include "strata/array/annotation_error.hpp"

namespace strata::array::detail {
namespace {

bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::string describe_character(char c) {
  auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x20 && byte < 0x7f) return fmt::format("'{}'", c);
  return fmt::format("the byte 0x{:02x}", byte);
}

}  // namespace

std::string Token::describe() const {
  switch (kind) {
    case TokenKind::end:
      return "the end of the annotation";
    default:
      return fmt::format("'{}'", text);
  }
}

std::vector<Token> tokenize(std::string_view text) {
  std::vector<Token> tokens;
  std::size_t at = 0;
  while (true) {
    while (at < text.size() && is_space(text[at]))
      ++at;
    if (at == text.size()) break;
    const std::size_t start = at;
    const char c = text[at];
    Token token;
    token.offset = start;
    if (is_name_start(c)) {
      while (at < text.size() && (is_name_start(text[at]) || is_digit(text[at])))
        ++at;
      token.kind = TokenKind::name;
    } else if (is_digit(c)) {
      std::uint64_t value = 0;
      constexpr auto limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
      while (at < text.size() && is_digit(text[at])) {
        const auto digit = static_cast<std::uint64_t>(text[at] - '0');
        if (value > (limit - digit) / 10) {
          throw AnnotationError(text, start, "this integer does not fit in 64 bits");
        }
        value = value * 10 + digit;
        ++at;
      }
      if (at < text.size() && is_name_start(text[at])) {
        throw AnnotationError(text, at,
                              "expected an operator after the integer; write a product as 2*i");
      }
      token.kind = TokenKind::integer;
      token.value = static_cast<std::int64_t>(value);
    } else if (c == '=' && at + 1 < text.size() && text[at + 1] == '>') {
      at += 2;
      token.kind = TokenKind::arrow;
    } else if (std::string_view("[](),:+-*").find(c) != std::string_view::npos) {
      ++at;
      token.kind = TokenKind::symbol;
    } else {
      throw AnnotationError(
          text, start,
          fmt::format("unexpected {}: expected a name, an integer or one of => [ ] ( ) , : + - *",
                      describe_character(c)));
    }
    token.text = text.substr(start, at - start);
    tokens.push_back(token);
  }
  Token end;
  end.offset = text.size();
  tokens.push_back(end);
  return tokens;
}

}  // namespace strata::array::detail
