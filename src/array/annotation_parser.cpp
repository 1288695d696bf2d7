// The recursive-descent parser of annotations (grammar: docs/arrays.md). Index expressions are
// multiplied out as they are parsed, so that (i + 1)*k becomes k*i + k and i*j is refused where
// the product is written.

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "annotation_lexer.hpp"
#include "checked_arithmetic.hpp"
#include "strata/array/annotation.hpp"
#include "strata/array/annotation_error.hpp"

namespace strata::array {
namespace {

using detail::Token;
using detail::TokenKind;

constexpr int max_parenthesis_depth = 32;
constexpr std::size_t max_variables = 3;
constexpr std::size_t max_dimensions = 3;

auto term_order(const AffineTerm& term) {
  return std::tuple(term.variable < 0, term.variable, term.variable < 0 && term.scalar.empty(),
                    std::string_view(term.scalar));
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text), tokens_(detail::tokenize(text)) {}

  Annotation parse() {
    Annotation annotation;
    annotation.text = std::string(text_);
    annotation.binding = parse_binding();
    annotation.variables = parse_variables();
    variables_ = &annotation.variables;
    expect("=>", "'=>' after the bound variables");
    while (true) {
      annotation.accesses.push_back(parse_access(annotation.accesses));
      if (peek().kind == TokenKind::end) break;
      if (!peek().is(",")) fail("',' and another access, or the end of the annotation");
      next();
    }
    return annotation;
  }

 private:
  const Token& peek() const { return tokens_[at_]; }
  const Token& next() {
    const Token& token = tokens_[at_];
    if (token.kind != TokenKind::end) ++at_;
    return token;
  }

  [[noreturn]] void fail_at(std::size_t offset, std::string reason) const {
    throw AnnotationError(text_, offset, std::move(reason));
  }
  // Fails at the next token, saying what was expected instead of it.
  [[noreturn]] void fail(std::string_view expected) const {
    fail_at(peek().offset, fmt::format("expected {}, found {}", expected, peek().describe()));
  }
  void expect(std::string_view symbol, std::string_view expected) {
    if (!peek().is(symbol)) fail(expected);
    next();
  }

  Binding parse_binding() {
    if (peek().is("global")) {
      next();
      return Binding::global;
    }
    if (peek().is("block")) {
      next();
      return Binding::block;
    }
    if (peek().is("local")) {
      next();
      return Binding::local;
    }
    fail("a binding: global, block or local");
  }

  std::vector<std::string> parse_variables() {
    std::vector<std::string> variables;
    auto add_variable = [&] {
      if (peek().kind != TokenKind::name) fail("the name of a variable to bind");
      const Token& name = next();
      if (std::find(variables.begin(), variables.end(), name.text) != variables.end()) {
        fail_at(name.offset, fmt::format("variable '{}' is bound twice", name.text));
      }
      if (variables.size() == max_variables) {
        fail_at(name.offset, "at most 3 variables can be bound (dimensions x, y, z)");
      }
      variables.emplace_back(name.text);
    };
    if (!peek().is("[")) {
      if (peek().kind != TokenKind::name) fail("a variable name, or '[' and 1 to 3 of them");
      add_variable();
      return variables;
    }
    next();
    add_variable();
    while (peek().is(",")) {
      next();
      add_variable();
    }
    expect("]", "',' or ']' after a bound variable");
    return variables;
  }

