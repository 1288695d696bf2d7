// What the distributed box store adds to the tests every store passes (box_store_test.cpp, built
// into this program too): boxes stay on the rank that wrote them, a chunk an operation wrote on
// a rank becomes a stored box without moving, and a region is assembled into a chunk on another
// rank from the boxes it overlaps. Runs as one program on 1, 2 and 4 ranks.

#include "strata/store/distributed_box_store.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "store_test_support.hpp"
#include "strata/cluster/driver.hpp"

namespace strata::store {
namespace {

using testing::box2;

// What the "fill_box" operation writes at (row, col) of a box.
std::int32_t pattern(std::uint64_t row, std::uint64_t col) {
  return static_cast<std::int32_t>(row * 4096 + col);
}

std::vector<std::int32_t> pattern_of(const Region& box) {
  std::vector<std::int32_t> values;
  for (std::uint64_t r = box.lo[0]; r < box.hi[0]; ++r)
    for (std::uint64_t c = box.lo[1]; c < box.hi[1]; ++c)
      values.push_back(pattern(r, c));
  return values;
}

const DataKey labels{"labels", "mask", 0, 0};

TEST(DistributedStore, BoxesStayOnTheRankThatWroteThem) {
  cluster::Driver& driver = *testing::the_driver;
  DistributedBoxStore store(driver);
  for (int rank = 0; rank < driver.size(); ++rank) {
    const Region box =
        box2(0, 8, 8 * static_cast<std::uint64_t>(rank), 8 * static_cast<std::uint64_t>(rank + 1));
    const std::vector<std::int32_t> values = pattern_of(box);
    store.write_on(rank, labels, box, device::ElementType::i32, std::as_bytes(std::span(values)));
  }
  store.flush();
  for (int rank = 0; rank < driver.size(); ++rank) {
    const Region box =
        box2(0, 8, 8 * static_cast<std::uint64_t>(rank), 8 * static_cast<std::uint64_t>(rank + 1));
    EXPECT_EQ(store.holders(labels, box), std::set<int>{rank});
  }
  const Region all = box2(0, 8, 0, 8 * static_cast<std::uint64_t>(driver.size()));
  EXPECT_EQ(store.read_as<std::int32_t>(labels, all), pattern_of(all));
  const std::vector<std::int32_t> one = pattern_of(box2(8, 9, 0, 1));
  EXPECT_THROW(store.write_on(driver.size(), labels, box2(8, 9, 0, 1), device::ElementType::i32,
                              std::as_bytes(std::span(one))),
               Error);
}

TEST(DistributedStore, ChunksWrittenOnRanksAreStoredWhereTheyAreAndAssembledElsewhere) {
  cluster::Driver& driver = *testing::the_driver;
  DistributedBoxStore store(driver);
  // Tiles of 10x10 written by an operation on rank (tile % ranks), in a 30x30 region.
  for (std::uint64_t tile = 0; tile < 9; ++tile) {
    const Region box = box2(tile / 3 * 10, tile / 3 * 10 + 10, tile % 3 * 10, tile % 3 * 10 + 10);
    const int rank = static_cast<int>(tile % static_cast<std::uint64_t>(driver.size()));
    const cluster::ChunkRef chunk = driver.create_chunk("tile", 100 * sizeof(std::int32_t), rank);
    driver.run_with(rank, "fill_box", {{chunk, runtime::Access::write}}, box);
    store.put(labels, box, device::ElementType::i32, chunk);
  }
  // A region across four tiles, assembled on the last rank, fetched only to check it.
  const Region region = box2(5, 25, 7, 23);
  const int last = driver.size() - 1;
  const cluster::ChunkRef target =
      driver.create_chunk("assembled", region.elements() * sizeof(std::int32_t), last);
  store.assemble_into(labels, region, device::ElementType::i32, target);
  store.flush();
  EXPECT_EQ(driver.holders(target), std::set<int>{last});
  const std::vector<std::byte> assembled = driver.fetch(target);
  std::vector<std::int32_t> values(region.elements());
  std::memcpy(values.data(), assembled.data(), assembled.size());
  EXPECT_EQ(values, pattern_of(region));
  EXPECT_EQ(store.holders(labels, box2(10, 20, 10, 20)),
            std::set<int>{4 % driver.size()});  // no read moved it
  EXPECT_THROW(store.assemble_into(labels, box2(0, 40, 0, 10), device::ElementType::i32, target),
               Error);
  driver.destroy(target);
}

}  // namespace
}  // namespace strata::store
