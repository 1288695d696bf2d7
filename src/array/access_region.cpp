// Access regions of a superblock: interval arithmetic over the box of the bound variables.

#include "strata/array/access_region.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "checked_arithmetic.hpp"
#include "strata/array/annotation_error.hpp"
#include "strata/base/error.hpp"

namespace strata::array {
namespace {

// Grids beyond this are refused, so that block arithmetic never overflows.
constexpr std::uint64_t max_extent = std::uint64_t{1} << 62;

// 128-bit integers for the bounds before clamping (an inclusive upper bound of 2^63 - 1 ends at
// 2^63).
__extension__ typedef __int128 Wide;

using Ranges = std::vector<std::array<std::int64_t, 2>>;

// The smallest and largest value of an expression as the variables go over their ranges.
struct Hull {
  std::int64_t min = 0;
  std::int64_t max = 0;
};

template <class Map>
std::string names(const Map& map) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : map)
    keys.push_back(key);
  return keys.empty() ? "none" : fmt::format("{}", fmt::join(keys, ", "));
}

Hull hull(const AffineExpression& expression, const Ranges& ranges, const Annotation& annotation,
          const LaunchArguments& arguments) {
  const auto overflow = [&] {
    return AnnotationError(annotation.text, expression.offset,
                           "this index overflows 64 bits at this launch");
  };
  // With the scalars' values, the expression is a constant plus one coefficient per variable
  // (k*i + 2*i is (k + 2)*i: its sign, not each term's, says which end of i's range is smallest).
  std::int64_t constant = 0;
  std::vector<std::int64_t> coefficients(ranges.size(), 0);
  for (const AffineTerm& term : expression.terms) {
    std::int64_t factor = term.coefficient;
    if (!term.scalar.empty()) {
      const auto found = arguments.scalars.find(term.scalar);
      if (found == arguments.scalars.end()) {
        throw AnnotationError(annotation.text, term.offset,
                              fmt::format("'{}' is neither a bound variable nor a scalar argument "
                                          "of the launch (its scalars: {})",
                                          term.scalar, names(arguments.scalars)));
      }
      if (!detail::checked_multiply(factor, found->second, factor)) throw overflow();
    }
    std::int64_t& sum =
        term.variable >= 0 ? coefficients.at(static_cast<std::size_t>(term.variable)) : constant;
    if (!detail::checked_add(sum, factor, sum)) throw overflow();
  }
  Hull result{constant, constant};
  for (std::size_t v = 0; v < ranges.size(); ++v) {
    const std::int64_t factor = coefficients[v];
    const std::int64_t first = ranges[v][0];
    const std::int64_t last = ranges[v][1] - 1;
    std::int64_t low = 0;
    std::int64_t high = 0;
    if (!detail::checked_multiply(factor, factor >= 0 ? first : last, low) ||
        !detail::checked_multiply(factor, factor >= 0 ? last : first, high) ||
        !detail::checked_add(result.min, low, result.min) ||
        !detail::checked_add(result.max, high, result.max)) {
      throw overflow();
    }
  }
  return result;
}

// [lower, upper) clamped to [0, extent], empty (lower == upper) where upper <= lower.
std::array<std::uint64_t, 2> clamp(Wide lower, Wide upper, std::uint64_t extent) {
  const Wide n = extent;
  const Wide low = std::clamp<Wide>(lower, 0, n);
  const Wide high = std::clamp<Wide>(upper, low, n);
  return {static_cast<std::uint64_t>(low), static_cast<std::uint64_t>(high)};
}

AccessRegion region(const Access& access, const Ranges& ranges, const Annotation& annotation,
                    const LaunchArguments& arguments) {
  const auto shape = arguments.shapes.find(access.array);
  if (shape == arguments.shapes.end()) {
    throw AnnotationError(annotation.text, access.offset,
                          fmt::format("the launch has no array argument '{}' (its arrays: {})",
                                      access.array, names(arguments.shapes)));
  }
  const std::vector<std::uint64_t>& extents = shape->second;
  if (extents.size() != access.indices.size()) {
    throw AnnotationError(
        annotation.text, access.offset,
        fmt::format("'{}' has {} dimension{} but the annotation gives it {} "
                    "ind{}",
                    access.array, extents.size(), extents.size() == 1 ? "" : "s",
                    access.indices.size(), access.indices.size() == 1 ? "ex" : "ices"));
  }
  AccessRegion result;
  result.array = access.array;
  result.mode = access.mode;
  result.reduce_op = access.reduce_op;
  for (std::size_t d = 0; d < extents.size(); ++d) {
    Wide lower = 0;
    Wide upper = extents[d];
    if (const auto* expression = std::get_if<AffineExpression>(&access.indices[d])) {
      const Hull h = hull(*expression, ranges, annotation, arguments);
      lower = h.min;
      upper = static_cast<Wide>(h.max) + 1;
    } else {
      const auto& slice = std::get<Slice>(access.indices[d]);
      if (slice.lower) lower = hull(*slice.lower, ranges, annotation, arguments).min;
      if (slice.upper)
        upper = static_cast<Wide>(hull(*slice.upper, ranges, annotation, arguments).max) + 1;
    }
    const auto [low, high] = clamp(lower, upper, extents[d]);
    result.lower.push_back(low);
    result.upper.push_back(high);
  }
  return result;
}

}  // namespace

