// The chunk index against a pass over every chunk: random chunk sets (overlapping, nested,
// replicated) and random regions give the same chunks.

#include "chunk_index.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

namespace strata::array::detail {
namespace {

Region random_region(std::mt19937_64& random, std::uint32_t dims, std::uint64_t extent) {
  Region region;
  region.dims = dims;
  for (std::uint32_t d = 0; d < dims; ++d) {
    std::uniform_int_distribution<std::uint64_t> at(0, extent - 1);
    const std::uint64_t a = at(random);
    const std::uint64_t b = at(random);
    region.lo[d] = std::min(a, b);
    region.hi[d] = std::max(a, b) + 1;
  }
  return region;
}

TEST(ChunkIndex, FindsTheSameChunksAsAPassOverAllOfThem) {
  std::mt19937_64 random(7);
  for (int trial = 0; trial < 200; ++trial) {
    const std::uint32_t dims = 1 + static_cast<std::uint32_t>(trial % 3);
    auto record = std::make_shared<Array::Record>();
    const int chunks = 1 + static_cast<int>(random() % 40);
    for (int c = 0; c < chunks; ++c) {
      ArrayChunk chunk;
      chunk.placement.region = random_region(random, dims, 100);
      chunk.ref = cluster::ChunkRef{static_cast<std::uint64_t>(c + 1)};
      record->chunks.push_back(chunk);
    }
    const Array array(record);
    const ChunkIndex index(array);
    for (int query = 0; query < 50; ++query) {
      const Region region = random_region(random, dims, 100);
      std::set<const ArrayChunk*> expected;
      for (const ArrayChunk& chunk : array.chunks())
        if (chunk.placement.region.intersect(region)) expected.insert(&chunk);
      std::set<const ArrayChunk*> found;
      index.for_each_meeting(region, [&](const ArrayChunk& chunk) {
        EXPECT_TRUE(found.insert(&chunk).second) << "a chunk given twice";
      });
      ASSERT_EQ(found, expected) << "trial " << trial << ", region " << region.describe();
    }
  }
}

}  // namespace
}  // namespace strata::array::detail
