// Parsing annotations: the paper's examples and the rest of the grammar, checked on the tree.

#include <gtest/gtest.h>

#include "strata/array/annotation.hpp"
#include "strata/array/annotation_error.hpp"

namespace strata::array {
namespace {

AffineTerm term(std::int64_t coefficient, int variable = -1, std::string scalar = "") {
  return AffineTerm{coefficient, variable, std::move(scalar), 0};
}

const AffineExpression& element(const Access& access, std::size_t d) {
  return std::get<AffineExpression>(access.indices.at(d));
}
const Slice& slice(const Access& access, std::size_t d) {
  return std::get<Slice>(access.indices.at(d));
}

TEST(AnnotationParse, StencilOfThePaper) {
  const Annotation a = parse_annotation("global i => read A[i-1:i+1], write B[i]");
  EXPECT_EQ(a.binding, Binding::global);
  EXPECT_EQ(a.variables, std::vector<std::string>{"i"});
  ASSERT_EQ(a.accesses.size(), 2u);
  EXPECT_EQ(a.accesses[0].mode, AccessMode::read);
  EXPECT_EQ(a.accesses[0].array, "A");
  EXPECT_EQ(a.accesses[0].offset, 17u);
  const Slice& s = slice(a.accesses[0], 0);
  ASSERT_TRUE(s.lower && s.upper);
  EXPECT_EQ(s.lower->terms, (std::vector{term(1, 0), term(-1)}));
  EXPECT_EQ(s.upper->terms, (std::vector{term(1, 0), term(1)}));
  EXPECT_EQ(s.lower->offset, 19u);
  EXPECT_EQ(s.lower->length, 3u);
  EXPECT_EQ(a.accesses[1].mode, AccessMode::write);
  EXPECT_EQ(element(a.accesses[1], 0).terms, std::vector{term(1, 0)});
}

TEST(AnnotationParse, MatrixMultiplicationOfThePaper) {
  const Annotation a = parse_annotation("global [i, j] => read A[i,:], read B[:,j], write C[i,j]");
  EXPECT_EQ(a.variables, (std::vector<std::string>{"i", "j"}));
  ASSERT_EQ(a.accesses.size(), 3u);
  EXPECT_EQ(element(a.accesses[0], 0).terms, std::vector{term(1, 0)});
  EXPECT_EQ(slice(a.accesses[0], 1), Slice{});
  EXPECT_EQ(slice(a.accesses[1], 0), Slice{});
  EXPECT_EQ(element(a.accesses[1], 1).terms, std::vector{term(1, 1)});
  EXPECT_EQ(a.accesses[2].indices.size(), 2u);
}

TEST(AnnotationParse, ReductionOfThePaper) {
  const Annotation a = parse_annotation("global [i, j] => read A[i,j], reduce(+) sum[i]");
  ASSERT_EQ(a.accesses.size(), 2u);
  EXPECT_EQ(a.accesses[1].mode, AccessMode::reduce);
  EXPECT_EQ(a.accesses[1].reduce_op, ReduceOp::sum);
  EXPECT_EQ(a.accesses[1].array, "sum");
}

TEST(AnnotationParse, EveryModeAndReduction) {
  const Annotation a = parse_annotation(
      "block [x,y,z] => read a[x], write b[y], readwrite c[z], reduce(+) d[x], reduce(*) e[x], "
      "reduce(min) f[x], reduce( max ) g[x]");
  EXPECT_EQ(a.binding, Binding::block);
  ASSERT_EQ(a.accesses.size(), 7u);
  EXPECT_EQ(a.accesses[2].mode, AccessMode::readwrite);
  EXPECT_EQ(a.accesses[3].reduce_op, ReduceOp::sum);
  EXPECT_EQ(a.accesses[4].reduce_op, ReduceOp::product);
  EXPECT_EQ(a.accesses[5].reduce_op, ReduceOp::min);
  EXPECT_EQ(a.accesses[6].reduce_op, ReduceOp::max);
  EXPECT_EQ(parse_annotation("local t => write s[t]").binding, Binding::local);
}

TEST(AnnotationParse, ScalarArgumentsMultiplyVariables) {
  const Annotation a = parse_annotation("global i => read A[i*k : i*k+k-1]");
  const Slice& s = slice(a.accesses[0], 0);
  EXPECT_EQ(s.lower->terms, std::vector{term(1, 0, "k")});
  EXPECT_EQ(s.upper->terms, (std::vector{term(1, 0, "k"), term(1, -1, "k"), term(-1)}));
  EXPECT_EQ(s.upper->terms[1].offset, 29u);  // where 'k' stands alone
}

TEST(AnnotationParse, ProductsAreMultipliedOut) {
  const Annotation a = parse_annotation("global [i, j] => read A[(i + 1)*2*k - (j - 3)*-2 + 0*j]");
  // 2*k*i + 2*k + 2*j - 6, in the canonical order: variables, then scalars, then the constant.
  EXPECT_EQ(element(a.accesses[0], 0).terms,
            (std::vector{term(2, 0, "k"), term(2, 1), term(2, -1, "k"), term(-6)}));
}

TEST(AnnotationParse, TermsThatCancelLeaveZero) {
  const Annotation a = parse_annotation("global i => read A[i - i + k - k]");
  EXPECT_TRUE(element(a.accesses[0], 0).terms.empty());
  EXPECT_EQ(to_string(a), "global i => read A[0]");
}

TEST(AnnotationParse, SlicesWithOneBound) {
  const Annotation a = parse_annotation("global i => read A[i:, :i, :]");
  EXPECT_TRUE(slice(a.accesses[0], 0).lower && !slice(a.accesses[0], 0).upper);
  EXPECT_TRUE(!slice(a.accesses[0], 1).lower && slice(a.accesses[0], 1).upper);
  EXPECT_EQ(slice(a.accesses[0], 2), Slice{});
}

TEST(AnnotationParse, ZeroDimensionalArrayIsNamedAlone) {
  const Annotation a = parse_annotation("global i => read A[i], reduce(max) largest");
  EXPECT_TRUE(a.accesses[1].indices.empty());
  EXPECT_EQ(to_string(a), "global i => read A[i], reduce(max) largest");
}

TEST(AnnotationParse, SpansLinesAndKeywordsAreOnlyContextual) {
  const Annotation a =
      parse_annotation("global  read\t=> read input[read-1:read+1],\n  write max[read]");
  EXPECT_EQ(a.variables, std::vector<std::string>{"read"});
  EXPECT_EQ(a.accesses[1].array, "max");
}

TEST(AnnotationParse, CanonicalTextParsesBackToTheSameAnnotation) {
  for (const char* text : {
           "global i => read A[i-1:i+1], write B[i]",
           "global [i, j] => read A[i,:], read B[:,j], write C[i,j]",
           "global [i, j] => read A[i,j], reduce(+) sum[i]",
           "block [b, c] => readwrite T[-b*k - 1 : 3*k*c + n, 7, :c], reduce(*) p[c]",
           "local [x, y, z] => read A[-(x - 2*y) : z*m], write B[-9223372036854775807]",
       }) {
    const Annotation a = parse_annotation(text);
    const std::string canonical = to_string(a);
    EXPECT_EQ(parse_annotation(canonical), a) << text << " -> " << canonical;
    EXPECT_EQ(to_string(parse_annotation(canonical)), canonical);
  }
  EXPECT_EQ(to_string(parse_annotation("global [i,j]=>read A[ i*k+k-1 :],write B[(j)]")),
            "global [i, j] => read A[k*i + k - 1:], write B[j]");
}

}  // namespace
}  // namespace strata::array
