// NumPy .npy files: what this writes reads back (every type, 1 to 3 dimensions), a file numpy
// wrote (matplotlib's sample data) reads with its type and shape, and files this cannot read are
// errors that name the file and what was expected.

#include "strata/store/npy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "store_test_support.hpp"
#include "strata/base/error.hpp"

namespace strata::store {
namespace {

const std::string matplotlib_sample =
    "/usr/share/matplotlib/mpl-data/sample_data/axes_grid/bivariate_normal.npy";

using testing::temp_path;

std::string message_of(const std::string& path) {
  try {
    read_npy_header(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

void write_raw(const std::string& path, const std::string& header_dict, std::size_t data_bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const char length[2] = {static_cast<char>(header_dict.size()), 0};
  out.write(length, 2);
  out << header_dict;
  out << std::string(data_bytes, '\0');
}

TEST(Npy, WhatIsWrittenReadsBackForEveryTypeAndRank) {
  const std::vector<device::ElementType> types{device::ElementType::i8,  device::ElementType::u8,
                                               device::ElementType::i16, device::ElementType::u16,
                                               device::ElementType::i32, device::ElementType::u32,
                                               device::ElementType::i64, device::ElementType::u64,
                                               device::ElementType::f32, device::ElementType::f64};
  const std::vector<std::vector<std::uint64_t>> shapes{{7}, {3, 5}, {2, 3, 4}};
  for (device::ElementType type : types) {
    for (const auto& shape : shapes) {
      std::uint64_t elements = 1;
      for (std::uint64_t e : shape)
        elements *= e;
      std::vector<std::byte> data(elements * device::size_of(type));
      for (std::size_t i = 0; i < data.size(); ++i)
        data[i] = static_cast<std::byte>(i * 7 + 3);
      const std::string path = temp_path("roundtrip.npy");
      write_npy(path, type, shape, data);
      NpyHeader header;
      EXPECT_EQ(read_npy(path, header), data);
      EXPECT_EQ(header.type, type);
      EXPECT_EQ(header.shape, shape);
      EXPECT_EQ(header.data_offset % 64, 0u);  // as numpy aligns it
    }
  }
}

TEST(Npy, AFileNumpyWroteReadsWithItsTypeAndShape) {
  if (!std::filesystem::exists(matplotlib_sample)) {
    GTEST_SKIP() << matplotlib_sample << " is missing (Debian package python-matplotlib-data)";
  }
  NpyHeader header;
  const std::vector<std::byte> data = read_npy(matplotlib_sample, header);
  EXPECT_EQ(header.type, device::ElementType::f64);
  EXPECT_EQ(header.shape, (std::vector<std::uint64_t>{15, 15}));
  ASSERT_EQ(data.size(), 15u * 15u * 8u);
  // The difference of two bivariate normal densities (matplotlib's demo data): its extremes, as
  // Python's struct module reads them from the same bytes.
  std::vector<double> values(225);
  std::memcpy(values.data(), data.data(), data.size());
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  EXPECT_EQ(high - values.begin(), 7 * 15 + 6);
  EXPECT_EQ(low - values.begin(), 10 * 15 + 9);
  EXPECT_NEAR(*high, 1.3856608412833054, 1e-15);
  EXPECT_NEAR(*low, -1.6939936746020778, 1e-15);
}

TEST(Npy, FilesItCannotReadAreErrorsNamingTheFileAndWhatWasExpected) {
  const std::string missing = temp_path("no-such-file.npy");
  EXPECT_NE(message_of(missing).find(missing + ": cannot open it"), std::string::npos);

  const std::string text = temp_path("text.npy");
  std::ofstream(text) << "shape,descr\n1,2\n";
  EXPECT_NE(message_of(text).find("does not begin with the .npy magic string"), std::string::npos);

  const std::string fortran = temp_path("fortran.npy");
  write_raw(fortran, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }\n", 32);
  EXPECT_NE(message_of(fortran).find(fortran + ": not a .npy file Strata reads: its elements "
                                               "are in Fortran order"),
            std::string::npos);

  const std::string big = temp_path("big.npy");
  write_raw(big, "{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }\n", 16);
  EXPECT_NE(message_of(big).find("big-endian"), std::string::npos);

  const std::string complex = temp_path("complex.npy");
  write_raw(complex, "{'descr': '<c16', 'fortran_order': False, 'shape': (4,), }\n", 64);
  EXPECT_NE(message_of(complex).find("element type '<c16' is not one of"), std::string::npos);

  const std::string four = temp_path("four.npy");
  write_raw(four, "{'descr': '<u1', 'fortran_order': False, 'shape': (2, 2, 2, 2), }\n", 16);
  EXPECT_NE(message_of(four).find("has 4 dimensions; arrays have 1 to 3"), std::string::npos);

  const std::string cut = temp_path("cut.npy");
  write_raw(cut, "{'descr': '<i4', 'fortran_order': False, 'shape': (10,), }\n", 12);
  EXPECT_NE(message_of(cut).find("needs 40 bytes of data, the file has 12"), std::string::npos);
}

}  // namespace
}  // namespace strata::store
