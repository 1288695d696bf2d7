#include "strata/base/page_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

namespace strata {
namespace {

constexpr std::uint64_t huge_page_threshold = std::uint64_t{64} << 20;

std::uint64_t whole_pages(std::uint64_t bytes) {
  const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  return std::max<std::uint64_t>(1, (bytes + page - 1) / page) * page;
}

}  // namespace

void* map_pages(std::uint64_t bytes) noexcept {
  void* data = mmap(nullptr, whole_pages(bytes), PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (data == MAP_FAILED) return nullptr;
  // A pool's first touch faults once per 2 MiB instead of once per 4 KiB page where the system
  // gives transparent huge pages on request (a hint: refused, nothing changes).
  if (bytes >= huge_page_threshold) madvise(data, whole_pages(bytes), MADV_HUGEPAGE);
  return data;
}

void unmap_pages(void* data, std::uint64_t bytes) noexcept {
  if (data != nullptr) munmap(data, whole_pages(bytes));
}

}  // namespace strata
