// Random annotations and launches against brute force: every thread of a superblock evaluates its
// indices (from the generator's own model, not from the parsed tree), and the computed region must
// be the clamped hull of what the threads index — exactly the bounding box of the touched
// elements when no thread's slice is empty, and a box holding every touched element otherwise.

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>

#include "strata/array/access_region.hpp"

namespace strata::array {
namespace {

// c × [scalar] × [variable]
struct ModelTerm {
  std::int64_t coefficient = 0;
  int variable = -1;
  int scalar = -1;
};
using ModelExpression = std::vector<ModelTerm>;

struct ModelIndex {
  bool slice = false;
  std::optional<ModelExpression> lower;  // the expression of a single index
  std::optional<ModelExpression> upper;
};

struct ModelAccess {
  std::string array;
  std::vector<ModelIndex> indices;
};

struct Case {
  Binding binding = Binding::global;
  std::vector<std::string> variables;
  std::vector<std::string> scalars;
  std::vector<std::int64_t> scalar_values;
  std::vector<ModelAccess> accesses;
  std::string text;
  LaunchGeometry geometry;
  Superblock superblock;
  LaunchArguments arguments;
};

class Generator {
 public:
  explicit Generator(std::uint64_t seed) : random_(seed) {}

  Case next() {
    Case c;
    c.binding = static_cast<Binding>(uniform(0, 2));
    const int dims = static_cast<int>(uniform(1, 3));
    const bool xyz = uniform(0, 1) == 1;
    for (int d = 0; d < dims; ++d) {
      c.variables.push_back(
          xyz ? std::string(1, static_cast<char>('x' + d))
              : std::vector<std::string>{"i", "j", "l"}[static_cast<std::size_t>(d)]);
    }
    for (const char* name : {"k", "m", "n"}) {
      if (uniform(0, 1) == 1) continue;
      c.scalars.push_back(name);
      c.scalar_values.push_back(uniform(-4, 4));
      c.arguments.scalars[name] = c.scalar_values.back();
    }
    const std::int64_t max_grid = dims == 1 ? 60 : dims == 2 ? 15 : 7;
    for (int d = 0; d < 3; ++d) {
      const auto grid = static_cast<std::uint64_t>(d < dims ? uniform(1, max_grid) : 1);
      const auto block = static_cast<std::uint64_t>(d < dims ? uniform(1, 6) : 1);
      c.geometry.grid[static_cast<std::size_t>(d)] = grid;
      c.geometry.block[static_cast<std::size_t>(d)] = block;
    }
    const auto blocks = c.geometry.blocks();
    for (std::size_t d = 0; d < 3; ++d) {
      const auto a =
          static_cast<std::uint64_t>(uniform(0, static_cast<std::int64_t>(blocks[d]) - 1));
      const auto b =
          static_cast<std::uint64_t>(uniform(0, static_cast<std::int64_t>(blocks[d]) - 1));
      c.superblock.lower[d] = std::min(a, b);
      c.superblock.upper[d] = std::max(a, b) + 1;
    }
    const auto arrays = uniform(1, 3);
    for (std::int64_t a = 0; a < arrays; ++a) {
      ModelAccess access;
      access.array = "A" + std::to_string(a);
      const auto rank = uniform(0, 3);
      std::vector<std::uint64_t> shape;
      for (std::int64_t d = 0; d < rank; ++d) {
        shape.push_back(static_cast<std::uint64_t>(uniform(1, 12)));
        ModelIndex index;
        index.slice = uniform(0, 2) == 0;
        if (!index.slice || uniform(0, 3) > 0) index.lower = expression(c);
        if (index.slice && uniform(0, 3) > 0) index.upper = expression(c);
        access.indices.push_back(std::move(index));
      }
      c.arguments.shapes[access.array] = shape;
      c.accesses.push_back(std::move(access));
    }
    c.text = render(c);
    return c;
  }

 private:
  std::int64_t uniform(std::int64_t low, std::int64_t high) {
    return std::uniform_int_distribution<std::int64_t>(low, high)(random_);
  }

  ModelExpression expression(const Case& c) {
    ModelExpression terms;
    const auto count = uniform(0, 3);
    for (std::int64_t t = 0; t < count; ++t) {
      ModelTerm term;
      term.coefficient = uniform(-3, 3);
      if (uniform(0, 3) > 0)
        term.variable = static_cast<int>(uniform(0, std::ssize(c.variables) - 1));
      if (!c.scalars.empty() && uniform(0, 2) == 0) {
        term.scalar = static_cast<int>(uniform(0, std::ssize(c.scalars) - 1));
      }
      if (term.variable < 0 && term.scalar < 0) term.coefficient = uniform(-6, 6);
      terms.push_back(term);
    }
    return terms;
  }

