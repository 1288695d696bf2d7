// Boxes: copies of random strided 1-3-d boxes equal an element-by-element reference; boxes that
// leave their chunk or differ in extents are refused with a message that names them; reductions
// combine every element type.

#include "strata/memory/box.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "strata/base/error.hpp"
#include "strata/memory/combine.hpp"

namespace strata::memory {
namespace {

// The chunk-element index of the box's i-th element (row-major order of the box).
std::uint64_t element_of(const Box& box, std::uint64_t i) {
  std::uint64_t index = 0;
  std::uint64_t rest = i;
  std::array<std::uint64_t, 3> at{};
  for (std::uint32_t d = box.dims; d-- > 0;) {
    at[d] = rest % box.extent[d];
    rest /= box.extent[d];
  }
  for (std::uint32_t d = 0; d < box.dims; ++d)
    index = index * box.shape[d] + box.offset[d] + at[d] * box.step[d];
  return index;
}

Box random_box(std::mt19937_64& rng, std::uint32_t dims,
               const std::array<std::uint64_t, 3>& extent) {
  Box box;
  box.dims = dims;
  for (std::uint32_t d = 0; d < dims; ++d) {
    box.extent[d] = extent[d];
    box.step[d] = 1 + rng() % 3;
    box.offset[d] = rng() % 4;
    box.shape[d] =
        box.offset[d] + (extent[d] == 0 ? 0 : (extent[d] - 1) * box.step[d] + 1) + rng() % 3;
  }
  return box;
}

TEST(Box, RandomStridedCopiesEqualTheElementwiseReference) {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 500; ++trial) {
    const std::uint32_t dims = 1 + static_cast<std::uint32_t>(rng() % 3);
    const std::uint32_t element = std::array<std::uint32_t, 4>{1, 2, 4, 8}[rng() % 4];
    std::array<std::uint64_t, 3> extent{1, 1, 1};
    for (std::uint32_t d = 0; d < dims; ++d)
      extent[d] = 1 + rng() % 5;
    const Box from_box = random_box(rng, dims, extent);
    const Box to_box = random_box(rng, dims, extent);
    std::vector<std::byte> from(from_box.chunk_elements() * element);
    for (auto& b : from)
      b = static_cast<std::byte>(rng());
    std::vector<std::byte> to(to_box.chunk_elements() * element, std::byte{0x5a});
    std::vector<std::byte> expected = to;
    for (std::uint64_t i = 0; i < from_box.elements(); ++i) {
      const std::uint64_t s = element_of(from_box, i) * element;
      const std::uint64_t t = element_of(to_box, i) * element;
      std::copy_n(from.begin() + static_cast<std::ptrdiff_t>(s), element,
                  expected.begin() + static_cast<std::ptrdiff_t>(t));
    }
    copy_box(from, from_box, to, to_box, element);
    ASSERT_EQ(to, expected) << "trial " << trial << ": " << from_box.describe() << " -> "
                            << to_box.describe();
  }
}

// The rectangular copies a device queue makes of a box copy move the same elements.
TEST(Box, RectangularPiecesOfRandomBoxCopiesEqualTheCopy) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 500; ++trial) {
    const std::uint32_t dims = 1 + static_cast<std::uint32_t>(rng() % 3);
    const std::uint32_t element = std::array<std::uint32_t, 4>{1, 2, 4, 8}[rng() % 4];
    std::array<std::uint64_t, 3> extent{1, 1, 1};
    for (std::uint32_t d = 0; d < dims; ++d)
      extent[d] = 1 + rng() % 5;
    const Box from_box = random_box(rng, dims, extent);
    const Box to_box = random_box(rng, dims, extent);
    std::vector<std::byte> from(from_box.chunk_elements() * element);
    for (auto& b : from)
      b = static_cast<std::byte>(rng());
    std::vector<std::byte> to(to_box.chunk_elements() * element, std::byte{0x5a});
    std::vector<std::byte> expected = to;
    copy_box(from, from_box, expected, to_box, element);
    for (const BoxRectCopy& piece : box_rect_copies(from_box, to_box, element)) {
      ASSERT_LE(device::rect_end(piece.from, piece.extent), from.size());
      ASSERT_LE(device::rect_end(piece.to, piece.extent), to.size());
      for (std::uint64_t z = 0; z < piece.extent.depth; ++z)
        for (std::uint64_t y = 0; y < piece.extent.height; ++y)
          std::memcpy(
              to.data() + piece.to.offset + z * piece.to.slice_pitch + y * piece.to.row_pitch,
              from.data() + piece.from.offset + z * piece.from.slice_pitch +
                  y * piece.from.row_pitch,
              piece.extent.width);
    }
    ASSERT_EQ(to, expected) << "trial " << trial << ": " << from_box.describe() << " -> "
                            << to_box.describe();
  }
}

