// HDF5 files: datasets in nested groups are listed with their type and shape, boxes read back
// what was written, datasets Strata cannot hold say why, errors name the file and the dataset,
// and `strata arrays info` lists a file with a distribution proposed for this machine.

#include "strata/store/hdf5_file.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "store_test_support.hpp"
#include "strata/base/error.hpp"

namespace strata::store {
namespace {

using testing::temp_path;

template <typename F>
std::string message_of(F call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::span<const std::byte> bytes_of(const std::vector<float>& values) {
  return std::as_bytes(std::span(values));
}

TEST(Hdf5File, BoxesWrittenReadBackAndDatasetsAreListed) {
  const std::string path = temp_path("boxes.h5");
  create_hdf5_dataset(path, "/fields/temperature", device::ElementType::f32, {6, 8});
  std::vector<float> all(48);
  for (std::size_t i = 0; i < all.size(); ++i)
    all[i] = static_cast<float>(i) * 0.5f;
  // Written as two boxes, the way two ranks write their chunks.
  const Region top =
      Region::of(std::array<std::uint64_t, 2>{0, 0}, std::array<std::uint64_t, 2>{3, 8});
  const Region bottom =
      Region::of(std::array<std::uint64_t, 2>{3, 0}, std::array<std::uint64_t, 2>{6, 8});
  write_hdf5_box(path, "/fields/temperature", top, device::ElementType::f32,
                 bytes_of(std::vector<float>(all.begin(), all.begin() + 24)));
  write_hdf5_box(path, "/fields/temperature", bottom, device::ElementType::f32,
                 bytes_of(std::vector<float>(all.begin() + 24, all.end())));
  // A box across both, read back.
  const Region middle =
      Region::of(std::array<std::uint64_t, 2>{2, 3}, std::array<std::uint64_t, 2>{5, 6});
  std::vector<float> read(9);
  read_hdf5_box(path, "/fields/temperature", middle, device::ElementType::f32,
                std::as_writable_bytes(std::span(read)));
  for (std::uint64_t i = 0; i < 3; ++i)
    for (std::uint64_t j = 0; j < 3; ++j)
      EXPECT_EQ(read[i * 3 + j], all[(2 + i) * 8 + 3 + j]);

  const auto datasets = list_hdf5_datasets(path);
  ASSERT_EQ(datasets.size(), 1u);
  EXPECT_EQ(datasets[0].name, "/fields/temperature");
  EXPECT_EQ(datasets[0].type, device::ElementType::f32);
  EXPECT_EQ(datasets[0].shape, (std::vector<std::uint64_t>{6, 8}));
  EXPECT_TRUE(datasets[0].unsupported.empty());
  const Hdf5Dataset described = describe_hdf5_dataset(path, "/fields/temperature");
  EXPECT_EQ(described.shape, datasets[0].shape);
}

TEST(Hdf5File, ErrorsNameTheFileTheDatasetAndWhatWasExpected) {
  const std::string missing = temp_path("no-such.h5");
  EXPECT_NE(message_of([&] {
              list_hdf5_datasets(missing);
            }).find(missing + ": cannot open it as an HDF5 file"),
            std::string::npos);
  const std::string text = temp_path("text.h5");
  std::FILE* file = std::fopen(text.c_str(), "w");
  std::fputs("not hdf5\n", file);
  std::fclose(file);
  EXPECT_NE(message_of([&] { describe_hdf5_dataset(text, "/x"); }).find("cannot open it"),
            std::string::npos);

  const std::string path = temp_path("errors.h5");
  create_hdf5_dataset(path, "/volume", device::ElementType::u16, {2, 2, 2, 2});
  EXPECT_NE(message_of([&] {
              describe_hdf5_dataset(path, "/nothing");
            }).find(path + ", dataset '/nothing': no such dataset"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              describe_hdf5_dataset(path, "/volume");
            }).find("dataset '/volume': it has 4 dimensions; arrays have 1 to 3"),
            std::string::npos);
  const auto listed = list_hdf5_datasets(path);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_FALSE(listed[0].unsupported.empty());

  const std::string small = temp_path("small.h5");
  create_hdf5_dataset(small, "/v", device::ElementType::f64, {4});
  std::vector<double> out(6);
  EXPECT_NE(message_of([&] {
              read_hdf5_box(
                  small, "/v",
                  Region::of(std::array<std::uint64_t, 1>{0}, std::array<std::uint64_t, 1>{6}),
                  device::ElementType::f64, std::as_writable_bytes(std::span(out)));
            }).find("box [0:6] leaves its shape (4)"),
            std::string::npos);
}

// Random cuts of a 3-D dataset into a grid of boxes, each box written by a thread of its own at
// its place in the file (as ranks write their chunks at once): HDF5 reads back every element.
TEST(Hdf5File, BoxesWrittenAtTheirPlaceInTheFileAllAtOnceReadBackThroughHdf5) {
  const std::vector<std::uint64_t> shape{5, 6, 7};
  std::vector<std::uint16_t> all(5 * 6 * 7);
  for (std::size_t i = 0; i < all.size(); ++i)
    all[i] = static_cast<std::uint16_t>(i * 7 + 3);
  std::mt19937 random(11);
  for (int round = 0; round < 12; ++round) {
    const std::string path = temp_path("at_once.h5");
    const std::uint64_t offset =
        create_hdf5_dataset(path, "/grid/values", device::ElementType::u16, shape);
    // Per dimension, cut points between 0 and the extent (some rounds leave a dimension whole).
    std::array<std::vector<std::uint64_t>, 3> cuts;
    for (std::size_t d = 0; d < 3; ++d) {
      cuts[d] = {0, shape[d]};
      const int extra = static_cast<int>(random() % 3);
      for (int c = 0; c < extra; ++c)
        cuts[d].push_back(1 + random() % (shape[d] - 1));
      std::sort(cuts[d].begin(), cuts[d].end());
      cuts[d].erase(std::unique(cuts[d].begin(), cuts[d].end()), cuts[d].end());
    }
    std::vector<std::thread> writers;
    for (std::size_t a = 0; a + 1 < cuts[0].size(); ++a)
      for (std::size_t b = 0; b + 1 < cuts[1].size(); ++b)
        for (std::size_t c = 0; c + 1 < cuts[2].size(); ++c) {
          const std::array<std::uint64_t, 3> lo{cuts[0][a], cuts[1][b], cuts[2][c]};
          const std::array<std::uint64_t, 3> hi{cuts[0][a + 1], cuts[1][b + 1], cuts[2][c + 1]};
          writers.emplace_back([&, lo, hi] {
            std::vector<std::uint16_t> box;
            for (std::uint64_t i = lo[0]; i < hi[0]; ++i)
              for (std::uint64_t j = lo[1]; j < hi[1]; ++j)
                for (std::uint64_t k = lo[2]; k < hi[2]; ++k)
                  box.push_back(all[(i * 6 + j) * 7 + k]);
            write_hdf5_box_at(path, "/grid/values", offset, shape, Region::of(lo, hi),
                              device::ElementType::u16, std::as_bytes(std::span(box)));
          });
        }
    for (std::thread& writer : writers)
      writer.join();
    std::vector<std::uint16_t> read(all.size());
    read_hdf5_box(
        path, "/grid/values",
        Region::of(std::array<std::uint64_t, 3>{0, 0, 0}, std::array<std::uint64_t, 3>{5, 6, 7}),
        device::ElementType::u16, std::as_writable_bytes(std::span(read)));
    ASSERT_EQ(read, all) << "round " << round << ", " << writers.size() << " boxes";
  }
}

TEST(Hdf5File, ABoxWrittenAtItsPlaceIsCheckedAndNamesTheFile) {
  const std::string path = temp_path("at_place.h5");
  const std::uint64_t offset = create_hdf5_dataset(path, "/v", device::ElementType::f32, {4, 4});
  const std::vector<float> values(8, 1.0f);
  EXPECT_NE(message_of([&] {
              write_hdf5_box_at(path, "/v", offset, {4, 4},
                                Region::of(std::array<std::uint64_t, 2>{3, 0},
                                           std::array<std::uint64_t, 2>{5, 4}),
                                device::ElementType::f32, bytes_of(values));
            }).find("dataset '/v': box [3:5, 0:4] leaves its shape (4, 4)"),
            std::string::npos);
  const std::string missing = temp_path("no_such_dir/at_place.h5");
  EXPECT_NE(message_of([&] {
              write_hdf5_box_at(missing, "/v", offset, {4, 4},
                                Region::of(std::array<std::uint64_t, 2>{0, 0},
                                           std::array<std::uint64_t, 2>{2, 4}),
                                device::ElementType::f32, bytes_of(values));
            }).find(missing + ", dataset '/v': cannot open it to write"),
            std::string::npos);
}

#ifdef STRATA_CLI_PATH
TEST(ArraysInfo, ListsTheDatasetsWithADistributionForThisMachine) {
  const std::string path = temp_path("info.h5");
  create_hdf5_dataset(path, "/images/cells", device::ElementType::u8, {1000, 640, 3});
  const std::string report = temp_path("info.txt");
  const std::string command = std::string(STRATA_CLI_PATH) + " arrays info " + path +
                              " --backends cpu > " + report + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::FILE* in = std::fopen(report.c_str(), "r");
  ASSERT_NE(in, nullptr);
  std::string text;
  for (int c = std::fgetc(in); c != EOF; c = std::fgetc(in))
    text += static_cast<char>(c);
  std::fclose(in);
  EXPECT_NE(text.find("/images/cells  u8 1000x640x3"), std::string::npos) << text;
  EXPECT_NE(text.find("proposed: Distribution::row_blocks(1000): 1 chunk of"), std::string::npos)
      << text;
  EXPECT_NE(text.find("over 1 device"), std::string::npos) << text;
}
#endif

}  // namespace
}  // namespace strata::store
