// The host-side ordering of a CUDA queue (OrderedIssuer) with manual events standing in for
// other backends' events: no GPU needed.

#include "ordered_issuer.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace strata::device::cuda {
namespace {

// Records the order operations were issued in, and the dependency errors they got.
struct Log {
  std::mutex lock;
  std::vector<int> issued;
  std::vector<int> failed;
  OrderedIssuer::Issue op(int id) {
    return [this, id](std::exception_ptr error) {
      std::lock_guard guard(lock);
      (error ? failed : issued).push_back(id);
    };
  }
  std::vector<int> order() {
    std::lock_guard guard(lock);
    return issued;
  }
};

TEST(OrderedIssuer, WithoutWaitsIssuesAtOnce) {
  auto issuer = std::make_shared<OrderedIssuer>();
  Log log;
  issuer->submit({}, log.op(1));
  issuer->submit({Event()}, log.op(2));  // empty events count as complete
  EXPECT_EQ(log.order(), (std::vector<int>{1, 2}));
  EXPECT_EQ(issuer->held_back(), 0u);
}

TEST(OrderedIssuer, AForeignEventHoldsBackItsOperationAndEveryLaterOne) {
  auto issuer = std::make_shared<OrderedIssuer>();
  Log log;
  Event gate = Event::manual();
  issuer->submit({}, log.op(1));
  issuer->submit({gate}, log.op(2));
  issuer->submit({}, log.op(3));  // no waits of its own, but queued behind 2
  EXPECT_EQ(log.order(), (std::vector<int>{1}));
  EXPECT_EQ(issuer->held_back(), 2u);
  gate.state()->complete();
  EXPECT_EQ(log.order(), (std::vector<int>{1, 2, 3})) << "issued by the completing thread";
  EXPECT_EQ(issuer->held_back(), 0u);
}

TEST(OrderedIssuer, WaitsForAllEventsOfAnOperation) {
  auto issuer = std::make_shared<OrderedIssuer>();
  Log log;
  Event a = Event::manual(), b = Event::manual();
  issuer->submit({a, b}, log.op(1));
  b.state()->complete();
  EXPECT_TRUE(log.order().empty());
  a.state()->complete();
  EXPECT_EQ(log.order(), (std::vector<int>{1}));
}

TEST(OrderedIssuer, LaterGateCompletingFirstStillIssuesInOrder) {
  auto issuer = std::make_shared<OrderedIssuer>();
  Log log;
  Event first = Event::manual(), second = Event::manual();
  issuer->submit({first}, log.op(1));
  issuer->submit({second}, log.op(2));
  second.state()->complete();
  EXPECT_TRUE(log.order().empty()) << "2 must not overtake 1";
  first.state()->complete();
  EXPECT_EQ(log.order(), (std::vector<int>{1, 2}));
}

TEST(OrderedIssuer, ADependencyErrorFailsOnlyThatOperation) {
  auto issuer = std::make_shared<OrderedIssuer>();
  Log log;
  Event gate = Event::manual();
  issuer->submit({gate}, log.op(1));
  issuer->submit({}, log.op(2));
  gate.state()->complete(std::make_exception_ptr(std::runtime_error("upload failed")));
  EXPECT_EQ(log.failed, (std::vector<int>{1}));
  EXPECT_EQ(log.order(), (std::vector<int>{2}));
}

TEST(OrderedIssuer, AnIssueMaySubmitAgainWithoutDeadlock) {
  auto issuer = std::make_shared<OrderedIssuer>();
  Log log;
  Event gate = Event::manual();
  issuer->submit({gate}, [&](std::exception_ptr) {
    log.op(1)(nullptr);
    issuer->submit({}, log.op(3));  // e.g. a callback of the event this issue completed
  });
  issuer->submit({}, log.op(2));
  gate.state()->complete();
  EXPECT_EQ(log.order(), (std::vector<int>{1, 2, 3}));
}

TEST(OrderedIssuer, CloseFailsHeldBackOperations) {
  auto issuer = std::make_shared<OrderedIssuer>();
  Log log;
  Event gate = Event::manual();
  issuer->submit({gate}, log.op(1));
  issuer->close(std::make_exception_ptr(std::runtime_error("device destroyed")));
  EXPECT_EQ(log.failed, (std::vector<int>{1}));
  gate.state()->complete();  // the callback finds nothing to issue
  issuer->submit({}, log.op(2));
  EXPECT_EQ(log.failed, (std::vector<int>{1, 2}));
  EXPECT_TRUE(log.order().empty());
}

TEST(OrderedIssuer, ConcurrentSubmittersAndCompletersKeepPerQueueOrder) {
  auto issuer = std::make_shared<OrderedIssuer>();
  Log log;
  constexpr int operations = 2000;
  std::vector<Event> gates;
  for (int i = 0; i < operations; ++i)
    gates.push_back(i % 3 == 0 ? Event::manual() : Event());
  std::thread completer([&] {
    // Gates complete in reverse order, racing with the submissions.
    for (int i = (operations - 1) / 3 * 3; i >= 0; i -= 3)
      gates[static_cast<std::size_t>(i)].state()->complete();
  });
  for (int i = 0; i < operations; ++i) {
    std::vector<Event> waits;
    if (gates[static_cast<std::size_t>(i)]) waits.push_back(gates[static_cast<std::size_t>(i)]);
    issuer->submit(std::move(waits), log.op(i));
  }
  completer.join();
  std::vector<int> expected(operations);
  for (int i = 0; i < operations; ++i)
    expected[static_cast<std::size_t>(i)] = i;
  EXPECT_EQ(log.order(), expected);
}

}  // namespace
}  // namespace strata::device::cuda
