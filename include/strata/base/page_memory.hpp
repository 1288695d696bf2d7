#pragma once
// Memory mapped straight from the operating system in whole pages, for pools: pages cost nothing
// until touched, and no allocator (a sanitizer's included) walks the range when it is made.

#include <cstdint>

namespace strata {

// Maps `bytes` (rounded up to whole pages, at least one) of zeroed, page-aligned memory; returns
// nullptr when the system refuses.
void* map_pages(std::uint64_t bytes) noexcept;
// Returns memory from map_pages(bytes) to the system.
void unmap_pages(void* data, std::uint64_t bytes) noexcept;

}  // namespace strata
