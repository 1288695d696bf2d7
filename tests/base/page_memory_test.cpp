// Pool memory mapped from the operating system in whole pages.

#include "strata/base/page_memory.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace strata {
namespace {

TEST(PageMemory, MapsZeroedPageAlignedMemoryWritableToItsLastByte) {
  const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  for (const std::uint64_t bytes : std::vector<std::uint64_t>{0, 1, page - 1, page, 3 * page + 5}) {
    auto* data = static_cast<unsigned char*>(map_pages(bytes));
    ASSERT_NE(data, nullptr) << bytes << " B";
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(data) % page, 0u) << bytes << " B";
    const std::uint64_t usable = std::max<std::uint64_t>(bytes, 1);
    for (std::uint64_t i = 0; i < usable; ++i)
      ASSERT_EQ(data[i], 0) << "byte " << i << " of " << bytes;
    std::memset(data, 0xab, usable);
    EXPECT_EQ(data[usable - 1], 0xab);
    unmap_pages(data, bytes);
  }
}

TEST(PageMemory, ARangeLargerThanTheAddressSpaceIsRefused) {
  EXPECT_EQ(map_pages(std::uint64_t{1} << 62), nullptr);
  unmap_pages(nullptr, 4096);  // nothing to return
}

}  // namespace
}  // namespace strata
