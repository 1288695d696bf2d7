#include "strata/runtime/thread_pool_executor.hpp"

#include <sys/prctl.h>

#include <chrono>
#include <thread>

#include "strata/base/thread_name.hpp"

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

Executor::Executor(std::string name, unsigned workers, ExecutorKind kind, std::string device)
    : name_(std::move(name)),
      counters_(workers == 0 ? 1 : workers),
      kind_(kind),
      device_(std::move(device)) {}

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

// One thread of the pool: it serves a worker, or is parked until given one.
struct ThreadPoolExecutor::Thread {
  std::thread thread;
  unsigned lane = 0;
  int worker = -1;  // the worker it serves or was given; -1 while parked (guarded by handoff_lock_)
  std::condition_variable given;
};

thread_local ThreadPoolExecutor::Thread* ThreadPoolExecutor::current_thread_ = nullptr;

ThreadPoolExecutor::ThreadPoolExecutor(std::string name, unsigned threads,
                                       std::unique_ptr<SchedulingPolicy> policy, IdleSpin idle_spin)
    : Executor(std::move(name), threads),
      policy_(std::move(policy)),
      idle_spin_(idle_spin),
      resumers_(worker_count()),
      resume_wanted_(new std::atomic<bool>[worker_count()]) {
  policy_->configure(worker_count());
  for (unsigned worker = 0; worker < worker_count(); ++worker)
    resume_wanted_[worker].store(false);
  account_busy_periods();
}

ThreadPoolExecutor::~ThreadPoolExecutor() {
  stop();
}

void ThreadPoolExecutor::start(TaskRunner& runner) {
  runner_ = &runner;
  std::lock_guard guard(handoff_lock_);
  for (unsigned worker = 0; worker < worker_count(); ++worker) {
    auto thread = std::make_unique<Thread>();
    Thread* self = thread.get();
    self->lane = worker;
    self->worker = static_cast<int>(worker);
    threads_.push_back(std::move(thread));
    self->thread = std::thread([this, self] { thread_main(self); });
  }
  thread_count_.store(worker_count(), std::memory_order_release);
}

unsigned ThreadPoolExecutor::lane_count() const {
  return thread_count_.load(std::memory_order_acquire);
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
  if (task == nullptr) {
    if (!runner_->pull(*this, worker)) return false;
    task = policy_->pop(worker);
    if (task == nullptr) return true;  // pulled, still staging
  }
  // Tasks left behind while this worker is busy: make sure some idle worker looks at them.
  if (policy_->size() != 0) wake_one();
  runner_->run(task, *this, worker);
  return true;
}

ThreadPoolExecutor::Spin ThreadPoolExecutor::spin_for_work(unsigned worker) {
  Spin spin;
  std::uint32_t nobody = 0;
  if (!spinning_.compare_exchange_strong(nobody, 1, std::memory_order_seq_cst)) return spin;
  // The clock is read only once the spin lasted: a short gap between tasks costs no clock read.
  constexpr unsigned rounds_before_clock = 8;
  const bool watch_completions = idle_spin_ == IdleSpin::while_completions_pending;
  std::uint64_t deadline = 0;
  for (unsigned round = 1; !stopping_.load(std::memory_order_relaxed); ++round) {
    if (work_available() || wanted_back(worker)) {
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
    } else if (now >= deadline) {
      // Asked at least once when the brief spin ends, even if this thread was descheduled past
      // the whole watch meanwhile.
      const bool watch = watch_completions && runner_->completions_pending();
      if (!watch || now >= spin.idle_since + pending_spin_time_ns) break;
    }
  }
  spinning_.store(0, std::memory_order_seq_cst);
  return spin;
}

