#pragma once
// Data annotations of distributed kernels (the lightning paper, §2.3): which elements of which
// argument arrays the threads of a launch access and how, e.g.
//   global [i, j] => read A[i,:], read B[:,j], write C[i,j]
// parsed into an Annotation. Grammar, modes and errors: docs/arrays.md.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "strata/memory/combine.hpp"

namespace strata::array {

// What the bound variables index: the thread in the whole grid, the thread block in the grid, or
// the thread within its block.
enum class Binding { global, block, local };

enum class AccessMode { read, write, readwrite, reduce };

// How a reduce access combines the values that several threads write to one element: the memory
// layer's operators, which combine the partials (to_string: "+", "*", "min", "max").
using ReduceOp = memory::ReduceOp;

// One term of an affine expression: coefficient × [scalar argument] × [bound variable].
struct AffineTerm {
  std::int64_t coefficient = 0;
  int variable = -1;       // index into Annotation::variables; -1: none
  std::string scalar;      // a scalar argument of the kernel, its value known at launch; "": none
  std::size_t offset = 0;  // where the term first appears in the annotation's text (0-based)

  bool operator==(const AffineTerm& other) const {
    return coefficient == other.coefficient && variable == other.variable && scalar == other.scalar;
  }
};

// An index expression: affine in the bound variables, with coefficients that are affine in the
// kernel's scalar arguments (i-1, 2*i+j, k*i+k-1). Like terms are combined, zero terms dropped:
// the empty sum is 0.
struct AffineExpression {
  std::vector<AffineTerm> terms;
  std::size_t offset = 0;  // where the expression starts in the annotation's text (0-based)
  std::size_t length = 0;  // and how many characters it spans

  bool operator==(const AffineExpression& other) const { return terms == other.terms; }
};

// A Fortran-style slice `lower:upper`, both bounds inclusive; an omitted bound is the array's.
struct Slice {
  std::optional<AffineExpression> lower;
  std::optional<AffineExpression> upper;

  bool operator==(const Slice&) const = default;
};

// The index of one array dimension: one element, or a slice.
using Index = std::variant<AffineExpression, Slice>;

// How the threads access one argument array.
struct Access {
  AccessMode mode = AccessMode::read;
  ReduceOp reduce_op = ReduceOp::sum;  // meaningful for AccessMode::reduce only
  std::string array;
  std::size_t offset = 0;      // of the array's name in the annotation's text (0-based)
  std::vector<Index> indices;  // one per dimension of the array

  bool operator==(const Access& other) const {
    return mode == other.mode && (mode != AccessMode::reduce || reduce_op == other.reduce_op) &&
           array == other.array && indices == other.indices;
  }
};

struct Annotation {
  std::string text;  // as written
  Binding binding = Binding::global;
  std::vector<std::string> variables;  // 1 to 3: the launch's dimensions x, y, z in order
  std::vector<Access> accesses;        // at most one per array

  // Equal when they mean the same (the text and positions aside).
  bool operator==(const Annotation& other) const {
    return binding == other.binding && variables == other.variables && accesses == other.accesses;
  }
};

// Parses an annotation; throws AnnotationError (annotation_error.hpp) quoting it with a caret
// under the column at fault and what was expected there.
Annotation parse_annotation(std::string_view text);

// The canonical text of an annotation, which parses back to an equal Annotation:
// "global [i, j] => read A[i, 0:], reduce(+) sum[2*k*i - 1]".
std::string to_string(const Annotation& annotation);
std::string to_string(const AffineExpression& expression,
                      const std::vector<std::string>& variables);

std::string_view to_string(Binding binding);
std::string_view to_string(AccessMode mode);

}  // namespace strata::array
