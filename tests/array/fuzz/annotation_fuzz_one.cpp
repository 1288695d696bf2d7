#include "annotation_fuzz_one.hpp"

#include <string>

#include "strata/array/access_region.hpp"
#include "strata/array/annotation_error.hpp"

namespace strata::array::fuzz {
namespace {

void require(bool holds, const std::string& what) {
  if (!holds) throw FuzzFailure(what);
}

void check_error(std::string_view text, const AnnotationError& error) {
  require(error.offset() <= text.size(), "error offset beyond the text");
  require(error.annotation() == text, "error quotes another text");
  require(!error.reason().empty(), "error without a reason");
  require(std::string_view(error.what()).find(error.reason()) != std::string_view::npos,
          "message lacks the reason");
  require(std::string_view(error.what()).find('^') != std::string_view::npos,
          "message lacks the caret");
}

// Scalar arguments in an expression, for giving each a value.
void collect_scalars(const AffineExpression& expression, LaunchArguments& arguments) {
  for (const AffineTerm& term : expression.terms) {
    if (!term.scalar.empty()) arguments.scalars[term.scalar] = 3;
  }
}

void evaluate(const Annotation& annotation) {
  LaunchArguments arguments;
  for (const Access& access : annotation.accesses) {
    arguments.shapes[access.array] = std::vector<std::uint64_t>(access.indices.size(), 7);
    for (const Index& index : access.indices) {
      if (const auto* expression = std::get_if<AffineExpression>(&index)) {
        collect_scalars(*expression, arguments);
      } else {
        const auto& slice = std::get<Slice>(index);
        if (slice.lower) collect_scalars(*slice.lower, arguments);
        if (slice.upper) collect_scalars(*slice.upper, arguments);
      }
    }
  }
  const LaunchGeometry geometry{{50, 9, 5}, {8, 4, 2}};
  const Superblock superblock{{1, 0, 1}, {5, 2, 3}};
  std::vector<AccessRegion> regions;
  try {
    regions = access_regions(annotation, geometry, superblock, arguments);
  } catch (const AnnotationError& error) {
    // Only overflow can fail here: every array and scalar was given.
    check_error(annotation.text, error);
    require(error.reason().find("overflows") != std::string::npos,
            "evaluation failed: " + error.reason());
    return;
  }
  require(regions.size() == annotation.accesses.size(), "one region per access");
  for (const AccessRegion& region : regions) {
    for (std::size_t d = 0; d < region.lower.size(); ++d) {
      require(region.lower[d] <= region.upper[d] && region.upper[d] <= 7,
              "region outside its array: " + region.describe());
    }
  }
}

}  // namespace

Outcome fuzz_one(std::string_view text) {
  Annotation annotation;
  try {
    annotation = parse_annotation(text);
  } catch (const AnnotationError& error) {
    check_error(text, error);
    return Outcome::rejected;
  }
  const std::string canonical = to_string(annotation);
  Annotation again;
  try {
    again = parse_annotation(canonical);
  } catch (const AnnotationError& error) {
    throw FuzzFailure("the canonical text does not parse: " + std::string(error.what()));
  }
  require(again == annotation, "the canonical text parses to another annotation: " + canonical);
  require(to_string(again) == canonical, "the canonical text is not stable: " + canonical);
  evaluate(annotation);
  return Outcome::parsed;
}

}  // namespace strata::array::fuzz
