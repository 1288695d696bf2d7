// Open plans: many operations go to each rank as one message per batch; registered kinds run
// like built-in ones; boxes assemble a region from chunks on every rank and scatter it back
// (only the box's bytes travel); reductions combine partials level by level. On 1, 2 and 4 ranks.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "cluster_test_support.hpp"

namespace strata::cluster::testing {
namespace {

using runtime::Access;

TEST(PlanBatching, AThousandOperationsGoAsOneMessagePerRank) {
  Driver& driver = *the_driver;
  const int ranks = driver.size();
  std::vector<ChunkRef> chunks;
  for (int c = 0; c < 8; ++c)
    chunks.push_back(driver.create_chunk("batched " + std::to_string(c), 64 * 8, c % ranks));
  const PlanStats before = driver.stats();
  {
    const PlanBatch batch(driver);
    for (int c = 0; c < 8; ++c)
      driver.run_with(c % ranks, "fill", {{chunks[c], Access::write}}, std::uint64_t(c));
    for (int step = 0; step < 1000; ++step) {
      const int c = step % 8;
      driver.plan_with(c % ranks, "scale", {{chunks[c], Access::read_write}}, std::uint64_t{3});
    }
  }
  const PlanStats after = driver.stats();
  EXPECT_LE(after.messages - before.messages, static_cast<std::uint64_t>(ranks));
  EXPECT_EQ(after.operations - before.operations, 1008u);
  std::uint64_t factor = 1;
  for (int i = 0; i < 125; ++i)
    factor *= 3;  // wraps, as the words do
  for (int c = 0; c < 8; ++c) {
    std::vector<std::uint64_t> expected = filled(64, c);
    for (auto& word : expected)
      word *= factor;
    EXPECT_EQ(as_words(driver.fetch(chunks[c])), expected) << "chunk " << c;
  }
  driver.wait_all();
}

TEST(PlanKinds, AnUnknownKindIsRefusedNamingWhatIsDefined) {
  Driver& driver = *the_driver;
  const ChunkRef chunk = driver.create_chunk("unknown kind", 64, 0);
  try {
    driver.plan(0, "transpose", {{chunk, Access::write}});
    FAIL() << "an unknown kind was planned";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("unknown plan operation kind 'transpose'"), std::string::npos);
    EXPECT_NE(message.find("copy_box"), std::string::npos) << message;
    EXPECT_NE(message.find("scale"), std::string::npos) << message;
  }
}

// A 3-d region of 6 x 8 x 5 u64 split over its first two dimensions into four 3 x 4 x 5 tiles
// homed round-robin, assembled on the last rank, scattered back to fresh tiles
// elsewhere, and a strided box of it copied too.
TEST(PlanBoxes, ARegionIsAssembledFromTilesOnEveryRankAndScatteredBack) {
  Driver& driver = *the_driver;
  const int ranks = driver.size();
  const std::uint64_t tile_shape[3] = {3, 4, 5};
  const std::uint64_t region_shape[3] = {6, 8, 5};
  constexpr std::size_t tile_words = 3 * 4 * 5;
  std::vector<ChunkRef> tiles;
  for (int t = 0; t < 4; ++t) {
    tiles.push_back(driver.create_chunk("tile " + std::to_string(t), tile_words * 8, t % ranks));
    driver.run_with(t % ranks, "fill", {{tiles.back(), Access::write}}, std::uint64_t(10 + t));
  }
  const ChunkRef region = driver.create_chunk("region", 6 * 8 * 5 * 8, ranks - 1);
  const PlanStats before = driver.stats();
  for (int t = 0; t < 4; ++t) {
    const std::uint64_t at[3] = {static_cast<std::uint64_t>(t / 2) * 3,
                                 static_cast<std::uint64_t>(t % 2) * 4, 0};
    driver.copy_box(tiles[t], memory::Box::whole(tile_shape), region,
                    memory::Box::of(region_shape, at, tile_shape), 8);
  }
  // Each remote tile's box travels once: its bytes, not more.
  const PlanStats assembled = driver.stats();
  int remote = 0;
  for (int t = 0; t < 4; ++t)
    remote += t % ranks != ranks - 1 ? 1 : 0;
  EXPECT_EQ(assembled.bytes_transferred - before.bytes_transferred,
            static_cast<std::uint64_t>(remote) * tile_words * 8);

  const std::vector<std::uint64_t> words = as_words(driver.fetch(region));
  for (int t = 0; t < 4; ++t) {
    const std::vector<std::uint64_t> tile = filled(tile_words, 10 + t);
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t j = 0; j < 4; ++j)
        for (std::size_t k = 0; k < 5; ++k) {
          const std::size_t row = (t / 2) * 3 + i;
          const std::size_t column = (t % 2) * 4 + j;
          ASSERT_EQ(words[(row * 8 + column) * 5 + k], tile[(i * 4 + j) * 5 + k])
              << "tile " << t << " element " << i << "," << j << "," << k;
        }
  }
  // Scatter back into fresh tiles homed one rank further.
  for (int t = 0; t < 4; ++t) {
    const ChunkRef back =
        driver.create_chunk("back " + std::to_string(t), tile_words * 8, (t + 1) % ranks);
    const std::uint64_t at[3] = {static_cast<std::uint64_t>(t / 2) * 3,
                                 static_cast<std::uint64_t>(t % 2) * 4, 0};
    driver.copy_box(region, memory::Box::of(region_shape, at, tile_shape), back,
                    memory::Box::whole(tile_shape), 8);
    EXPECT_EQ(as_words(driver.fetch(back)), filled(tile_words, 10 + t)) << "tile " << t;
  }
  // Every other row and column of the region's first plane, into a 3 x 4 chunk on rank 0.
  memory::Box strided = memory::Box::whole(region_shape);
  strided.extent = {3, 4, 1};
  strided.step = {2, 2, 1};
  const std::uint64_t small_shape[3] = {3, 4, 1};
  const ChunkRef sampled = driver.create_chunk("sampled", 3 * 4 * 8, 0);
  driver.copy_box(region, strided, sampled, memory::Box::whole(small_shape), 8);
  const std::vector<std::uint64_t> sample = as_words(driver.fetch(sampled));
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j)
      EXPECT_EQ(sample[i * 4 + j], words[((2 * i) * 8 + 2 * j) * 5]) << i << "," << j;
  EXPECT_THROW(driver.copy_box(region, memory::Box::whole(region_shape), sampled,
                               memory::Box::whole(small_shape), 8),
               Error)
      << "boxes of different extents";
  driver.wait_all();
}