  Access parse_access(const std::vector<Access>& earlier) {
    Access access;
    const std::string_view modes = "an access mode: read, write, readwrite or reduce(+|*|min|max)";
    if (peek().kind != TokenKind::name) fail(modes);
    const Token& mode = next();
    if (mode.text == "read") {
      access.mode = AccessMode::read;
    } else if (mode.text == "write") {
      access.mode = AccessMode::write;
    } else if (mode.text == "readwrite") {
      access.mode = AccessMode::readwrite;
    } else if (mode.text == "reduce") {
      access.mode = AccessMode::reduce;
      expect("(",
             "'(' and a reduction after reduce: reduce(+), reduce(*), reduce(min) or "
             "reduce(max)");
      access.reduce_op = parse_reduce_op();
      expect(")", "')' after the reduction");
    } else {
      fail_at(mode.offset, fmt::format("expected {}, found {}", modes, mode.describe()));
    }
    if (peek().kind != TokenKind::name) fail("the name of an array argument");
    const Token& name = next();
    access.array = std::string(name.text);
    access.offset = name.offset;
    if (std::find(variables_->begin(), variables_->end(), name.text) != variables_->end()) {
      fail_at(name.offset, fmt::format("'{}' is a bound variable, expected the name of an array "
                                       "argument",
                                       name.text));
    }
    for (const Access& other : earlier) {
      if (other.array == access.array) {
        fail_at(name.offset,
                fmt::format("array '{}' is already accessed (column {}); give one access per "
                            "array: readwrite to read and write it",
                            name.text, other.offset + 1));
      }
    }
    if (peek().is("[")) {
      next();
      access.indices = parse_indices(access.array);
    }
    return access;
  }

  ReduceOp parse_reduce_op() {
    const Token& op = peek();
    ReduceOp result = ReduceOp::sum;
    if (op.is("+")) {
      result = ReduceOp::sum;
    } else if (op.is("*")) {
      result = ReduceOp::product;
    } else if (op.is("min")) {
      result = ReduceOp::min;
    } else if (op.is("max")) {
      result = ReduceOp::max;
    } else {
      fail("a reduction: +, *, min or max");
    }
    next();
    return result;
  }

  // After '[': the indices and the closing ']'.
  std::vector<Index> parse_indices(const std::string& array) {
    std::vector<Index> indices;
    if (peek().is("]")) {
      fail("an index; a 0-d array is named without brackets");
    }
    while (true) {
      if (indices.size() == max_dimensions) {
        fail_at(peek().offset, "arrays have at most 3 dimensions");
      }
      const bool slice = parse_index(indices);
      if (peek().is("]")) break;
      if (!peek().is(",")) {
        fail(slice ? fmt::format("an operator (+ - *), ',' or ']' in the indices of '{}' "
                                 "(slices have no step)",
                                 array)
                   : fmt::format("an operator (+ - *), ':', ',' or ']' in the indices of '{}'",
                                 array));
      }
      next();
    }
    next();
    return indices;
  }

  // One index: an expression or a slice [lower]:[upper]; returns whether it is a slice.
  bool parse_index(std::vector<Index>& indices) {
    std::optional<AffineExpression> lower;
    if (!peek().is(":"))
      lower = parse_expression("an index: an expression, or a slice lower:upper");
    if (!peek().is(":")) {
      indices.emplace_back(std::move(*lower));
      return false;
    }
    next();
    Slice slice;
    slice.lower = std::move(lower);
    if (!peek().is(",") && !peek().is("]")) {
      slice.upper = parse_expression("the slice's upper bound, ',' or ']'");
    }
    indices.emplace_back(std::move(slice));
    return true;
  }

  AffineExpression parse_expression(std::string_view expected) {
    const Token& first = peek();
    const bool starts = first.kind == TokenKind::name || first.kind == TokenKind::integer ||
                        first.is("(") || first.is("+") || first.is("-");
    if (!starts) fail(expected);
    AffineExpression expression;
    expression.offset = first.offset;
    expression.terms = parse_sum(0);
    const Token& last = tokens_[at_ - 1];
    expression.length = last.offset + last.text.size() - first.offset;
    std::sort(
        expression.terms.begin(), expression.terms.end(),
        [](const AffineTerm& a, const AffineTerm& b) { return term_order(a) < term_order(b); });
    return expression;
  }

  using Terms = std::vector<AffineTerm>;

  Terms parse_sum(int depth) {
    Terms sum = parse_product(depth);
    while (peek().is("+") || peek().is("-")) {
      const Token& op = next();
      Terms right = parse_product(depth);
      if (op.is("-")) negate(right, op);
      for (AffineTerm& term : right)
        add_term(sum, std::move(term), op);
    }
    return sum;
  }

