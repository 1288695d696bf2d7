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

// Issue 14: sizes are exact to the byte and a size beyond 64 bits is out of range, never wrapped.
TEST(Units, ParsesByteSizesExactlyAndRefusesOverflow) {
  EXPECT_EQ(parse_bytes("9007199254740993"), 9007199254740993ull);  // 2^53 + 1, not a double
  EXPECT_EQ(parse_bytes("18446744073709551615"), 18446744073709551615ull);
  EXPECT_EQ(parse_bytes("16777215.999999999999 TiB"), 18446744073709551615ull);
  EXPECT_EQ(parse_bytes("0.5B"), 1u);   // half a byte rounds up
  EXPECT_EQ(parse_bytes("0.49B"), 0u);  // less than half rounds down
  EXPECT_EQ(parse_bytes(".5KiB"), 512u);
  EXPECT_EQ(parse_bytes("1.0009765625KiB"), 1025u);
  EXPECT_EQ(parse_bytes_checked("16777216TiB").status, ParseStatus::out_of_range);
  EXPECT_EQ(parse_bytes_checked("18446744073709551616").status, ParseStatus::out_of_range);
  EXPECT_EQ(parse_bytes_checked("18446744073709551615 GiB").status, ParseStatus::out_of_range);
  EXPECT_EQ(parse_bytes_checked("99999999999999999999").status, ParseStatus::out_of_range);
  EXPECT_EQ(parse_bytes_checked("99999999999999999999 parsecs").status, ParseStatus::malformed);
  EXPECT_EQ(parse_bytes_checked("1.2.3").status, ParseStatus::malformed);
  EXPECT_EQ(parse_bytes_checked(".").status, ParseStatus::malformed);
}

TEST(Units, CountsBeyond64BitsAreOutOfRange) {
  EXPECT_EQ(parse_count("18446744073709551615"), 18446744073709551615ull);
  EXPECT_EQ(parse_count("000042"), 42u);
  EXPECT_EQ(parse_count_checked("18446744073709551616").status, ParseStatus::out_of_range);
  EXPECT_EQ(parse_count_checked("99999999999999999999").status, ParseStatus::out_of_range);
  EXPECT_EQ(parse_count_checked("+1").status, ParseStatus::malformed);
  EXPECT_EQ(parse_count_checked(" 1").status, ParseStatus::malformed);
  EXPECT_FALSE(parse_count("99999999999999999999"));
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