// Random box copies among 2-d chunks on every rank, some never written before the copies (each
// first written by one of them), planned in one call against the same copies done in order on
// host arrays: consecutive copies within a rank go as one operation, copies between ranks are
// unpacked late (after later copies that do not meet their targets' boxes), and every element
// ends as the sequence says. Every other round copies small boxes, which seldom meet. On one rank
// the whole sequence is one operation.
TEST(PlanBoxes, RandomCopiesPlannedTogetherMatchTheSequenceDoneInOrder) {
  Driver& driver = *the_driver;
  const int ranks = driver.size();
  const std::uint64_t shape[2] = {6, 8};
  constexpr std::size_t words = 6 * 8;
  std::mt19937_64 random(17);
  for (int round = 0; round < 16; ++round) {
    constexpr int written_chunks = 5, fresh_chunks = 3;
    std::vector<ChunkRef> chunks;
    std::vector<std::vector<std::uint64_t>> expected;
    std::vector<std::vector<bool>> defined;  // a fresh chunk's elements no copy wrote are not
    for (int c = 0; c < written_chunks + fresh_chunks; ++c) {
      const int home = static_cast<int>(random() % static_cast<std::uint64_t>(ranks));
      chunks.push_back(driver.create_chunk("boxes " + std::to_string(c), words * 8, home));
      const bool written = c < written_chunks;
      if (written)
        driver.run_with(home, "fill", {{chunks.back(), Access::write}}, std::uint64_t(c));
      expected.push_back(written ? filled(words, c) : std::vector<std::uint64_t>(words));
      defined.emplace_back(words, written);
    }
    std::vector<BoxCopyRequest> copies;
    std::vector<bool> readable(chunks.size());
    for (int c = 0; c < written_chunks; ++c)
      readable[static_cast<std::size_t>(c)] = true;
    while (copies.size() < 24) {
      const std::size_t from = random() % chunks.size(), to = random() % chunks.size();
      if (from == to || !readable[from]) continue;
      const bool small = round % 2 == 1;
      const std::uint64_t extent[2] = {1 + random() % (small ? 2 : 6),
                                       1 + random() % (small ? 3 : 8)};
      const std::uint64_t from_at[2] = {random() % (7 - extent[0]), random() % (9 - extent[1])};
      const std::uint64_t to_at[2] = {random() % (7 - extent[0]), random() % (9 - extent[1])};
      copies.push_back({chunks[from], memory::Box::of(shape, from_at, extent), chunks[to],
                        memory::Box::of(shape, to_at, extent), 8});
      for (std::uint64_t i = 0; i < extent[0]; ++i)
        for (std::uint64_t j = 0; j < extent[1]; ++j) {
          const std::size_t source = (from_at[0] + i) * 8 + from_at[1] + j;
          const std::size_t target = (to_at[0] + i) * 8 + to_at[1] + j;
          expected[to][target] = expected[from][source];
          defined[to][target] = defined[from][source];
        }
      readable[to] = true;
    }
    const PlanStats before = driver.stats();
    driver.copy_boxes(copies);
    const PlanStats after = driver.stats();
    if (ranks == 1) {
      EXPECT_EQ(after.operations - before.operations, 1u) << "round " << round;
    }
    for (std::size_t c = 0; c < chunks.size(); ++c) {
      if (!readable[c]) continue;  // a fresh chunk no copy wrote
      const std::vector<std::uint64_t> got = as_words(driver.fetch(chunks[c]));
      for (std::size_t i = 0; i < words; ++i)
        if (defined[c][i]) {
          ASSERT_EQ(got[i], expected[c][i]) << "round " << round << " chunk " << c << " word " << i;
        }
    }
    for (ChunkRef chunk : chunks)
      driver.destroy(chunk);
  }
  // A copy into its own chunk, and one that reads a chunk nothing wrote (not even an earlier copy
  // of the call): refused, naming it.
  const ChunkRef written = driver.create_chunk("written", 64, 0);
  const ChunkRef fresh = driver.create_chunk("never written", 64, ranks - 1);
  driver.run_with(0, "fill", {{written, Access::write}}, std::uint64_t{1});
  const std::uint64_t eight[1] = {8};
  const std::vector<BoxCopyRequest> bad{
      {written, memory::Box::whole(eight), written, memory::Box::whole(eight), 8}};
  EXPECT_THROW(driver.copy_boxes(bad), Error) << "a chunk into itself";
  // ... after a good copy: nothing of the call is planned.
  const ChunkRef other = driver.create_chunk("other", 64, 0);
  const PlanStats before = driver.stats();
  try {
    const std::vector<BoxCopyRequest> unread{
        {written, memory::Box::whole(eight), other, memory::Box::whole(eight), 8},
        {fresh, memory::Box::whole(eight), written, memory::Box::whole(eight), 8}};
    driver.copy_boxes(unread);
    ADD_FAILURE() << "a chunk nothing wrote was read";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("'never written'"), std::string::npos) << error.what();
  }
  EXPECT_EQ(driver.stats().operations, before.operations);
  driver.destroy(other);
  driver.destroy(written);
  driver.destroy(fresh);
  driver.wait_all();
}