  Terms parse_product(int depth) {
    Terms product = parse_factor(depth);
    while (peek().is("*")) {
      const Token& op = next();
      const std::size_t right_offset = peek().offset;
      product = multiply(product, parse_factor(depth), op, right_offset);
    }
    return product;
  }

  Terms parse_factor(int depth) {
    bool negative = false;
    const Token& sign = peek();
    while (peek().is("+") || peek().is("-"))
      negative ^= next().is("-");
    Terms factor;
    const Token& token = peek();
    if (token.kind == TokenKind::integer) {
      next();
      if (token.value != 0) factor.push_back(AffineTerm{token.value, -1, "", token.offset});
    } else if (token.kind == TokenKind::name) {
      next();
      const auto found = std::find(variables_->begin(), variables_->end(), token.text);
      if (found != variables_->end()) {
        factor.push_back(
            AffineTerm{1, static_cast<int>(found - variables_->begin()), "", token.offset});
      } else {
        factor.push_back(AffineTerm{1, -1, std::string(token.text), token.offset});
      }
    } else if (token.is("(")) {
      if (depth == max_parenthesis_depth) {
        fail_at(token.offset, "parentheses nest deeper than 32 levels");
      }
      next();
      factor = parse_sum(depth + 1);
      expect(")", "an operator (+ - *) or ')'");
    } else {
      fail("a name, an integer or '('");
    }
    if (negative) negate(factor, sign);
    return factor;
  }

  void negate(Terms& terms, const Token& op) const {
    for (AffineTerm& term : terms) {
      if (!detail::checked_multiply(term.coefficient, -1, term.coefficient)) overflow(op);
    }
  }

  void add_term(Terms& sum, AffineTerm term, const Token& op) const {
    for (auto it = sum.begin(); it != sum.end(); ++it) {
      if (it->variable == term.variable && it->scalar == term.scalar) {
        if (!detail::checked_add(it->coefficient, term.coefficient, it->coefficient)) overflow(op);
        if (it->coefficient == 0) sum.erase(it);
        return;
      }
    }
    if (term.coefficient != 0) sum.push_back(std::move(term));
  }

  Terms multiply(const Terms& left, const Terms& right, const Token& op,
                 std::size_t right_offset) const {
    Terms product;
    for (const AffineTerm& a : left) {
      for (const AffineTerm& b : right) {
        if (a.variable >= 0 && b.variable >= 0) {
          fail_at(right_offset,
                  fmt::format("the product of bound variables '{}' and '{}' is not linear: a term "
                              "holds one bound variable at most",
                              (*variables_)[static_cast<std::size_t>(a.variable)],
                              (*variables_)[static_cast<std::size_t>(b.variable)]));
        }
        if (!a.scalar.empty() && !b.scalar.empty()) {
          fail_at(right_offset,
                  fmt::format("the product of scalar arguments '{}' and '{}' is not linear: a "
                              "term holds one scalar argument at most",
                              a.scalar, b.scalar));
        }
        AffineTerm term;
        if (!detail::checked_multiply(a.coefficient, b.coefficient, term.coefficient)) {
          overflow(op);
        }
        term.variable = std::max(a.variable, b.variable);
        term.scalar = a.scalar.empty() ? b.scalar : a.scalar;
        // Where the scalar stands, for errors that name it; else where the variable does.
        if (!a.scalar.empty() || (b.scalar.empty() && a.variable >= 0)) {
          term.offset = a.offset;
        } else {
          term.offset = b.offset;
        }
        add_term(product, std::move(term), op);
      }
    }
    return product;
  }

  [[noreturn]] void overflow(const Token& op) const {
    fail_at(op.offset, "this constant does not fit in 64 bits");
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  std::size_t at_ = 0;
  const std::vector<std::string>* variables_ = nullptr;
};

}  // namespace

Annotation parse_annotation(std::string_view text) {
  return Parser(text).parse();
}

}  // namespace strata::array