bool ThreadPoolExecutor::rest(unsigned worker) {
  auto has_work = [this, worker] { return work_available() || wanted_back(worker); };
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
    resting_.wait_for(guard, pause, [&] {
      return wake_tokens_ != 0 || wanted_back(worker) || stopping_.load(std::memory_order_acquire);
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

void ThreadPoolExecutor::thread_main(Thread* self) {
  current_thread_ = self;
  name_this_thread(name() + "/" + std::to_string(self->lane));
  // Polling sleeps of 20 µs, not 20 µs plus the default 50 µs timer slack: a task that arrives
  // while its worker polls waits for the end of the sleep.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  std::unique_lock guard(handoff_lock_);
  while (true) {
    self->given.wait(guard, [&] { return self->worker >= 0 || stopping_.load(); });
    if (self->worker < 0) break;  // stopping while parked
    const auto worker = static_cast<unsigned>(self->worker);
    guard.unlock();
    const bool handed_back = serve(self, worker);
    guard.lock();
    if (!handed_back) break;  // stopping, and nothing is queued
    self->worker = -1;
    spares_.push_back(self);
  }
}

bool ThreadPoolExecutor::serve(Thread* self, unsigned worker) {
  current_worker() = {this, worker, self->lane};
  // Busy time is counted per busy period, from the first task found after resting until the
  // queue stayed empty for a moment (gaps too short to read the clock count as busy).
  bool busy = false;
  bool handed_back = false;
  while (true) {
    if (wanted_back(worker) && hand_back(worker, busy)) {
      handed_back = true;
      break;
    }
    if (ReadyTask* task = policy_->pop(worker)) {
      if (!busy) {
        begin_busy(worker, now_ns());
        busy = true;
      }
      if (policy_->size() != 0) wake_one();
      runner_->run(task, *this, worker);
      continue;
    }
    // Nothing queued: take a pooled task, if the placement policy pulls (staged, then queued).
    if (runner_->pull(*this, worker)) continue;
    const Spin spin = spin_for_work(worker);
    if (busy && (!spin.found || spin.idle_since != 0)) {
      end_busy(worker, spin.idle_since != 0 ? spin.idle_since : now_ns());
      busy = false;
    }
    if (spin.found) continue;
    if (!rest(worker)) break;  // stopping, and nothing is queued
  }
  current_worker() = {};
  return handed_back;
}

bool ThreadPoolExecutor::hand_back(unsigned worker, bool busy) {
  std::lock_guard guard(handoff_lock_);
  auto& waiting = resumers_[worker];
  if (waiting.empty()) return false;
  // The worker's busy period is the resumer's to open: counters have one writer at a time.
  if (busy) end_busy(worker, now_ns());
  pass_to_resumer(worker);
  return true;
}

void ThreadPoolExecutor::pass_to_resumer(unsigned worker) {
  auto& waiting = resumers_[worker];
  Thread* next = waiting.front();
  waiting.erase(waiting.begin());
  if (waiting.empty()) resume_wanted_[worker].store(false, std::memory_order_release);
  next->worker = static_cast<int>(worker);
  next->given.notify_one();
}

void ThreadPoolExecutor::give_worker(unsigned worker) {
  if (!resumers_[worker].empty()) {
    pass_to_resumer(worker);
    return;
  }
  if (!spares_.empty()) {
    Thread* spare = spares_.back();
    spares_.pop_back();
    spare->worker = static_cast<int>(worker);
    spare->given.notify_one();
    return;
  }
  auto thread = std::make_unique<Thread>();
  Thread* stand_in = thread.get();
  stand_in->lane = static_cast<unsigned>(threads_.size());
  stand_in->worker = static_cast<int>(worker);
  threads_.push_back(std::move(thread));
  thread_count_.store(static_cast<unsigned>(threads_.size()), std::memory_order_release);
  stand_in->thread = std::thread([this, stand_in] { thread_main(stand_in); });
}

void ThreadPoolExecutor::suspend_worker(unsigned worker) {
  Thread* self = current_thread_;
  // A task runs inside a busy period; the stand-in opens its own.
  end_busy(worker, now_ns());
  current_worker() = {};
  std::lock_guard guard(handoff_lock_);
  self->worker = -1;
  give_worker(worker);
}

void ThreadPoolExecutor::resume_worker(unsigned worker) {
  Thread* self = current_thread_;
  {
    std::unique_lock guard(handoff_lock_);
    resumers_[worker].push_back(self);
    resume_wanted_[worker].store(true, std::memory_order_seq_cst);
    // The serving thread may rest: it looks at resume_wanted_ under rest_lock_ before sleeping.
    { const std::lock_guard rest_guard(rest_lock_); }
    resting_.notify_all();
    self->given.wait(guard, [&] { return self->worker == static_cast<int>(worker); });
  }
  current_worker() = {this, worker, self->lane};
  begin_busy(worker, now_ns());
}

void ThreadPoolExecutor::stop() {
  if (stopping_.exchange(true)) return;
  {
    std::lock_guard guard(rest_lock_);  // a worker checks stopping_ under the lock before waiting
  }
  resting_.notify_all();
  std::vector<Thread*> threads;
  {
    std::lock_guard guard(handoff_lock_);  // a parked thread checks stopping_ under it
    for (auto& thread : threads_) {
      thread->given.notify_all();
      threads.push_back(thread.get());
    }
  }
  // Nothing runs at shutdown (the runtime waited for every task), so no stand-in starts now.
  for (Thread* thread : threads)
    thread->thread.join();
}

}  // namespace strata::runtime
