// Records from and to files: round trips, and bad input as errors that name the file and where.

#include "strata/dataset/record_files.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "strata/base/error.hpp"
#include "strata/store/npy.hpp"

namespace strata::dataset {
namespace {

struct Star {
  std::int64_t id = 0;
  double magnitude = 0;
  std::array<float, 2> position{};
};

Schema<Star> star_schema() {
  return Schema<Star>()
      .field("id", &Star::id)
      .field("magnitude", &Star::magnitude)
      .field("pos", &Star::position);
}

std::string temporary(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) / name).string();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// The message of the error `f` throws.
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(RecordFiles, CsvRoundTripsEveryFieldExactly) {
  const std::vector<Star> stars{{1, 4.25, {0.1f, -2.5f}}, {-7, 1e-300, {3.0f, 1e30f}}};
  const std::string path = temporary("stars.csv");
  write_csv<Star>(path, stars, star_schema());
  std::ifstream in(path);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header, "id,magnitude,pos0,pos1");
  const std::vector<Star> read = read_csv(path, star_schema());
  ASSERT_EQ(read.size(), stars.size());
  for (std::size_t i = 0; i < read.size(); ++i) {
    EXPECT_EQ(read[i].id, stars[i].id);
    EXPECT_EQ(read[i].magnitude, stars[i].magnitude);
    EXPECT_EQ(read[i].position, stars[i].position);
  }
}

TEST(RecordFiles, CsvColumnsAreFoundByNameInAnyOrder) {
  const std::string path = temporary("reordered.csv");
  write_text(path, "pos1, note ,magnitude,id,pos0\n2,x,3.5,10,1\n\n4,y,-1,11,3\n");
  const std::vector<Star> read = read_csv(path, star_schema());
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[1].id, 11);
  EXPECT_EQ(read[1].magnitude, -1.0);
  EXPECT_EQ(read[1].position, (std::array<float, 2>{3.0f, 4.0f}));
}

TEST(RecordFiles, BadCsvNamesTheFileTheLineAndTheField) {
  const std::string path = temporary("bad.csv");
  write_text(path, "id,magnitude,pos0,pos1\n1,2,3,4\n2,2.5,3\n");
  std::string message = error_of([&] { read_csv(path, star_schema()); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("line 3"), std::string::npos) << message;
  EXPECT_NE(message.find("3 fields"), std::string::npos) << message;

  write_text(path, "id,magnitude,pos0,pos1\n1,2,3,4\n2,bright,3,4\n");
  message = error_of([&] { read_csv(path, star_schema()); });
  EXPECT_NE(message.find("line 3, field 'magnitude'"), std::string::npos) << message;
  EXPECT_NE(message.find("'bright' is not a f64"), std::string::npos) << message;

  write_text(path, "id,magnitude,pos0\n1,2,3\n");
  message = error_of([&] { read_csv(path, star_schema()); });
  EXPECT_NE(message.find("no column 'pos1'"), std::string::npos) << message;

  write_text(path, "id,magnitude,pos0,pos1\n1.5,2,3,4\n");
  message = error_of([&] { read_csv(path, star_schema()); });
  EXPECT_NE(message.find("field 'id'"), std::string::npos) << message;
}

TEST(RecordFiles, ABinaryFileOfPartRecordsIsAnErrorWithTheOffset) {
  const std::string path = temporary("records.bin");
  std::vector<Star> stars(3);
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(stars.data()), sizeof(Star) * 3 - 5);
  }
  const std::string message = error_of([&] { read_binary<Star>(path); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("byte offset " + std::to_string(2 * sizeof(Star))), std::string::npos)
      << message;
  EXPECT_NE(error_of([] { read_binary<Star>("/nonexistent/records.bin"); }).find("cannot open"),
            std::string::npos);
}

TEST(RecordFiles, NpyRowsAreRecords) {
  const std::string path = temporary("rows.npy");
  const std::vector<double> values{1, 2, 3, 4, 5, 6};
  store::write_npy(path, device::ElementType::f64, {3, 2}, std::as_bytes(std::span(values)));
  const auto rows = read_npy<std::array<double, 2>>(path);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[2][1], 6.0);
  EXPECT_NE(error_of([&] { read_npy<std::array<double, 3>>(path); }).find("rows have 16 bytes"),
            std::string::npos);
}

TEST(RecordFiles, FashionMnistIdxFilesRead) {
  const std::string images = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz";
  const std::string labels = "/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz";
  if (!std::filesystem::exists(images)) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  const IdxFile idx = read_idx(images);
  EXPECT_EQ(idx.dimensions, (std::vector<std::uint32_t>{10000, 28, 28}));
  EXPECT_EQ(idx.data.size(), 10000u * 28 * 28);
  const IdxFile classes = read_idx(labels);
  ASSERT_EQ(classes.data.size(), 10000u);
  for (std::byte label : classes.data)
    ASSERT_LT(std::to_integer<int>(label), 10);
  const std::string damaged = temporary("damaged.idx");
  {
    std::ofstream out(damaged, std::ios::binary);
    const char header[] = {0, 0, 8, 1, 0, 0, 0, 9, 1, 2, 3};
    out.write(header, sizeof(header));
  }
  EXPECT_NE(error_of([&] { read_idx(damaged); }).find("promises 9 bytes"), std::string::npos);
}

}  // namespace
}  // namespace strata::dataset
