// JobSlots: at most `count` jobs hold a slot, each slot its own result buffer of the asked size.

#include "job_slots.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "strata/base/error.hpp"
#include "strata/device/backends.hpp"

namespace strata::allpairs::detail {
namespace {

std::unique_ptr<device::Device> cpu_device() {
  return device::make_cpu_device(device::default_block_runner());
}

TEST(JobSlots, EachSlotHasItsOwnResultBufferOfTheResultSize) {
  const auto device = cpu_device();
  JobSlots slots(*device, 3, 40);
  std::set<const std::byte*> buffers;
  std::set<unsigned> taken;
  for (int i = 0; i < 3; ++i) {
    const unsigned slot = slots.acquire();
    EXPECT_TRUE(taken.insert(slot).second);
    EXPECT_EQ(slots.result(slot).size(), 40u);
    buffers.insert(slots.result(slot).data());
  }
  EXPECT_EQ(buffers.size(), 3u);
  EXPECT_THROW((JobSlots{*device, 0, 8}), strata::Error);
}

TEST(JobSlots, AcquireWaitsForARelease) {
  const auto device = cpu_device();
  JobSlots slots(*device, 1, 8);
  const unsigned first = slots.acquire();
  std::atomic<bool> got{false};
  std::thread waiter([&] {
    const unsigned second = slots.acquire();
    EXPECT_EQ(second, first);
    got = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(got.load());
  slots.release(first);
  waiter.join();
  EXPECT_TRUE(got.load());
}

}  // namespace
}  // namespace strata::allpairs::detail
