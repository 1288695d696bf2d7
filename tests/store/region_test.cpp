// Regions: extents, containment and intersection of n-d boxes of an array's index space.

#include "strata/store/region.hpp"

#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "strata/base/error.hpp"

namespace strata::store {
namespace {

TEST(Region, ExtentsElementsAndText) {
  const Shape shape = Shape::of(std::array<std::uint64_t, 2>{6, 8});
  EXPECT_EQ(shape.elements(), 48u);
  EXPECT_EQ(shape.describe(), "6x8");
  const Region whole = Region::whole(shape);
  EXPECT_EQ(whole.elements(), 48u);
  EXPECT_EQ(whole.describe(), "[0:6, 0:8]");
  const Region part =
      Region::of(std::array<std::uint64_t, 2>{1, 2}, std::array<std::uint64_t, 2>{4, 8});
  EXPECT_EQ(part.elements(), 18u);
  EXPECT_TRUE(whole.contains(part));
  EXPECT_FALSE(part.contains(whole));
  EXPECT_TRUE(part.within(shape));
  EXPECT_THROW(Shape::of(std::vector<std::uint64_t>{}), Error);
  EXPECT_THROW(Shape::of(std::array<std::uint64_t, 2>{3, 0}), Error);
  EXPECT_THROW(Shape::of(std::array<std::uint64_t, 4>{1, 1, 1, 1}), Error);
}

TEST(Region, IntersectionIsTheCommonElementsOrNothing) {
  const Region a =
      Region::of(std::array<std::uint64_t, 2>{0, 0}, std::array<std::uint64_t, 2>{4, 4});
  const Region b =
      Region::of(std::array<std::uint64_t, 2>{2, 3}, std::array<std::uint64_t, 2>{6, 9});
  const auto both = a.intersect(b);
  ASSERT_TRUE(both.has_value());
  EXPECT_EQ(both->describe(), "[2:4, 3:4]");
  const Region c =
      Region::of(std::array<std::uint64_t, 2>{4, 0}, std::array<std::uint64_t, 2>{5, 4});
  EXPECT_FALSE(a.intersect(c).has_value());  // touching is not overlapping
  const Region empty = Region::of(std::array<std::uint64_t, 1>{3}, std::array<std::uint64_t, 1>{3});
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.elements(), 0u);
}

}  // namespace
}  // namespace strata::store
