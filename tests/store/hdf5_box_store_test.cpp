// What the HDF5 box store adds to the tests every store passes: its boxes outlive the process,
// its files are plain HDF5, what a killed write left is cleaned up, a staged write that failed is
// reported, and a writer killed with SIGKILL at random times leaves every box whole or absent.

#include "strata/store/hdf5_box_store.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "box_store_pattern.hpp"
#include "store_test_support.hpp"
#include "strata/store/hdf5_file.hpp"

namespace strata::store {
namespace {

namespace fs = std::filesystem;

class Hdf5Store : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ =
        testing::temp_path(std::string("hdf5-store-") +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }
  std::string directory_;
};

const DataKey mask{"slide 4/tile (2,3)", "mask", -1, 2};  // characters a path cannot hold as-is

using testing::box2;

std::vector<std::uint16_t> counting(std::size_t n, std::uint16_t from) {
  std::vector<std::uint16_t> values(n);
  for (std::size_t i = 0; i < n; ++i)
    values[i] = static_cast<std::uint16_t>(from + i);
  return values;
}

TEST_F(Hdf5Store, BoxesOutliveTheStoreInTheirWriteOrder) {
  {
    Hdf5BoxStore store(directory_);
    store.write_of<std::uint16_t>(mask, box2(0, 4, 0, 4), counting(16, 0));
    store.write_of<std::uint16_t>(mask, box2(2, 4, 0, 4), counting(8, 100));  // over the bottom
    store.write_of<std::uint16_t>(mask, box2(0, 4, 4, 8), counting(16, 200));
  }
  Hdf5BoxStore reopened(directory_);
  ASSERT_EQ(reopened.boxes().size(), 3u);
  const std::vector<std::uint16_t> read = reopened.read_as<std::uint16_t>(mask, box2(0, 4, 0, 8));
  EXPECT_EQ(read[0 * 8 + 1], 1);
  EXPECT_EQ(read[2 * 8 + 0], 100);
  EXPECT_EQ(read[3 * 8 + 3], 107);
  EXPECT_EQ(read[1 * 8 + 5], 205);
  // A later write goes after what was there.
  reopened.write_of<std::uint16_t>(mask, box2(0, 1, 0, 8), counting(8, 300));
  EXPECT_EQ(reopened.read_as<std::uint16_t>(mask, box2(0, 1, 0, 8)), counting(8, 300));
}

TEST_F(Hdf5Store, EachBoxIsAnHdf5FileWithItsKeyAsAttributes) {
  Hdf5StoreOptions synchronous;
  synchronous.staged = false;
  Hdf5BoxStore store(directory_, synchronous);
  store.write_of<std::uint16_t>(mask, box2(10, 13, 20, 25), counting(15, 7));
  const std::string file = store.file_of(mask, box2(10, 13, 20, 25));
  EXPECT_TRUE(file.starts_with(directory_ + "/slide%204%2Ftile%20%282%2C3%29/mask/t-1.v2/"))
      << file;
  const std::vector<Hdf5Dataset> datasets = list_hdf5_datasets(file);
  ASSERT_EQ(datasets.size(), 1u);
  EXPECT_EQ(datasets[0].name, "/data");
  EXPECT_EQ(datasets[0].type, device::ElementType::u16);
  EXPECT_EQ(datasets[0].shape, (std::vector<std::uint64_t>{3, 5}));
  std::vector<std::uint16_t> through_hdf5(15);
  read_hdf5_box(file, "/data", box2(0, 3, 0, 5), device::ElementType::u16,
                std::as_writable_bytes(std::span(through_hdf5)));
  EXPECT_EQ(through_hdf5, counting(15, 7));
  // A key without a kind still makes a file (its attribute left out).
  const DataKey untyped{"untyped", "", 0, 0};
  store.write_of<std::uint16_t>(untyped, box2(0, 1, 0, 2), counting(2, 9));
  EXPECT_EQ(store.read_as<std::uint16_t>(untyped, box2(0, 1, 0, 2)), counting(2, 9));
}

TEST_F(Hdf5Store, WhatAKilledWriteLeftIsRemovedAndForeignFilesAreNamed) {
  {
    Hdf5BoxStore store(directory_);
    store.write_of<std::uint16_t>(mask, box2(0, 2, 0, 2), counting(4, 0));
  }
  const std::string file = Hdf5BoxStore(directory_).file_of(mask, box2(0, 2, 0, 2));
  std::ofstream(file + ".tmp") << "half a file";
  {
    Hdf5BoxStore store(directory_);
    EXPECT_EQ(store.boxes().size(), 1u);
    EXPECT_FALSE(fs::exists(file + ".tmp"));
  }
  std::ofstream(directory_ + "/notes.txt") << "not a box";
  try {
    Hdf5BoxStore store(directory_);
    ADD_FAILURE() << "a store opened with a foreign file in it";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("notes.txt"), std::string::npos) << error.what();
  }
}

