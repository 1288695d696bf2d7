#pragma once
// spin_until: waits briefly for a condition by yielding the core, before a caller blocks on a
// condition variable. A thread that blocks is woken tens of microseconds after the notify on a
// loaded machine; a loop that plans, waits and reads back every round paid that at each hop.

#include <chrono>
#include <cstdint>
#include <thread>

namespace strata {

// Yields until `ready()` is true or `budget` passed; returns ready()'s last answer. The clock is
// read every few rounds only.
template <class Ready>
bool spin_until(Ready&& ready, std::chrono::nanoseconds budget) {
  using Clock = std::chrono::steady_clock;
  constexpr unsigned rounds_per_clock = 8;
  const Clock::time_point deadline = Clock::now() + budget;
  for (unsigned round = 1;; ++round) {
    if (ready()) return true;
    std::this_thread::yield();
    if (round % rounds_per_clock == 0 && Clock::now() >= deadline) return ready();
  }
}

// What the plan thread and the driver spin for before they block (the runtime's idle workers
// spin as long).
inline constexpr std::chrono::microseconds plan_spin{200};

}  // namespace strata
