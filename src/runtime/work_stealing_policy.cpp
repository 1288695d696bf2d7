// Work-stealing scheduling policy: per-worker deques (newest first for the owner, oldest first
// for thieves), one lock-free injection ring for tasks pushed from outside, priority levels first.

#include <array>
#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "injection_ring.hpp"
#include "strata/runtime/scheduling_policy.hpp"

namespace strata::runtime {
namespace {

struct alignas(64) Lane {
  std::mutex lock;
  std::array<std::deque<ReadyTask*>, priority_levels> levels;
  std::array<std::atomic<std::uint32_t>, priority_levels> counts{};

  void push(ReadyTask* task, int level) {
    std::lock_guard guard(lock);
    levels[level].push_back(task);
    counts[level].fetch_add(1, std::memory_order_release);
  }
  // Newest (back) or oldest (front) task of one level, or nullptr.
  ReadyTask* take(int level, bool newest) {
    if (counts[level].load(std::memory_order_acquire) == 0) return nullptr;
    std::lock_guard guard(lock);
    auto& queue = levels[level];
    if (queue.empty()) return nullptr;
    ReadyTask* task = nullptr;
    if (newest) {
      task = queue.back();
      queue.pop_back();
    } else {
      task = queue.front();
      queue.pop_front();
    }
    counts[level].fetch_sub(1, std::memory_order_relaxed);
    return task;
  }
};

// A FIFO per priority level for tasks queued from threads outside the executor (a submitter),
// where a mutex made submitter and workers collide. Most tasks are of normal priority: its ring
// holds 65,536 before it overflows to a locked list (a submitter running ahead of two workers
// was measured 25,000 to 89,000 tasks ahead), the others 1,024.
class InjectionQueue {
 public:
  InjectionQueue()
      : levels_{detail::InjectionRing<ReadyTask>(1024),
                detail::InjectionRing<ReadyTask>(std::size_t{1} << 16),
                detail::InjectionRing<ReadyTask>(1024)} {}
  void push(ReadyTask* task, int level) { levels_[level].push(task); }
  // The oldest task of one level, or nullptr.
  ReadyTask* take(int level) { return levels_[level].take(); }

 private:
  std::array<detail::InjectionRing<ReadyTask>, priority_levels> levels_;
};

constexpr int high_level = static_cast<int>(Priority::high);

class WorkStealingPolicy final : public SchedulingPolicy {
 public:
  void configure(unsigned workers) override { lanes_ = std::vector<Lane>(workers); }

  void push(ReadyTask* task, int worker) override {
    const int level = static_cast<int>(priority_of(*task));
    if (level == high_level) high_queued_.fetch_add(1, std::memory_order_relaxed);
    if (worker >= 0) {
      lanes_[static_cast<unsigned>(worker)].push(task, level);
    } else {
      injected_.push(task, level);
    }
    size_.fetch_add(1, std::memory_order_seq_cst);
  }

  ReadyTask* pop(unsigned worker) override {
    if (size_.load(std::memory_order_seq_cst) == 0) return nullptr;
    const auto lanes = static_cast<unsigned>(lanes_.size());
    // Most tasks are of normal priority: the high level is searched only while it holds some.
    const bool any_high = high_queued_.load(std::memory_order_relaxed) != 0;
    for (int level = any_high ? high_level : high_level - 1; level >= 0; --level) {
      ReadyTask* task = lanes_[worker].take(level, true);
      if (task == nullptr) task = injected_.take(level);
      for (unsigned step = 1; task == nullptr && step < lanes; ++step) {
        task = lanes_[(worker + step) % lanes].take(level, false);
      }
      if (task != nullptr) {
        size_.fetch_sub(1, std::memory_order_relaxed);
        if (level == high_level) high_queued_.fetch_sub(1, std::memory_order_relaxed);
        return task;
      }
    }
    return nullptr;
  }

  std::size_t size() const override { return size_.load(std::memory_order_seq_cst); }

 private:
  std::vector<Lane> lanes_;
  InjectionQueue injected_;
  std::atomic<std::size_t> size_{0};
  std::atomic<std::uint32_t> high_queued_{0};  // high-priority tasks pushed and not yet popped
};

class PriorityFifoPolicy final : public SchedulingPolicy {
 public:
  void configure(unsigned /*workers*/) override {}
  void push(ReadyTask* task, int /*worker*/) override {
    queue_.push(task, static_cast<int>(priority_of(*task)));
    size_.fetch_add(1, std::memory_order_seq_cst);
  }
  ReadyTask* pop(unsigned /*worker*/) override {
    if (size_.load(std::memory_order_seq_cst) == 0) return nullptr;
    for (int level = priority_levels - 1; level >= 0; --level) {
      if (ReadyTask* task = queue_.take(level)) {
        size_.fetch_sub(1, std::memory_order_relaxed);
        return task;
      }
    }
    return nullptr;
  }
  std::size_t size() const override { return size_.load(std::memory_order_seq_cst); }

 private:
  InjectionQueue queue_;
  std::atomic<std::size_t> size_{0};
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_work_stealing_policy() {
  return std::make_unique<WorkStealingPolicy>();
}

std::unique_ptr<SchedulingPolicy> make_priority_fifo_policy() {
  return std::make_unique<PriorityFifoPolicy>();
}

}  // namespace strata::runtime
