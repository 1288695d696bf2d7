// The canonical text of annotations: what error messages, logs and the parser's round trip use.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "strata/array/annotation.hpp"

namespace strata::array {
namespace {

std::string to_string(const Index& index, const std::vector<std::string>& variables) {
  if (const auto* expression = std::get_if<AffineExpression>(&index)) {
    return to_string(*expression, variables);
  }
  const auto& slice = std::get<Slice>(index);
  std::string text;
  if (slice.lower) text += to_string(*slice.lower, variables);
  text += ':';
  if (slice.upper) text += to_string(*slice.upper, variables);
  return text;
}

}  // namespace

std::string_view to_string(Binding binding) {
  switch (binding) {
    case Binding::global:
      return "global";
    case Binding::block:
      return "block";
    case Binding::local:
      return "local";
  }
  return "?";
}

std::string_view to_string(AccessMode mode) {
  switch (mode) {
    case AccessMode::read:
      return "read";
    case AccessMode::write:
      return "write";
    case AccessMode::readwrite:
      return "readwrite";
    case AccessMode::reduce:
      return "reduce";
  }
  return "?";
}

std::string to_string(const AffineExpression& expression,
                      const std::vector<std::string>& variables) {
  if (expression.terms.empty()) return "0";
  std::string text;
  for (const AffineTerm& term : expression.terms) {
    // Coefficients are never -2^63 (the parser refuses them), so the magnitude is exact.
    const bool negative = term.coefficient < 0;
    const std::int64_t magnitude = negative ? -term.coefficient : term.coefficient;
    if (text.empty()) {
      if (negative) text += '-';
    } else {
      text += negative ? " - " : " + ";
    }
    std::string factors;
    if (!term.scalar.empty()) factors = term.scalar;
    if (term.variable >= 0) {
      if (!factors.empty()) factors += '*';
      factors += variables.at(static_cast<std::size_t>(term.variable));
    }
    if (factors.empty()) {
      text += fmt::format("{}", magnitude);
    } else if (magnitude == 1) {
      text += factors;
    } else {
      text += fmt::format("{}*{}", magnitude, factors);
    }
  }
  return text;
}

std::string to_string(const Annotation& annotation) {
  std::string text(to_string(annotation.binding));
  text += ' ';
  if (annotation.variables.size() == 1) {
    text += annotation.variables.front();
  } else {
    text += fmt::format("[{}]", fmt::join(annotation.variables, ", "));
  }
  text += " =>";
  bool first = true;
  for (const Access& access : annotation.accesses) {
    text += first ? " " : ", ";
    first = false;
    text += to_string(access.mode);
    if (access.mode == AccessMode::reduce) text += fmt::format("({})", to_string(access.reduce_op));
    text += ' ';
    text += access.array;
    if (access.indices.empty()) continue;
    std::vector<std::string> indices;
    for (const Index& index : access.indices)
      indices.push_back(to_string(index, annotation.variables));
    text += fmt::format("[{}]", fmt::join(indices, ", "));
  }
  return text;
}

}  // namespace strata::array