TEST(Box, AssemblesARegionFromFourTilesAndScattersItBack) {
  // A 6x8 region of u16 from four 3x4 tiles, and back into four fresh tiles.
  std::vector<std::vector<std::uint16_t>> tiles(4, std::vector<std::uint16_t>(12));
  for (int t = 0; t < 4; ++t)
    for (int i = 0; i < 12; ++i)
      tiles[t][i] = static_cast<std::uint16_t>(100 * t + i);
  std::vector<std::uint16_t> region(48);
  const std::uint64_t tile_shape[2] = {3, 4};
  const std::uint64_t region_shape[2] = {6, 8};
  for (int t = 0; t < 4; ++t) {
    const std::uint64_t at[2] = {static_cast<std::uint64_t>(t / 2) * 3,
                                 static_cast<std::uint64_t>(t % 2) * 4};
    copy_box(std::as_bytes(std::span(tiles[t])), Box::whole(tile_shape),
             std::as_writable_bytes(std::span(region)), Box::of(region_shape, at, tile_shape), 2);
  }
  EXPECT_EQ(region[0], 0);
  EXPECT_EQ(region[5], 101);      // row 0, column 5: tile 1, element 1
  EXPECT_EQ(region[3 * 8], 200);  // row 3, column 0: tile 2
  EXPECT_EQ(region[47], 311);     // the last element of tile 3
  for (int t = 0; t < 4; ++t) {
    std::vector<std::uint16_t> back(12);
    const std::uint64_t at[2] = {static_cast<std::uint64_t>(t / 2) * 3,
                                 static_cast<std::uint64_t>(t % 2) * 4};
    copy_box(std::as_bytes(std::span(region)), Box::of(region_shape, at, tile_shape),
             std::as_writable_bytes(std::span(back)), Box::whole(tile_shape), 2);
    EXPECT_EQ(back, tiles[t]) << "tile " << t;
  }
}

TEST(Box, BadBoxesAreRefusedNamingThem) {
  std::vector<std::byte> chunk(64);
  const std::uint64_t shape[2] = {4, 4};
  const std::uint64_t offset[2] = {2, 0};
  const std::uint64_t extent[2] = {3, 4};
  try {
    copy_box(chunk, Box::of(shape, offset, extent), chunk, Box::whole(shape), 4);
    FAIL() << "a box leaving its chunk was copied";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("[2:5, 0:4] of 4x4 leaves its chunk in dimension 0"),
              std::string::npos)
        << error.what();
  }
  const std::uint64_t small[2] = {2, 2};
  EXPECT_THROW(copy_box(chunk, Box::whole(shape), chunk, Box::of(shape, offset, small), 4), Error);
  EXPECT_THROW(copy_box(chunk, Box::whole(shape), chunk, Box::whole(shape), 8), Error)
      << "4x4 elements of 8 bytes are not 64 bytes";
}

template <typename T>
std::vector<T> combined(ReduceOp op, std::vector<T> a, const std::vector<T>& b) {
  combine(op, device::element_type_of<T>(), std::as_writable_bytes(std::span(a)),
          std::as_bytes(std::span(b)));
  return a;
}

TEST(Combine, EveryOperatorOverIntegersAndFloats) {
  const std::vector<std::int32_t> a{1, -2, 3, 4000};
  const std::vector<std::int32_t> b{5, 6, -7, 2};
  EXPECT_EQ(combined(ReduceOp::sum, a, b), (std::vector<std::int32_t>{6, 4, -4, 4002}));
  EXPECT_EQ(combined(ReduceOp::product, a, b), (std::vector<std::int32_t>{5, -12, -21, 8000}));
  EXPECT_EQ(combined(ReduceOp::min, a, b), (std::vector<std::int32_t>{1, -2, -7, 2}));
  EXPECT_EQ(combined(ReduceOp::max, a, b), (std::vector<std::int32_t>{5, 6, 3, 4000}));
  std::vector<double> x(3000, 0.5), y(3000, 0.25);
  const auto sum = combined(ReduceOp::sum, x, y);
  EXPECT_EQ(sum.front(), 0.75);
  EXPECT_EQ(sum.back(), 0.75);
  EXPECT_EQ(combined(ReduceOp::max, std::vector<std::uint8_t>{1, 200}, {3, 100}),
            (std::vector<std::uint8_t>{3, 200}));
  EXPECT_EQ(parse_reduce_op("+"), ReduceOp::sum);
  EXPECT_THROW(parse_reduce_op("avg"), Error);
  std::vector<std::byte> odd(6), other(6);
  EXPECT_THROW(combine(ReduceOp::sum, device::ElementType::f32, odd, other), Error);
}

// identity(op, T) op y == y for extreme and ordinary values of every type it is tried on.
template <typename T>
void expect_identity_leaves_values(ReduceOp op) {
  const std::array<std::byte, 8> bytes = identity(op, device::element_type_of<T>());
  T neutral;
  std::memcpy(&neutral, bytes.data(), sizeof(T));
  const std::vector<T> values{std::numeric_limits<T>::lowest(), T{0}, T{1}, T{7},
                              std::numeric_limits<T>::max()};
  EXPECT_EQ(combined(op, std::vector<T>(values.size(), neutral), values), values)
      << memory::to_string(op) << " over " << device::to_string(device::element_type_of<T>());
}

TEST(Combine, TheIdentityOfEveryOperatorLeavesEveryValue) {
  for (const ReduceOp op : {ReduceOp::sum, ReduceOp::product, ReduceOp::min, ReduceOp::max}) {
    expect_identity_leaves_values<std::int8_t>(op);
    expect_identity_leaves_values<std::uint16_t>(op);
    expect_identity_leaves_values<std::int32_t>(op);
    expect_identity_leaves_values<std::uint64_t>(op);
    expect_identity_leaves_values<float>(op);
    expect_identity_leaves_values<double>(op);
  }
}

}  // namespace
}  // namespace strata::memory
