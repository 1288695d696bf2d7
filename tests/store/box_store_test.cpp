// The same test bodies for every box store: boxes written and read back, reads assembled from
// several boxes and parts of them, the later write winning where boxes overlap, clear errors for
// parts never written and for other types, and random writes and reads against a dense
// reference. The memory store runs with a host smaller than its data (it spills); the
// distributed store runs in its own program (distributed_box_store_test.cpp) on 1, 2 and 4 ranks.

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <numeric>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "store_test_support.hpp"
#include "strata/memory/memory_manager.hpp"
#include "strata/store/distributed_box_store.hpp"
#include "strata/store/memory_box_store.hpp"
#if STRATA_STORE_WITH_HDF5
#include "strata/store/hdf5_box_store.hpp"
#endif

namespace strata::store {
namespace {

// A store and whatever it needs alive (a memory manager, a directory).
struct StoreUnderTest {
  std::unique_ptr<memory::MemoryManager> memory;
  std::unique_ptr<BoxStore> store;
};

struct Backend {
  std::string name;
  std::function<StoreUnderTest(const std::string& directory)> make;
};

// Test listings show the backend's name, not the bytes of the struct.
void PrintTo(const Backend& backend, std::ostream* out) {
  *out << backend.name;
}

#if STRATA_STORE_TEST_DISTRIBUTED
// Built into the distributed store's test program: the driver its main() runs the tests in.
std::vector<Backend> backends() {
  return {{"distributed", [](const std::string&) {
             StoreUnderTest made;
             made.store = std::make_unique<DistributedBoxStore>(*testing::the_driver);
             return made;
           }}};
}
#else
std::vector<Backend> backends() {
  std::vector<Backend> all;
  all.push_back({"memory", [](const std::string&) {
                   StoreUnderTest made;
                   memory::MemoryOptions options;
                   options.host_capacity = 32 * 1024;  // below the random test's data: it spills
                   made.memory = std::make_unique<memory::MemoryManager>(
                       options, std::span<device::Device* const>{});
                   made.store = std::make_unique<MemoryBoxStore>(*made.memory);
                   return made;
                 }});
#if STRATA_STORE_WITH_HDF5
  for (const bool staged : {true, false}) {
    all.push_back({staged ? "hdf5_staged" : "hdf5_synchronous", [staged](const std::string& dir) {
                     StoreUnderTest made;
                     Hdf5StoreOptions options;
                     options.staged = staged;
                     options.queue_bytes = 64 * 1024;  // small: writes meet back-pressure
                     made.store = std::make_unique<Hdf5BoxStore>(dir, options);
                     return made;
                   }});
  }
#endif
  return all;
}
#endif

using testing::box2;

// The value a test writes at (row, col) of a box written with `seed`.
std::int32_t value_at(std::uint64_t row, std::uint64_t col, std::int32_t seed) {
  return static_cast<std::int32_t>(row * 1000 + col) * 7 + seed;
}

std::vector<std::int32_t> values_of(const Region& box, std::int32_t seed) {
  std::vector<std::int32_t> values;
  for (std::uint64_t r = box.lo[0]; r < box.hi[0]; ++r)
    for (std::uint64_t c = box.lo[1]; c < box.hi[1]; ++c)
      values.push_back(value_at(r, c, seed));
  return values;
}

class EveryStore : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    directory_ =
        testing::temp_path("box-store-" + GetParam().name + "-" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(directory_);
    made_ = GetParam().make(directory_);
  }
  void TearDown() override {
    made_.store.reset();  // before what it uses
    made_.memory.reset();
    std::filesystem::remove_all(directory_);
  }
  BoxStore& store() { return *made_.store; }
  void write(const DataKey& key, const Region& box, std::int32_t seed) {
    const std::vector<std::int32_t> values = values_of(box, seed);
    store().write_of<std::int32_t>(key, box, values);
  }

