// HDF5 files: datasets in nested groups are listed with their type and shape, boxes read back
// what was written, datasets Strata cannot hold say why, errors name the file and the dataset,
// and `strata arrays info` lists a file with a distribution proposed for this machine.

#include "strata/array/hdf5_file.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "strata/base/error.hpp"

namespace strata::array {
namespace {

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + name;
}

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
}  // namespace strata::array
