// Messages that arrive before their kind has a handler are held, then delivered when it is
// registered: still in the order they were sent, also while later ones keep arriving (a plan
// that overtook an earlier one ran a kernel before the writes of its inputs).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "cluster_test_support.hpp"
#include "strata/cluster/message_kinds.hpp"
#include "strata/cluster/network.hpp"
#include "strata/cluster/serialization.hpp"

namespace strata::cluster::testing {
namespace {

TEST(NetworkOrder, HeldMessagesAreDeliveredBeforeTheOnesThatArriveWhileTheHandlerIsSet) {
  Network& network = *the_network;
  constexpr std::uint32_t early = 300, late = 300;
  for (MessageKind round = 0; round < 40; ++round) {
    const MessageKind kind = kinds::user_kinds + 500 + round;
    for (std::uint32_t i = 0; i < early; ++i)
      network.post_value(network.rank(), kind, i);
    std::mutex lock;
    std::vector<std::uint32_t> seen;
    std::atomic<bool> go{false};
    std::thread sender([&] {
      while (!go.load())
        std::this_thread::yield();
      for (std::uint32_t i = early; i < early + late; ++i)
        network.post_value(network.rank(), kind, i);
    });
    go.store(true);
    network.on(kind, [&](int, std::span<const std::byte> payload) {
      const auto value = decode<std::uint32_t>(payload, "a test message");
      std::lock_guard guard(lock);
      seen.push_back(value);
    });
    sender.join();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (;;) {
      {
        std::lock_guard guard(lock);
        if (seen.size() == early + late) break;
      }
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "messages lost in round " << round;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    network.on(kind, [](int, std::span<const std::byte>) {});  // `seen` goes with this round
    for (std::uint32_t i = 0; i < seen.size(); ++i)
      ASSERT_EQ(seen[i], i) << "round " << round << ": message " << seen[i] << " came " << i
                            << "th";
  }
}

}  // namespace
}  // namespace strata::cluster::testing