  std::string space() { return uniform(0, 2) == 0 ? " " : ""; }

  // One term, its factors in a random order, sometimes in parentheses or with a unary minus.
  std::string render(const Case& c, const ModelTerm& term, bool first) {
    std::vector<std::string> factors;
    if (term.variable >= 0) factors.push_back(c.variables[static_cast<std::size_t>(term.variable)]);
    if (term.scalar >= 0) factors.push_back(c.scalars[static_cast<std::size_t>(term.scalar)]);
    std::shuffle(factors.begin(), factors.end(), random_);
    std::int64_t shown = term.coefficient;
    std::string sign;
    if (!first) {
      sign = shown < 0 && uniform(0, 1) == 0 ? "-" : "+";
      if (sign == "-") shown = -shown;
    }
    std::string text;
    if (shown == 1 && !factors.empty() && uniform(0, 1) == 0) {
      text = factors[0];
      for (std::size_t f = 1; f < factors.size(); ++f)
        text += "*" + factors[f];
    } else if (shown == -1 && !factors.empty() && uniform(0, 1) == 0) {
      text = "-" + factors[0];
      for (std::size_t f = 1; f < factors.size(); ++f)
        text += "*" + factors[f];
    } else {
      const std::string number =
          shown < 0 ? "(" + std::to_string(shown) + ")" : std::to_string(shown);
      factors.insert(factors.begin() + uniform(0, std::ssize(factors)), number);
      text = factors[0];
      for (std::size_t f = 1; f < factors.size(); ++f)
        text += space() + "*" + space() + factors[f];
    }
    if (uniform(0, 4) == 0) text = "(" + text + ")";
    return first ? text : space() + sign + space() + text;
  }

  std::string render(const Case& c, const ModelExpression& expression) {
    if (expression.empty()) return "0";
    std::string text;
    for (std::size_t t = 0; t < expression.size(); ++t)
      text += render(c, expression[t], t == 0);
    return text;
  }

  std::string render(const Case& c) {
    const char* bindings[] = {"global", "block", "local"};
    std::string text = bindings[static_cast<int>(c.binding)];
    if (c.variables.size() == 1 && uniform(0, 1) == 0) {
      text += " " + c.variables[0];
    } else {
      text += " [";
      for (std::size_t v = 0; v < c.variables.size(); ++v) {
        text += (v ? "," + space() : "") + c.variables[v];
      }
      text += "]";
    }
    text += space() + "=>";
    const char* modes[] = {"read", "write", "readwrite", "reduce(+)", "reduce(min)"};
    for (std::size_t a = 0; a < c.accesses.size(); ++a) {
      text += (a ? "," : "") + std::string(" ") + modes[uniform(0, 4)] + " " + c.accesses[a].array;
      if (c.accesses[a].indices.empty()) continue;
      text += "[";
      for (std::size_t d = 0; d < c.accesses[a].indices.size(); ++d) {
        const ModelIndex& index = c.accesses[a].indices[d];
        if (d > 0) text += "," + space();
        if (index.lower) text += render(c, *index.lower);
        if (index.slice) text += space() + ":" + space();
        if (index.upper) text += render(c, *index.upper);
      }
      text += "]";
    }
    return text;
  }