  std::string directory_;
  StoreUnderTest made_;
};

const DataKey tile_key{"tile-7", "pixels", 3, 1};

TEST_P(EveryStore, ReadsBackWhatWasWritten) {
  write(tile_key, box2(0, 16, 0, 24), 1);
  store().flush();
  EXPECT_EQ(store().read_as<std::int32_t>(tile_key, box2(0, 16, 0, 24)),
            values_of(box2(0, 16, 0, 24), 1));
  EXPECT_EQ(store().read_as<std::int32_t>(tile_key, box2(3, 9, 5, 6)),
            values_of(box2(3, 9, 5, 6), 1));
  ASSERT_EQ(store().boxes().size(), 1u);
  EXPECT_EQ(store().boxes()[0].key, tile_key);
  EXPECT_EQ(store().boxes()[0].type, device::ElementType::i32);
}

TEST_P(EveryStore, AssemblesAReadFromTheBoxesItOverlaps) {
  // Four quadrants of a 20x20 region; a read across all four, and one across two.
  for (const Region& quadrant :
       {box2(0, 10, 0, 10), box2(0, 10, 10, 20), box2(10, 20, 0, 10), box2(10, 20, 10, 20)}) {
    write(tile_key, quadrant, 5);
  }
  EXPECT_EQ(store().read_as<std::int32_t>(tile_key, box2(4, 17, 3, 15)),
            values_of(box2(4, 17, 3, 15), 5));
  EXPECT_EQ(store().read_as<std::int32_t>(tile_key, box2(0, 20, 9, 11)),
            values_of(box2(0, 20, 9, 11), 5));
}

TEST_P(EveryStore, KeysAreApartAndTheLaterWriteWins) {
  const DataKey next_version{tile_key.name, tile_key.type, tile_key.timestamp,
                             tile_key.version + 1};
  write(tile_key, box2(0, 8, 0, 8), 1);
  write(next_version, box2(0, 8, 0, 8), 2);
  write(tile_key, box2(2, 6, 2, 6), 3);  // over the middle of the first box
  std::vector<std::int32_t> expected = values_of(box2(0, 8, 0, 8), 1);
  for (std::uint64_t r = 2; r < 6; ++r)
    for (std::uint64_t c = 2; c < 6; ++c)
      expected[r * 8 + c] = value_at(r, c, 3);
  EXPECT_EQ(store().read_as<std::int32_t>(tile_key, box2(0, 8, 0, 8)), expected);
  EXPECT_EQ(store().read_as<std::int32_t>(next_version, box2(0, 8, 0, 8)),
            values_of(box2(0, 8, 0, 8), 2));
  // A write of a box that covers earlier ones replaces them.
  write(tile_key, box2(0, 8, 0, 8), 4);
  EXPECT_EQ(store().read_as<std::int32_t>(tile_key, box2(0, 8, 0, 8)),
            values_of(box2(0, 8, 0, 8), 4));
  EXPECT_EQ(store().boxes().size(), 2u);
}

TEST_P(EveryStore, AReadOfAPartNeverWrittenNamesTheKeyAndTheBox) {
  write(tile_key, box2(0, 10, 0, 10), 1);
  write(tile_key, box2(0, 10, 12, 20), 1);  // columns 10 and 11 never written
  try {
    store().read_as<std::int32_t>(tile_key, box2(0, 4, 8, 14));
    ADD_FAILURE() << "a read of a gap succeeded";
  } catch (const BoxNotStored& error) {
    {
      const std::string message = error.what();
      EXPECT_NE(message.find("'tile-7' (pixels, t=3, v=1)"), std::string::npos) << message;
      EXPECT_NE(message.find("[0:4, 8:14]"), std::string::npos) << message;
      EXPECT_NE(message.find("[0:4, 10:12]"), std::string::npos) << message;
    }
  }
  EXPECT_THROW(store().read_as<std::int32_t>(DataKey{"other", "pixels", 0, 0}, box2(0, 1, 0, 1)),
               BoxNotStored);
}

TEST_P(EveryStore, OtherTypesAndWrongSizesAreClearErrors) {
  write(tile_key, box2(0, 4, 0, 4), 1);
  try {
    store().read_as<float>(tile_key, box2(0, 4, 0, 4));
    ADD_FAILURE() << "read as f32 data written as i32";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("its data is i32"), std::string::npos) << error.what();
  }
  const std::vector<float> floats(16, 1.0f);
  EXPECT_THROW(store().write_of<float>(tile_key, box2(4, 8, 0, 4), floats), Error);
  const std::vector<std::int32_t> short_values(15, 0);
  EXPECT_THROW(
      store().write_of<std::int32_t>(DataKey{"new", "", 0, 0}, box2(0, 4, 0, 4), short_values),
      Error);
  EXPECT_THROW(store().write_of<std::int32_t>(tile_key, box2(0, 0, 0, 4), {}), Error);
}

// Random boxes of a 64x64 grid written with random seeds, random reads checked against a dense
// reference: each cell the seed of its last write, or unwritten (then the read must throw).
TEST_P(EveryStore, RandomWritesAndReadsMatchADenseReference) {
  constexpr std::uint64_t side = 64;
  std::vector<std::int32_t> last(side * side, -1);
  std::mt19937_64 random(42);
  const auto pick = [&](std::uint64_t at_most) {
    const std::uint64_t a = random() % side, b = random() % side;
    const std::uint64_t lo = std::min(a, b), hi = std::min(std::max(a, b) + 1, lo + at_most);
    return std::pair(lo, hi);
  };
  for (int step = 0; step < 400; ++step) {
    const auto [r0, r1] = pick(40);
    const auto [c0, c1] = pick(40);
    const Region box = box2(r0, r1, c0, c1);
    if (step % 2 == 0) {
      const auto seed = static_cast<std::int32_t>(step);
      write(tile_key, box, seed);
      for (std::uint64_t r = r0; r < r1; ++r)
        for (std::uint64_t c = c0; c < c1; ++c)
          last[r * side + c] = seed;
      continue;
    }
    bool complete = true;
    std::vector<std::int32_t> expected;
    for (std::uint64_t r = r0; r < r1; ++r) {
      for (std::uint64_t c = c0; c < c1; ++c) {
        complete = complete && last[r * side + c] >= 0;
        expected.push_back(value_at(r, c, last[r * side + c]));
      }
    }
    if (complete) {
      ASSERT_EQ(store().read_as<std::int32_t>(tile_key, box), expected) << box.describe();
    } else {
      EXPECT_THROW(store().read_as<std::int32_t>(tile_key, box), BoxNotStored) << box.describe();
    }
  }
  store().flush();
}

INSTANTIATE_TEST_SUITE_P(Backends, EveryStore, ::testing::ValuesIn(backends()),
                         [](const auto& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace strata::store
