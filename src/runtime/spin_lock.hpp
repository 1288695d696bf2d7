#pragma once
// SpinLock: a one-byte lock for a task record's short critical sections (a few stores), where
// a std::mutex costs two atomic read-modify-writes and forty bytes per record.

#include <atomic>
#include <thread>

namespace strata::runtime::detail {

// Spins briefly, then yields, while another thread holds it (its holder may be descheduled on
// an oversubscribed machine). BasicLockable: use with std::lock_guard / std::unique_lock.
class SpinLock {
 public:
  void lock() {
    while (locked_.exchange(true, std::memory_order_acquire)) {
      for (unsigned spins = 0; locked_.load(std::memory_order_relaxed); ++spins) {
        if (spins < 64) {
          relax();
        } else {
          std::this_thread::yield();
        }
      }
    }
  }
  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  static void relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }

  std::atomic<bool> locked_{false};
};

}  // namespace strata::runtime::detail
