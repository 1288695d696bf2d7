// Byte-size and count parsing and formatting.

#include "strata/base/units.hpp"

#include <gtest/gtest.h>

namespace strata {
namespace {

TEST(Units, ParsesByteSizesWithBinaryAndDecimalUnits) {
  EXPECT_EQ(parse_bytes("4096"), 4096u);
  EXPECT_EQ(parse_bytes("64KiB"), 64u * 1024);
  EXPECT_EQ(parse_bytes("1.5GiB"), 3ull << 29);
  EXPECT_EQ(parse_bytes("2G"), 2ull << 30);
  EXPECT_EQ(parse_bytes("100MB"), 100'000'000u);
  EXPECT_EQ(parse_bytes("7 MiB"), 7u << 20);
}

TEST(Units, RejectsMalformedByteSizes) {
  EXPECT_FALSE(parse_bytes(""));
  EXPECT_FALSE(parse_bytes("GiB"));
  EXPECT_FALSE(parse_bytes("12 parsecs"));
  EXPECT_FALSE(parse_bytes("-5"));
  EXPECT_FALSE(parse_bytes("1e400"));
}

TEST(Units, ParsesCounts) {
  EXPECT_EQ(parse_count("0"), 0u);
  EXPECT_EQ(parse_count("123456"), 123456u);
  EXPECT_FALSE(parse_count("12x"));
  EXPECT_FALSE(parse_count("-1"));
  EXPECT_FALSE(parse_count(""));
}

TEST(Units, FormatsBytesAndSeconds) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(3ull << 29), "1.50 GiB");
  EXPECT_EQ(format_seconds(850e-9), "850 ns");
  EXPECT_EQ(format_seconds(1.2e-3), "1.20 ms");
  EXPECT_EQ(format_seconds(3.4), "3.40 s");
}

}  // namespace
}  // namespace strata