std::vector<std::byte> bytes_of_doubles(const std::vector<double>& values) {
  const auto* begin = reinterpret_cast<const std::byte*>(values.data());
  return {begin, begin + values.size() * sizeof(double)};
}

TEST(PlanReduce, PartialsOnEveryRankCombineLevelByLevel) {
  Driver& driver = *the_driver;
  const int ranks = driver.size();
  constexpr std::size_t values = 5000;
  // Three partials per rank (level 1 within a rank, level 2 across ranks).
  std::mt19937_64 rng(7);
  std::vector<ChunkRef> partials;
  std::vector<std::vector<double>> contents;
  for (int p = 0; p < 3 * ranks; ++p) {
    std::vector<double> part(values);
    for (double& v : part)
      v = static_cast<double>(rng() % 1000) / 8;  // exact in doubles: sums in any order agree
    partials.push_back(driver.create_chunk("partial " + std::to_string(p), values * 8, p % ranks));
    driver.write(partials.back(), bytes_of_doubles(part));
    contents.push_back(std::move(part));
  }
  for (const memory::ReduceOp op :
       {memory::ReduceOp::sum, memory::ReduceOp::min, memory::ReduceOp::max}) {
    const ChunkRef result = driver.create_chunk("reduced", values * 8, 0);
    driver.reduce(partials, result, op, device::ElementType::f64);
    const std::vector<std::byte> bytes = driver.fetch(result);
    ASSERT_EQ(bytes.size(), values * 8);
    const auto* got = reinterpret_cast<const double*>(bytes.data());
    for (std::size_t i = 0; i < values; ++i) {
      double expected = contents[0][i];
      for (std::size_t p = 1; p < contents.size(); ++p) {
        const double v = contents[p][i];
        expected = op == memory::ReduceOp::sum   ? expected + v
                   : op == memory::ReduceOp::min ? std::min(expected, v)
                                                 : std::max(expected, v);
      }
      ASSERT_EQ(got[i], expected) << memory::to_string(op) << " element " << i;
    }
    driver.destroy(result);
  }
  // A partial of another size is refused, naming it.
  const ChunkRef odd = driver.create_chunk("odd partial", 16, 0);
  driver.write(odd, std::vector<std::byte>(16));
  const ChunkRef result = driver.create_chunk("reduced", values * 8, 0);
  std::vector<ChunkRef> with_odd = partials;
  with_odd.push_back(odd);
  try {
    driver.reduce(with_odd, result, memory::ReduceOp::sum, device::ElementType::f64);
    FAIL() << "a partial of another size was reduced";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("'odd partial' has 16 bytes"), std::string::npos)
        << error.what();
  }
  driver.wait_all();
}