TEST_F(Hdf5Store, AStagedWriteThatFailedIsReportedByFlushAndByReadsOfItsBox) {
  Hdf5BoxStore store(directory_);
  std::ofstream(directory_ + "/blocked") << "a file where the key's directory would go";
  const DataKey blocked{"blocked", "mask", 0, 0};
  store.write_of<std::uint16_t>(blocked, box2(0, 2, 0, 2), counting(4, 0));
  try {
    store.flush();
    ADD_FAILURE() << "flush() after a failed write returned";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("'blocked' (mask, t=0, v=0)"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(store.read_as<std::uint16_t>(blocked, box2(0, 2, 0, 2)), Error);
  EXPECT_THROW(store.write_of<std::uint16_t>(mask, box2(0, 2, 0, 2), counting(4, 0)), Error);
}

#ifdef STRATA_BOX_STORE_WRITER
// Reads every stored box and checks it is one pass's values of its tile.
std::size_t check_every_box(const std::string& directory) {
  Hdf5BoxStore store(directory);
  const std::vector<StoredBox> boxes = store.boxes();
  for (const StoredBox& stored : boxes) {
    EXPECT_EQ(stored.key, testing::field);
    const std::uint64_t tile = stored.box.lo[1] / testing::tile_side;
    EXPECT_EQ(stored.box, testing::tile_box(tile));
    const std::vector<double> values = store.read_as<double>(stored.key, stored.box);
    const auto pass = static_cast<std::int64_t>(values[0] / 1e6);
    EXPECT_EQ(values, testing::tile_values(tile, pass)) << "tile " << tile << " pass " << pass;
  }
  return boxes.size();
}

// Starts box_store_writer on the directory (with a pass count, or until killed) and returns its
// pid once it says it is writing, so that kills land in its write loop however slow its start.
pid_t start_writer(const std::string& directory, const char* passes) {
  int from_writer[2];
  if (pipe(from_writer) != 0) return -1;
  const pid_t writer = fork();
  if (writer == 0) {
    dup2(from_writer[1], STDOUT_FILENO);
    close(from_writer[0]);
    close(from_writer[1]);
    execl(STRATA_BOX_STORE_WRITER, STRATA_BOX_STORE_WRITER, directory.c_str(), passes, nullptr);
    _exit(127);
  }
  close(from_writer[1]);
  char said[8] = {};
  const ssize_t got = read(from_writer[0], said, sizeof said - 1);
  close(from_writer[0]);
  return got > 0 && std::string_view(said).starts_with("writing") ? writer : -1;
}

TEST_F(Hdf5Store, AWriterKilledAtRandomTimesLeavesEveryBoxWholeOrAbsent) {
  std::mt19937 random(7);
  for (int run = 0; run < 6; ++run) {
    const pid_t writer = start_writer(directory_, nullptr);
    ASSERT_GT(writer, 0) << "box_store_writer did not start";
    std::this_thread::sleep_for(std::chrono::milliseconds(random() % 200));
    ASSERT_EQ(kill(writer, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(writer, &status, 0), writer);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer ended by itself, status " << status;
    const std::size_t stored = check_every_box(directory_);
    EXPECT_LE(stored, testing::tiles);  // one box per tile: rewrites replace the earlier ones
  }
  // A writer that finishes a pass on what the killed ones left leaves every tile.
  const pid_t writer = start_writer(directory_, "1");
  ASSERT_GT(writer, 0) << "box_store_writer did not start";
  int status = 0;
  ASSERT_EQ(waitpid(writer, &status, 0), writer);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_EQ(check_every_box(directory_), testing::tiles);
}
#endif

}  // namespace
}  // namespace strata::store