  std::mt19937_64 random_;
};

std::int64_t evaluate(const Case& c, const ModelExpression& expression,
                      const std::array<std::int64_t, 3>& variables) {
  std::int64_t value = 0;
  for (const ModelTerm& term : expression) {
    std::int64_t product = term.coefficient;
    if (term.scalar >= 0) product *= c.scalar_values[static_cast<std::size_t>(term.scalar)];
    if (term.variable >= 0) product *= variables[static_cast<std::size_t>(term.variable)];
    value += product;
  }
  return value;
}

// Every thread of the superblock that lies in the grid: the values of the bound variables.
std::vector<std::array<std::int64_t, 3>> threads(const Case& c) {
  std::array<std::vector<std::int64_t>, 3> values;
  for (std::size_t d = 0; d < 3; ++d) {
    for (std::uint64_t b = c.superblock.lower[d]; b < c.superblock.upper[d]; ++b) {
      for (std::uint64_t l = 0; l < c.geometry.block[d]; ++l) {
        const std::uint64_t g = b * c.geometry.block[d] + l;
        if (g >= c.geometry.grid[d]) continue;
        const std::uint64_t value = c.binding == Binding::global  ? g
                                    : c.binding == Binding::block ? b
                                                                  : l;
        values[d].push_back(static_cast<std::int64_t>(value));
      }
    }
  }
  std::vector<std::array<std::int64_t, 3>> all;
  for (std::int64_t x : values[0]) {
    for (std::int64_t y : values[1]) {
      for (std::int64_t z : values[2])
        all.push_back({x, y, z});
    }
  }
  return all;
}

std::array<std::uint64_t, 2> clamped(std::int64_t lower, std::int64_t last, std::uint64_t extent) {
  const auto n = static_cast<std::int64_t>(extent);
  const std::int64_t low = std::clamp<std::int64_t>(lower, 0, n);
  const std::int64_t high = std::clamp<std::int64_t>(last + 1, low, n);
  return {static_cast<std::uint64_t>(low), static_cast<std::uint64_t>(high)};
}

TEST(AccessRegionRandom, MatchesBruteForceOverEveryThread) {
  Generator generator(20240611);
  int exact_cases = 0;
  int cases = 0;
  for (int n = 0; n < 3000; ++n) {
    const Case c = generator.next();
    SCOPED_TRACE(c.text);
    const Annotation annotation = parse_annotation(c.text);
    ASSERT_EQ(parse_annotation(to_string(annotation)), annotation) << to_string(annotation);
    const std::vector<AccessRegion> regions =
        access_regions(annotation, c.geometry, c.superblock, c.arguments);
    ASSERT_EQ(regions.size(), c.accesses.size());
    const auto all = threads(c);
    for (std::size_t a = 0; a < c.accesses.size(); ++a) {
      const ModelAccess& access = c.accesses[a];
      const std::vector<std::uint64_t>& shape = c.arguments.shapes.at(access.array);
      const std::size_t rank = shape.size();
      constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max();
      // Per dimension: the hull of every thread's indices, and the bounding box of the index
      // tuples the threads touch (a thread with an empty slice touches none).
      std::vector<std::array<std::int64_t, 2>> hull(rank, {none, -none});
      std::vector<std::array<std::int64_t, 2>> touched(rank, {none, -none});
      bool every_thread_touches = true;
      for (const auto& variables : all) {
        std::vector<std::array<std::int64_t, 2>> box(rank);
        bool touches = true;
        for (std::size_t d = 0; d < rank; ++d) {
          const ModelIndex& index = access.indices[d];
          box[d][0] = index.lower ? evaluate(c, *index.lower, variables) : 0;
          box[d][1] = !index.slice  ? box[d][0]
                      : index.upper ? evaluate(c, *index.upper, variables)
                                    : static_cast<std::int64_t>(shape[d]) - 1;
          touches = touches && box[d][0] <= box[d][1];
          hull[d] = {std::min(hull[d][0], box[d][0]), std::max(hull[d][1], box[d][1])};
        }
        every_thread_touches = every_thread_touches && touches;
        if (!touches) continue;
        for (std::size_t d = 0; d < rank; ++d) {
          touched[d] = {std::min(touched[d][0], box[d][0]), std::max(touched[d][1], box[d][1])};
        }
      }
      const AccessRegion& region = regions[a];
      ASSERT_EQ(region.array, access.array);
      ASSERT_EQ(region.lower.size(), rank);
      bool exact = true;
      bool touched_empty = false;
      for (std::size_t d = 0; d < rank; ++d) {
        const auto expected = clamped(hull[d][0], hull[d][1], shape[d]);
        EXPECT_EQ(region.lower[d], expected[0]) << "dimension " << d << ", " << region.describe();
        EXPECT_EQ(region.upper[d], expected[1]) << "dimension " << d << ", " << region.describe();
        if (touched[d][0] == none) {
          touched_empty = true;
          continue;
        }
        const auto box = clamped(touched[d][0], touched[d][1], shape[d]);
        touched_empty = touched_empty || box[0] == box[1];
        exact = exact && box == std::array{region.lower[d], region.upper[d]};
        // Every touched element lies in the region.
        if (box[0] < box[1]) {
          EXPECT_LE(region.lower[d], box[0]) << region.describe();
          EXPECT_GE(region.upper[d], box[1]) << region.describe();
        }
      }
      ++cases;
      if (every_thread_touches) {
        // Exact: the clamped bounding box of the touched index tuples.
        if (touched_empty) {
          EXPECT_TRUE(region.empty()) << region.describe();
        } else {
          EXPECT_TRUE(exact) << region.describe();
        }
        ++exact_cases;
      }
    }
  }
  // Most accesses have no empty slice, so the exact check is the common one.
  EXPECT_GT(exact_cases, cases / 2);
}

}  // namespace
}  // namespace strata::array
