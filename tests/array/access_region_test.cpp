// Access regions of superblocks for the paper's annotations, and the errors of evaluation.

#include "strata/array/access_region.hpp"

#include <gtest/gtest.h>

#include "strata/array/annotation_error.hpp"

namespace strata::array {
namespace {

std::vector<std::string> describe(const std::vector<AccessRegion>& regions) {
  std::vector<std::string> texts;
  for (const AccessRegion& region : regions)
    texts.push_back(region.describe());
  return texts;
}

std::vector<std::string> regions(std::string_view annotation, const LaunchGeometry& geometry,
                                 const Superblock& superblock, const LaunchArguments& arguments) {
  return describe(access_regions(parse_annotation(annotation), geometry, superblock, arguments));
}

TEST(AccessRegion, StencilHasAHaloClampedAtTheEdges) {
  const char* stencil = "global i => read A[i-1:i+1], write B[i]";
  const LaunchGeometry launch{{100, 1, 1}, {16, 1, 1}};  // 7 blocks, the last of 4 threads
  const LaunchArguments args{{{"A", {100}}, {"B", {100}}}, {}};
  EXPECT_EQ(regions(stencil, launch, {{0, 0, 0}, {2, 1, 1}}, args),
            (std::vector<std::string>{"read A[0:33]", "write B[0:32]"}));
  EXPECT_EQ(regions(stencil, launch, {{2, 0, 0}, {4, 1, 1}}, args),
            (std::vector<std::string>{"read A[31:65]", "write B[32:64]"}));
  // The last superblock ends at the grid (thread 99), not at the end of its last block.
  EXPECT_EQ(regions(stencil, launch, {{4, 0, 0}, {7, 1, 1}}, args),
            (std::vector<std::string>{"read A[63:100]", "write B[64:100]"}));
}

// The example of docs/arrays.md, as written there.
TEST(AccessRegion, ExampleOfTheGuide) {
  const auto annotation =
      strata::array::parse_annotation("global i => read A[i-1:i+1], write B[i]");
  const auto regions = strata::array::access_regions(
      annotation, {.grid = {100, 1, 1}, .block = {16, 1, 1}},  // 100 threads in blocks of 16
      {.lower = {2, 0, 0}, .upper = {4, 1, 1}},                // a superblock: blocks 2 and 3
      {.shapes = {{"A", {100}}, {"B", {100}}}, .scalars = {}});
  EXPECT_EQ(regions[0].describe(), "read A[31:65]");
  EXPECT_EQ(regions[1].describe(), "write B[32:64]");
}

TEST(AccessRegion, MatrixMultiplicationReadsRowsAndColumns) {
  const char* gemm = "global [i, j] => read A[i,:], read B[:,j], write C[i,j]";
  const LaunchGeometry launch{{8, 6, 1}, {2, 3, 1}};
  const LaunchArguments args{{{"A", {8, 5}}, {"B", {5, 6}}, {"C", {8, 6}}}, {}};
  EXPECT_EQ(
      regions(gemm, launch, {{1, 1, 0}, {3, 2, 1}}, args),
      (std::vector<std::string>{"read A[2:6, 0:5]", "read B[0:5, 3:6]", "write C[2:6, 3:6]"}));
}

TEST(AccessRegion, ReductionAlongColumns) {
  const char* reduction = "global [i, j] => read A[i,j], reduce(+) sum[i]";
  const LaunchGeometry launch{{10, 10, 1}, {5, 5, 1}};
  const LaunchArguments args{{{"A", {10, 10}}, {"sum", {10}}}, {}};
  EXPECT_EQ(regions(reduction, launch, {{1, 0, 0}, {2, 1, 1}}, args),
            (std::vector<std::string>{"read A[5:10, 0:5]", "reduce(+) sum[5:10]"}));
}

TEST(AccessRegion, ScalarsScaleTheVariables) {
  const char* rows = "global i => read A[i*k : i*k+k-1], write B[i]";
  const LaunchGeometry launch{{10, 1, 1}, {4, 1, 1}};
  LaunchArguments args{{{"A", {1000}}, {"B", {10}}}, {{"k", 7}}};
  EXPECT_EQ(regions(rows, launch, {{1, 0, 0}, {2, 1, 1}}, args),
            (std::vector<std::string>{"read A[28:56]", "write B[4:8]"}));
  // A negative scalar turns the bounds around.
  args.scalars["k"] = -1;
  args.shapes["A"] = {10};
  EXPECT_EQ(regions("global i => read A[k*i + 9]", launch, {{1, 0, 0}, {2, 1, 1}}, args),
            (std::vector<std::string>{"read A[2:6]"}));
}

TEST(AccessRegion, BlockAndLocalBindings) {
  const LaunchGeometry launch{{10, 1, 1}, {4, 1, 1}};  // blocks of 4, 4 and 2 threads
  const LaunchArguments args{{{"A", {100}}}, {}};
  EXPECT_EQ(regions("block b => read A[10*b : 10*b + 9]", launch, {{1, 0, 0}, {3, 1, 1}}, args),
            (std::vector<std::string>{"read A[10:30]"}));
  EXPECT_EQ(regions("local t => read A[t]", launch, {{1, 0, 0}, {3, 1, 1}}, args),
            (std::vector<std::string>{"read A[0:4]"}));
  // A superblock of the last block alone: only its 2 threads in the grid.
  EXPECT_EQ(regions("local t => read A[t]", launch, {{2, 0, 0}, {3, 1, 1}}, args),
            (std::vector<std::string>{"read A[0:2]"}));
}

TEST(AccessRegion, OutsideTheArrayIsEmpty) {
  const LaunchGeometry launch{{10, 1, 1}, {5, 1, 1}};
  const auto found =
      access_regions(parse_annotation("global i => read A[i + 100, 3], read B[5:2]"), launch,
                     {{0, 0, 0}, {1, 1, 1}}, {{{"A", {10, 10}}, {"B", {10}}}, {}});
  EXPECT_TRUE(found[0].empty());
  EXPECT_EQ(found[0].elements(), 0u);
  EXPECT_TRUE(found[1].empty());
  EXPECT_EQ(found[1].describe(), "read B[5:5]");
}

TEST(AccessRegion, ZeroDimensionalArray) {
  const auto found = access_regions(parse_annotation("global i => reduce(min) m"),
                                    {{4, 1, 1}, {4, 1, 1}}, {}, {{{"m", {}}}, {}});
  EXPECT_FALSE(found[0].empty());
  EXPECT_EQ(found[0].elements(), 1u);
  EXPECT_EQ(found[0].describe(), "reduce(min) m");
}

AnnotationError evaluation_error(std::string_view annotation, const LaunchArguments& arguments) {
  try {
    access_regions(parse_annotation(annotation), {{8, 1, 1}, {4, 1, 1}}, {}, arguments);
  } catch (const AnnotationError& error) {
    return error;
  }
  throw std::logic_error("no error for " + std::string(annotation));
}

TEST(AccessRegion, UnknownNamesAndWrongRanksAreErrorsThatNameThem) {
  const LaunchArguments args{{{"A", {8}}, {"M", {8, 8}}}, {{"n", 4}}};
  AnnotationError error = evaluation_error("global i => read A[i], write X[i]", args);
  EXPECT_EQ(error.column(), 30u);
  EXPECT_EQ(error.reason(), "the launch has no array argument 'X' (its arrays: A, M)");
  error = evaluation_error("global i => read A[i*k + n]", args);
  EXPECT_EQ(error.column(), 22u);
  EXPECT_EQ(error.reason(),
            "'k' is neither a bound variable nor a scalar argument of the launch (its scalars: n)");
  error = evaluation_error("global i => read M[i]", args);
  EXPECT_EQ(error.column(), 18u);
  EXPECT_EQ(error.reason(), "'M' has 2 dimensions but the annotation gives it 1 index");
  error = evaluation_error("global i => read A[i, 0]", args);
  EXPECT_EQ(error.reason(), "'A' has 1 dimension but the annotation gives it 2 indices");
}

TEST(AccessRegion, OverflowIsAnError) {
  const LaunchArguments args{{{"A", {8}}}, {{"k", std::int64_t{1} << 62}}};
  const AnnotationError error = evaluation_error("global i => read A[1 + 4*k*i]", args);
  EXPECT_EQ(error.column(), 20u);
  EXPECT_EQ(error.reason(), "this index overflows 64 bits at this launch");
}

TEST(AccessRegion, SuperblocksOutsideTheGridAreRefused) {
  const Annotation a = parse_annotation("global i => read A[i]");
  const LaunchArguments args{{{"A", {8}}}, {}};
  EXPECT_THROW(access_regions(a, {{8, 1, 1}, {4, 1, 1}}, {{0, 0, 0}, {3, 1, 1}}, args), Error);
  EXPECT_THROW(access_regions(a, {{8, 1, 1}, {4, 1, 1}}, {{1, 0, 0}, {1, 1, 1}}, args), Error);
  EXPECT_THROW(access_regions(a, {{8, 1, 1}, {0, 1, 1}}, {}, args), Error);
}

}  // namespace
}  // namespace strata::array
