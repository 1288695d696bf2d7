#pragma once
// InjectionRing: the FIFO through which threads outside a pool hand ready tasks to its workers.
// A bounded ring of slots, each with a sequence number that says whose turn it is (D. Vyukov's
// bounded multi-producer multi-consumer queue): a push claims the tail index once its slot is
// free for this lap, a take claims the head index once its slot is filled. A task's trip moves a
// quarter of a slot line and the claimed index's line; oneTBB's concurrent queue, used before,
// touched several lines per push and per pop, with a count beside it, and was the largest cost
// of a stream of small tasks. When the ring is full, pushes go to a locked overflow list until it
// drains, so nothing is ever refused.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>

namespace strata::runtime::detail {

template <class T>
class InjectionRing {
 public:
  // `capacity` slots, a power of two.
  explicit InjectionRing(std::size_t capacity = std::size_t{1} << 13)
      : mask_(capacity - 1), slots_(std::make_unique<Slot[]>(capacity)) {
    for (std::size_t i = 0; i < capacity; ++i)
      slots_[i].turn.store(i, std::memory_order_relaxed);
  }

  void push(T* item) {
    if (overflowed_.load(std::memory_order_acquire) == 0 && try_push(item)) return;
    std::lock_guard guard(overflow_lock_);
    overflow_.push_back(item);
    overflowed_.fetch_add(1, std::memory_order_release);
  }

  // The oldest item, or nullptr when none is queued (or the oldest one's push is still under
  // way; the caller looks again later).
  T* take() {
    if (T* item = try_take()) return item;
    // The ring is drained before the overflow, whose items came later.
    if (overflowed_.load(std::memory_order_acquire) == 0) return nullptr;
    std::lock_guard guard(overflow_lock_);
    if (overflow_.empty()) return nullptr;
    T* item = overflow_.front();
    overflow_.pop_front();
    overflowed_.fetch_sub(1, std::memory_order_release);
    return item;
  }

 private:
  struct Slot {
    // Position + 1 once filled for the lap of `position`; position + capacity once taken.
    std::atomic<std::uint64_t> turn{0};
    T* item = nullptr;
  };

  bool try_push(T* item) {
    std::uint64_t position = tail_.load(std::memory_order_relaxed);
    while (true) {
      Slot& slot = slots_[position & mask_];
      const std::uint64_t turn = slot.turn.load(std::memory_order_acquire);
      const auto lead = static_cast<std::int64_t>(turn - position);
      if (lead == 0) {
        if (tail_.compare_exchange_weak(position, position + 1, std::memory_order_relaxed)) {
          slot.item = item;
          slot.turn.store(position + 1, std::memory_order_release);
          return true;
        }
      } else if (lead < 0) {
        return false;  // full: the slot still holds an item from the lap before
      } else {
        position = tail_.load(std::memory_order_relaxed);  // another pusher took it
      }
    }
  }

  T* try_take() {
    std::uint64_t position = head_.load(std::memory_order_relaxed);
    while (true) {
      Slot& slot = slots_[position & mask_];
      const std::uint64_t turn = slot.turn.load(std::memory_order_acquire);
      const auto lead = static_cast<std::int64_t>(turn - (position + 1));
      if (lead == 0) {
        if (head_.compare_exchange_weak(position, position + 1, std::memory_order_relaxed)) {
          T* item = slot.item;
          slot.turn.store(position + mask_ + 1, std::memory_order_release);
          return item;
        }
      } else if (lead < 0) {
        return nullptr;  // empty, or its push is under way
      } else {
        position = head_.load(std::memory_order_relaxed);  // another taker took it
      }
    }
  }

  const std::size_t mask_;
  std::unique_ptr<Slot[]> slots_;
  alignas(64) std::atomic<std::uint64_t> tail_{0};      // next position to fill (pushers)
  alignas(64) std::atomic<std::uint64_t> head_{0};      // next position to take (takers)
  alignas(64) std::atomic<std::size_t> overflowed_{0};  // items in overflow_
  std::mutex overflow_lock_;
  std::deque<T*> overflow_;
};

}  // namespace strata::runtime::detail
