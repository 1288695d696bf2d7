#include "strata/runtime/thread_pool_executor.hpp"

#include <pthread.h>
#include <sys/prctl.h>

#include <chrono>
#include <thread>

namespace strata::runtime {
namespace {

// How long one idle worker spins for new work; then idle workers poll at doubling intervals from
// first_poll to last_poll (about 2.5 ms in all) before they sleep until woken.
constexpr std::uint64_t spin_time_ns = 50'000;
// How long it spins at most while completions are pending (IdleSpin::while_completions_pending).
constexpr std::uint64_t pending_spin_time_ns = 2'000'000;
constexpr auto first_poll = std::chrono::microseconds(20);
constexpr auto last_poll = std::chrono::microseconds(1280);
// A polling worker in a sleep this long or longer is woken for new work: left to find it, a task
// waited up to 1.28 ms (a chain of short tasks across threads or ranks paid that at every step).
constexpr auto long_poll = std::chrono::microseconds(40);

}  // namespace

Executor::Executor(std::string name, unsigned workers)
    : name_(std::move(name)), counters_(workers == 0 ? 1 : workers) {}

Executor::~Executor() = default;

std::uint64_t Executor::now_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

// A sequence lock: the worker alone writes, and makes `version` odd while it does; a reader
// retries until it read both fields under one even version. Fields are stored with release and
// loaded with acquire, so a reader that sees a new field value also sees the odd version after it.
void Executor::begin_busy(unsigned worker, std::uint64_t now) {
  WorkerCounters& c = counters_[worker];
  const std::uint32_t version = c.version.load(std::memory_order_relaxed);
  c.version.store(version + 1, std::memory_order_relaxed);
  c.busy_since_ns.store(now, std::memory_order_release);
  c.version.store(version + 2, std::memory_order_release);
}

void Executor::end_busy(unsigned worker, std::uint64_t now) {
  WorkerCounters& c = counters_[worker];
  const std::uint32_t version = c.version.load(std::memory_order_relaxed);
  c.version.store(version + 1, std::memory_order_relaxed);
  const std::uint64_t since = c.busy_since_ns.load(std::memory_order_relaxed);
  if (since != 0 && now > since) {
    c.busy_ns.store(c.busy_ns.load(std::memory_order_relaxed) + (now - since),
                    std::memory_order_release);
  }
  c.busy_since_ns.store(0, std::memory_order_release);
  c.version.store(version + 2, std::memory_order_release);
}

std::uint64_t Executor::busy_ns(unsigned worker) const {
  const WorkerCounters& c = counters_[worker];
  while (true) {
    const std::uint32_t before = c.version.load(std::memory_order_acquire);
    const std::uint64_t closed = c.busy_ns.load(std::memory_order_acquire);
    const std::uint64_t since = c.busy_since_ns.load(std::memory_order_acquire);
    if ((before & 1) == 0 && c.version.load(std::memory_order_relaxed) == before) {
      const std::uint64_t now = now_ns();
      return closed + (since != 0 && now > since ? now - since : 0);
    }
  }
}

WorkerIdentity& current_worker() {
  thread_local WorkerIdentity identity;
  return identity;
}

ThreadPoolExecutor::ThreadPoolExecutor(std::string name, unsigned threads,
                                       std::unique_ptr<SchedulingPolicy> policy, IdleSpin idle_spin)
    : Executor(std::move(name), threads), policy_(std::move(policy)), idle_spin_(idle_spin) {
  policy_->configure(worker_count());
  account_busy_periods();
}

ThreadPoolExecutor::~ThreadPoolExecutor() {
  stop();
}

void ThreadPoolExecutor::start(TaskRunner& runner) {
  runner_ = &runner;
  for (unsigned worker = 0; worker < worker_count(); ++worker) {
    threads_.emplace_back([this, worker] { work(worker); });
  }
}

void ThreadPoolExecutor::enqueue(ReadyTask* task) {
  const WorkerIdentity& me = current_worker();
  const bool own = me.executor == this;
  policy_->push(task, own ? static_cast<int>(me.worker) : -1);
  // A worker finishing a task takes the one task it readied next itself: only more wants help.
  if (own && me.finishing && policy_->size() <= 1) return;
  wake_one();
}

void ThreadPoolExecutor::wake_one() {
  // A spinning or polling worker will find the task soon; only wake one if all idle ones sleep.
  // Pairs with rest(): this thread queued, then reads the counters; an idle worker changes them,
  // then reads the queue size (all sequentially consistent), so one of the two sees the other.
  if (spinning_.load(std::memory_order_seq_cst) != 0) return;
  if (long_polling_.load(std::memory_order_seq_cst) == 0) {
    if (polling_.load(std::memory_order_seq_cst) != 0) return;
    if (sleepers_.load(std::memory_order_seq_cst) == 0) return;
  }
  {
    std::lock_guard guard(rest_lock_);
    ++wake_tokens_;
  }
  resting_.notify_one();
}

bool ThreadPoolExecutor::run_one(unsigned worker) {
  ReadyTask* task = policy_->pop(worker);
  if (task == nullptr) return false;
  // Tasks left behind while this worker is busy: make sure some idle worker looks at them.
  if (policy_->size() != 0) wake_one();
  runner_->run(task, *this, worker);
  return true;
}

ThreadPoolExecutor::Spin ThreadPoolExecutor::spin_for_work() {
  Spin spin;
  std::uint32_t nobody = 0;
  if (!spinning_.compare_exchange_strong(nobody, 1, std::memory_order_seq_cst)) return spin;
  // The clock is read only once the spin lasted: a short gap between tasks costs no clock read.
  constexpr unsigned rounds_before_clock = 8;
  const bool watch_completions = idle_spin_ == IdleSpin::while_completions_pending;
  std::uint64_t deadline = 0;
  for (unsigned round = 1; !stopping_.load(std::memory_order_relaxed); ++round) {
    if (policy_->size() != 0) {
      spin.found = true;
      break;
    }
    // Yields rather than pausing: with more runnable threads than cores (a submitter outside the
    // pool beside its workers) a spinning worker took a third of the submitter's core, the core
    // that makes the work it waits for; a yield hands that core over, and on an otherwise free
    // core costs one system call. Measured on 2 cores (bench_runtime_overhead, old and new build
    // alternately): 100,000 submitted empty tasks 290 -> 190 ns each, reads 590 -> 340.
    std::this_thread::yield();
    if (round % rounds_before_clock != 0) continue;
    const std::uint64_t now = now_ns();
    if (spin.idle_since == 0) {
      spin.idle_since = now;
      deadline = now + spin_time_ns;
    } else if (now >= deadline &&
               !(watch_completions && now < spin.idle_since + pending_spin_time_ns &&
                 runner_->completions_pending())) {
      break;
    }
  }
  spinning_.store(0, std::memory_order_seq_cst);
  return spin;
}

bool ThreadPoolExecutor::rest() {
  auto has_work = [this] { return policy_->size() != 0; };
  std::unique_lock guard(rest_lock_);
  // Polling: timed sleeps, doubling; short ones find new work by themselves, long ones are woken.
  polling_.fetch_add(1, std::memory_order_seq_cst);
  for (auto pause = first_poll; pause <= last_poll; pause *= 2) {
    // A long sleep is announced before the look at the queue, as sleeping is (see wake_one()).
    const bool long_pause = pause >= long_poll;
    if (long_pause) long_polling_.fetch_add(1, std::memory_order_seq_cst);
    const bool work = has_work();
    if (work || stopping_.load(std::memory_order_acquire)) {
      if (long_pause) long_polling_.fetch_sub(1, std::memory_order_seq_cst);
      polling_.fetch_sub(1, std::memory_order_seq_cst);
      return work;  // when stopping, only until the queue drained
    }
    resting_.wait_for(guard, pause, [this] {
      return wake_tokens_ != 0 || stopping_.load(std::memory_order_acquire);
    });
    if (wake_tokens_ != 0) --wake_tokens_;
    if (long_pause) long_polling_.fetch_sub(1, std::memory_order_seq_cst);
  }
  // Sleeping: announce it before the last look at the queue (see wake_one()).
  sleepers_.fetch_add(1, std::memory_order_seq_cst);
  polling_.fetch_sub(1, std::memory_order_seq_cst);
  bool keep_working = true;
  resting_.wait(guard, [&] {
    if (wake_tokens_ != 0) {
      --wake_tokens_;
      return true;
    }
    if (has_work()) return true;
    if (stopping_.load(std::memory_order_acquire)) {
      keep_working = false;
      return true;
    }
    return false;
  });
  sleepers_.fetch_sub(1, std::memory_order_seq_cst);
  return keep_working;
}

void ThreadPoolExecutor::work(unsigned worker) {
  current_worker() = {this, worker};
  const std::string thread_name = (name() + "/" + std::to_string(worker)).substr(0, 15);
  pthread_setname_np(pthread_self(), thread_name.c_str());
  // Polling sleeps of 20 µs, not 20 µs plus the default 50 µs timer slack: a task that arrives
  // while its worker polls waits for the end of the sleep.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  // Busy time is counted per busy period, from the first task found after resting until the
  // queue stayed empty for a moment (gaps too short to read the clock count as busy).
  bool busy = false;
  while (true) {
    if (ReadyTask* task = policy_->pop(worker)) {
      if (!busy) {
        begin_busy(worker, now_ns());
        busy = true;
      }
      if (policy_->size() != 0) wake_one();
      runner_->run(task, *this, worker);
      continue;
    }
    const Spin spin = spin_for_work();
    if (busy && (!spin.found || spin.idle_since != 0)) {
      end_busy(worker, spin.idle_since != 0 ? spin.idle_since : now_ns());
      busy = false;
    }
    if (spin.found) continue;
    if (!rest()) break;  // stopping, and nothing is queued
  }
  current_worker() = {};
}

void ThreadPoolExecutor::stop() {
  if (stopping_.exchange(true)) return;
  {
    std::lock_guard guard(rest_lock_);  // a worker checks stopping_ under the lock before waiting
  }
  resting_.notify_all();
  for (auto& thread : threads_)
    thread.join();
  threads_.clear();
}

}  // namespace strata::runtime