// Partials that one rank holds combine straight into the result (one operation), and a result
// that is one of the partials still gets every partial's contribution once.
TEST(PlanReduce, PartialsOfOneRankAreOneCombineAndTheResultMayBeAPartial) {
  Driver& driver = *the_driver;
  const int last = driver.size() - 1;
  std::vector<ChunkRef> partials;
  for (int p = 0; p < 3; ++p) {
    partials.push_back(driver.create_chunk("one-rank partial " + std::to_string(p), 16, last));
    driver.write(partials.back(), bytes_of_doubles({1.0 + p, 10.0 * (p + 1)}));
  }
  const ChunkRef result = driver.create_chunk("one-rank sum", 16, 0);
  driver.wait_all();
  const std::uint64_t before = driver.stats().operations;
  driver.reduce(partials, result, memory::ReduceOp::sum, device::ElementType::f64);
  EXPECT_EQ(driver.stats().operations - before, 1u);
  std::vector<std::byte> bytes = driver.fetch(result);
  EXPECT_EQ(bytes, bytes_of_doubles({6.0, 60.0}));
  // Into the second partial, with a partial on every rank.
  std::vector<ChunkRef> spread = partials;
  for (int r = 0; r < driver.size(); ++r) {
    spread.push_back(driver.create_chunk("spread partial " + std::to_string(r), 16, r));
    driver.write(spread.back(), bytes_of_doubles({100.0, 1000.0}));
  }
  driver.reduce(spread, partials[1], memory::ReduceOp::sum, device::ElementType::f64);
  bytes = driver.fetch(partials[1]);
  const double ranks = driver.size();
  EXPECT_EQ(bytes, bytes_of_doubles({6.0 + 100.0 * ranks, 60.0 + 1000.0 * ranks}));
  driver.wait_all();
}

}  // namespace
}  // namespace strata::cluster::testing