std::array<std::uint64_t, 3> LaunchGeometry::blocks() const {
  std::array<std::uint64_t, 3> result{};
  for (std::size_t d = 0; d < 3; ++d) {
    result[d] = block[d] == 0 ? 0 : grid[d] / block[d] + (grid[d] % block[d] != 0 ? 1 : 0);
  }
  return result;
}

bool AccessRegion::empty() const {
  for (std::size_t d = 0; d < lower.size(); ++d) {
    if (lower[d] >= upper[d]) return true;
  }
  return false;
}

std::uint64_t AccessRegion::elements() const {
  if (empty()) return 0;
  std::uint64_t count = 1;
  for (std::size_t d = 0; d < lower.size(); ++d)
    count *= upper[d] - lower[d];
  return count;
}

std::string AccessRegion::describe() const {
  std::string text(to_string(mode));
  if (mode == AccessMode::reduce) text += fmt::format("({})", to_string(reduce_op));
  text += ' ';
  text += array;
  if (lower.empty()) return text;
  std::vector<std::string> ranges;
  for (std::size_t d = 0; d < lower.size(); ++d) {
    ranges.push_back(fmt::format("{}:{}", lower[d], upper[d]));
  }
  return text + fmt::format("[{}]", fmt::join(ranges, ", "));
}

std::vector<std::array<std::int64_t, 2>> variable_ranges(Binding binding, std::size_t variables,
                                                         const LaunchGeometry& geometry,
                                                         const Superblock& superblock) {
  const auto blocks = geometry.blocks();
  for (std::size_t d = 0; d < 3; ++d) {
    if (geometry.grid[d] == 0 || geometry.block[d] == 0 || geometry.grid[d] > max_extent ||
        geometry.block[d] > max_extent) {
      throw Error(fmt::format("launch: grid {} in blocks of {} threads: each must be 1 to 2^62",
                              fmt::join(geometry.grid, "x"), fmt::join(geometry.block, "x")));
    }
    if (superblock.lower[d] >= superblock.upper[d] || superblock.upper[d] > blocks[d]) {
      throw Error(
          fmt::format("superblock [{}] to [{}]: not a non-empty box of the launch's {} "
                      "blocks",
                      fmt::join(superblock.lower, ", "), fmt::join(superblock.upper, ", "),
                      fmt::join(blocks, "x")));
    }
  }
  std::vector<std::array<std::int64_t, 2>> ranges;
  for (std::size_t d = 0; d < std::min<std::size_t>(variables, 3); ++d) {
    const std::uint64_t first_thread = superblock.lower[d] * geometry.block[d];
    std::uint64_t lower = 0;
    std::uint64_t upper = 0;
    switch (binding) {
      case Binding::global:
        lower = first_thread;
        upper = std::min(superblock.upper[d] * geometry.block[d], geometry.grid[d]);
        break;
      case Binding::block:
        lower = superblock.lower[d];
        upper = superblock.upper[d];
        break;
      case Binding::local:
        // The first block of the superblock holds the most threads in the grid (only a
        // dimension's last block can be partial).
        lower = 0;
        upper = std::min(geometry.block[d], geometry.grid[d] - first_thread);
        break;
    }
    ranges.push_back({static_cast<std::int64_t>(lower), static_cast<std::int64_t>(upper)});
  }
  return ranges;
}

std::vector<AccessRegion> access_regions(const Annotation& annotation,
                                         const LaunchGeometry& geometry,
                                         const Superblock& superblock,
                                         const LaunchArguments& arguments) {
  const Ranges ranges =
      variable_ranges(annotation.binding, annotation.variables.size(), geometry, superblock);
  std::vector<AccessRegion> regions;
  regions.reserve(annotation.accesses.size());
  for (const Access& access : annotation.accesses) {
    regions.push_back(region(access, ranges, annotation, arguments));
  }
  return regions;
}

}  // namespace strata::array
