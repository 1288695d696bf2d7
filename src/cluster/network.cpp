#include "strata/cluster/network.hpp"

#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>

#include "link.hpp"
#include "rank_census.hpp"
#include "strata/base/error.hpp"
#include "strata/base/log.hpp"
#include "strata/base/thread_name.hpp"

namespace strata::cluster {

using detail::Channel;

// One request from another thread for the network thread.
struct Network::Command {
  enum class Type : std::uint8_t { message, send, receive } type = Type::message;
  int peer = 0;
  MessageKind kind = 0;
  std::vector<std::byte> payload;  // message: kind prefix + body
  std::uint64_t transfer = 0;
  std::byte* data = nullptr;
  std::size_t bytes = 0;
  TransferDone done;
};

// A bulk transfer (or an outgoing message) whose pieces are in flight.
struct Network::Transfer {
  std::size_t pieces_left = 0;
  TransferDone done;
  std::vector<std::byte> owned;  // an outgoing control message's bytes
};

// The runtime's view of the network thread as an executor with one worker.
class Network::Executor final : public runtime::Executor {
 public:
  explicit Executor(Network& network)
      : runtime::Executor("network", 1, runtime::ExecutorKind::network), network_(network) {}
  ~Executor() override {
    std::lock_guard guard(network_.lock_);
    if (network_.executor_ == this) {
      network_.executor_ = nullptr;
      network_.runner_ = nullptr;
    }
  }
  void start(runtime::TaskRunner& runner) override {
    std::lock_guard guard(network_.lock_);
    network_.runner_ = &runner;
    network_.executor_ = this;
  }
  void enqueue(runtime::ReadyTask* task) override {
    {
      std::lock_guard guard(network_.lock_);
      network_.tasks_.push_back(task);
    }
    network_.wake_.notify_one();
  }
  std::size_t queued() const override {
    std::lock_guard guard(network_.lock_);
    return network_.tasks_.size();
  }
  bool run_one(unsigned /*worker*/) override { return network_.run_tasks(); }
  void stop() override {
    std::unique_lock guard(network_.lock_);
    drained_.wait(guard, [&] { return network_.tasks_.empty(); });
    network_.runner_ = nullptr;
    network_.executor_ = nullptr;
  }
  bool bounded_lookahead() const override { return false; }
  void notify_drained() { drained_.notify_all(); }

 private:
  Network& network_;
  std::condition_variable drained_;
};

namespace {
constexpr std::size_t kind_bytes = sizeof(MessageKind);
using Clock = std::chrono::steady_clock;
// After the last activity the thread keeps polling this long before it starts to sleep.
constexpr auto spin_window = std::chrono::microseconds(200);
// The same after a bulk piece was sent or completed while others are in flight: MPI moves a large
// message only inside calls on both sides (shared-memory fragments, rendezvous steps), so a thread
// asleep between polls stretched a 4 MiB transfer about sixfold. After a receive is posted the
// thread spins a shorter while (its sender may be sending already): a receive whose sender comes
// later must not keep it spinning, which took the core from this rank's kernels for the whole
// wait (docs/cluster.md, "The network").
constexpr auto transfer_spin_window = std::chrono::milliseconds(10);
constexpr auto receive_spin_window = std::chrono::milliseconds(1);
// Sleep limits: while a request is in flight (its progress needs polls), and when idle. While
// bulk requests wait with nothing posted or completed, the thread polls at most 1/64 of that time
// late: the wake-ups grow with the logarithm of the wait, not with the wait.
constexpr auto busy_sleep_cap = std::chrono::microseconds(50);
constexpr auto idle_sleep_cap = std::chrono::microseconds(1000);
constexpr int waited_per_poll = 64;
}  // namespace

Network::Network(int* argc, char*** argv, NetworkOptions options)
    : link_(detail::Link::open(argc, argv)), options_(options) {
  if (options_.piece_bytes == 0) throw Error("network piece size must be positive");
  options_.piece_bytes = std::min<std::uint64_t>(options_.piece_bytes, 1ull << 30);
  rank_ = link_->rank();
  size_ = link_->size();
  thread_ = std::thread([this] { loop(); });
  if (size_ > 1) census_ = std::make_unique<detail::RankCensus>(*this);
}

Network::~Network() {
  stop();
  census_.reset();
  link_.reset();
}

void Network::stop() {
  {
    std::lock_guard guard(lock_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Network::on(MessageKind kind, MessageHandler handler) {
  // The lock stays held until the messages that came before the handler are delivered (in their
  // order, on this thread): one arriving meanwhile waits for them instead of overtaking them, as
  // the network thread delivers under the same lock. Plans must run in the order they were sent.
  std::lock_guard guard(handlers_lock_);
  handlers_[kind] = std::move(handler);
  auto it = held_.find(kind);
  if (it == held_.end()) return;
  std::vector<std::pair<int, std::vector<std::byte>>> held = std::move(it->second);
  held_.erase(it);
  for (auto& [source, payload] : held)
    deliver(source, kind, payload);
}

void Network::post(int destination, MessageKind kind, std::vector<std::byte> payload) {
  if (destination < 0 || destination >= size_) {
    throw Error("message to rank " + std::to_string(destination) + ", but the cluster has " +
                std::to_string(size_) + " rank(s)");
  }
  Command command;
  command.type = Command::Type::message;
  command.peer = destination;
  command.kind = kind;
  command.payload = std::move(payload);
  {
    std::lock_guard guard(lock_);
    inbox_.push_back(std::move(command));
  }
  wake_.notify_one();
}

void Network::send(int destination, std::uint64_t transfer, std::span<const std::byte> data,
                   TransferDone done) {
  if (destination == rank_ || destination < 0 || destination >= size_) {
    throw Error("bulk send of transfer " + std::to_string(transfer) + " to rank " +
                std::to_string(destination) + " from rank " + std::to_string(rank_) +
                ": not a peer");
  }
  Command command;
  command.type = Command::Type::send;
  command.peer = destination;
  command.transfer = transfer;
  command.data = const_cast<std::byte*>(data.data());  // only read: MPI_Isend
  command.bytes = data.size();
  command.done = std::move(done);
  {
    std::lock_guard guard(lock_);
    inbox_.push_back(std::move(command));
  }
  wake_.notify_one();
}

void Network::receive(int source, std::uint64_t transfer, std::span<std::byte> data,
                      TransferDone done) {
  if (source == rank_ || source < 0 || source >= size_) {
    throw Error("bulk receive of transfer " + std::to_string(transfer) + " from rank " +
                std::to_string(source) + " on rank " + std::to_string(rank_) + ": not a peer");
  }
  Command command;
  command.type = Command::Type::receive;
  command.peer = source;
  command.transfer = transfer;
  command.data = data.data();
  command.bytes = data.size();
  command.done = std::move(done);
  {
    std::lock_guard guard(lock_);
    inbox_.push_back(std::move(command));
  }
  wake_.notify_one();
}

std::unique_ptr<runtime::Executor> Network::make_executor() {
  return std::make_unique<Executor>(*this);
}

void Network::abort(int code) {
  link_->abort(code);
  std::_Exit(code);  // not reached: the link ends the process
}

NetworkStats Network::stats() const {
  NetworkStats stats;
  stats.messages_sent = messages_sent_.load();
  stats.messages_received = messages_received_.load();
  stats.bytes_sent = bytes_sent_.load();
  stats.bytes_received = bytes_received_.load();
  stats.transfers = transfers_.load();
  return stats;
}

void Network::deliver(int source, MessageKind kind, std::span<const std::byte> payload) {
  // The handler runs under the lock, so once on() replaced it the old one runs no more.
  std::lock_guard guard(handlers_lock_);
  auto it = handlers_.find(kind);
  if (it == handlers_.end()) {
    held_[kind].emplace_back(source, std::vector<std::byte>(payload.begin(), payload.end()));
    return;
  }
  messages_received_.fetch_add(1, std::memory_order_relaxed);
  it->second(source, payload);
}

bool Network::execute(Command& command) {
  if (command.type != Command::Type::message) {
    start_transfer(command);
    return true;
  }
  messages_sent_.fetch_add(1, std::memory_order_relaxed);
  if (command.peer == rank_) {
    deliver(rank_, command.kind, command.payload);
    return true;
  }
  auto transfer = std::make_shared<Transfer>();
  transfer->owned.resize(kind_bytes + command.payload.size());
  std::memcpy(transfer->owned.data(), &command.kind, kind_bytes);
  if (!command.payload.empty()) {
    std::memcpy(transfer->owned.data() + kind_bytes, command.payload.data(),
                command.payload.size());
  }
  transfer->pieces_left = 1;
  const std::uint64_t request = link_->send(Channel::control, command.peer, 0,
                                            transfer->owned.data(), transfer->owned.size());
  requests_.emplace(request, std::move(transfer));
  return true;
}

void Network::start_transfer(Command& command) {
  transfers_.fetch_add(1, std::memory_order_relaxed);
  const bool sending = command.type == Command::Type::send;
  auto transfer = std::make_shared<Transfer>();
  transfer->done = std::move(command.done);
  const std::uint64_t piece = options_.piece_bytes;
  const std::size_t pieces = command.bytes == 0 ? 1 : (command.bytes + piece - 1) / piece;
  transfer->pieces_left = pieces;
  // Pieces of one transfer share its tag: MPI keeps messages between two ranks on one tag in
  // order, so the receiver's pieces match the sender's one by one.
  const int tag = static_cast<int>(command.transfer % static_cast<std::uint64_t>(link_->max_tag()));
  try {
    for (std::size_t i = 0; i < pieces; ++i) {
      const std::size_t offset = i * piece;
      const std::size_t bytes = std::min<std::size_t>(piece, command.bytes - offset);
      const std::uint64_t request =
          sending ? link_->send(Channel::bulk, command.peer, tag, command.data + offset, bytes)
                  : link_->receive(Channel::bulk, command.peer, tag, command.data + offset, bytes);
      requests_.emplace(request, transfer);
      ++bulk_requests_;
    }
    bulk_posted_or_done_ = Clock::now();
    if (sending) bulk_moved_ = bulk_posted_or_done_;
  } catch (...) {
    if (transfer->done) transfer->done(std::current_exception());
    transfer->done = nullptr;
    return;
  }
  (sending ? bytes_sent_ : bytes_received_).fetch_add(command.bytes, std::memory_order_relaxed);
}

bool Network::receive_messages() {
  bool any = false;
  while (auto arrival = link_->probe()) {
    arrival_.resize(arrival->bytes);
    link_->receive_control(*arrival, arrival_.data());
    any = true;
    if (arrival->bytes < kind_bytes) {
      strata::log().error("network: dropped a control message of {} bytes from rank {} (no kind)",
                          arrival->bytes, arrival->source);
      continue;
    }
    MessageKind kind = 0;
    std::memcpy(&kind, arrival_.data(), kind_bytes);
    deliver(arrival->source, kind,
            std::span<const std::byte>(arrival_.data() + kind_bytes, arrival->bytes - kind_bytes));
  }
  return any;
}

bool Network::finish_requests(bool& pending, bool& bulk) {
  completed_.clear();
  pending = link_->poll(completed_);
  for (std::uint64_t request : completed_) {
    auto it = requests_.find(request);
    if (it == requests_.end()) continue;
    std::shared_ptr<Transfer> transfer = std::move(it->second);
    requests_.erase(it);
    if (transfer->owned.empty()) {
      --bulk_requests_;
      bulk_moved_ = bulk_posted_or_done_ = Clock::now();
    }
    if (--transfer->pieces_left == 0 && transfer->done) transfer->done(nullptr);
  }
  pending = !requests_.empty();
  bulk = bulk_requests_ > 0;
  return !completed_.empty();
}

std::chrono::microseconds Network::poll_cap(Clock::time_point now) const {
  if (bulk_requests_ == 0) return busy_sleep_cap;
  const auto waited =
      std::chrono::duration_cast<std::chrono::microseconds>(now - bulk_posted_or_done_);
  return std::clamp(waited / waited_per_poll, busy_sleep_cap, idle_sleep_cap);
}

bool Network::run_tasks() {
  runtime::ReadyTask* task = nullptr;
  runtime::TaskRunner* runner = nullptr;
  Executor* executor = nullptr;
  {
    std::lock_guard guard(lock_);
    if (tasks_.empty() || runner_ == nullptr) return false;
    task = tasks_.front();
    tasks_.pop_front();
    runner = runner_;
    executor = executor_;
  }
  runner->run(task, *executor, 0);
  bool drained = false;
  {
    std::lock_guard guard(lock_);
    drained = tasks_.empty();
  }
  if (drained) executor->notify_drained();
  return true;
}

void Network::wait_for_work(std::chrono::microseconds timeout) {
  std::unique_lock guard(lock_);
  wake_.wait_for(guard, timeout, [&] {
    return !inbox_.empty() || stopping_ || (runner_ != nullptr && !tasks_.empty());
  });
}

void Network::loop() {
  name_this_thread("network");
  // Sleeps of a few microseconds, not the default 50 µs timer slack.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  std::deque<Command> commands;
  auto last_activity = Clock::now();
  auto sleep = std::chrono::microseconds(1);
  for (;;) {
    bool stopping = false;
    {
      std::lock_guard guard(lock_);
      commands.swap(inbox_);
      stopping = stopping_;
    }
    bool active = !commands.empty();
    for (Command& command : commands)
      execute(command);
    commands.clear();
    while (run_tasks())
      active = true;
    active = receive_messages() || active;
    bool pending = false, bulk = false;
    active = finish_requests(pending, bulk) || active;

    if (stopping && !active && !pending) {
      std::lock_guard guard(lock_);
      if (inbox_.empty() && (runner_ == nullptr || tasks_.empty())) break;
      continue;
    }
    const auto now = Clock::now();
    if (active) {
      last_activity = now;
      sleep = std::chrono::microseconds(1);
      continue;
    }
    const bool bytes_flow = bulk && (now - bulk_moved_ < transfer_spin_window ||
                                     now - bulk_posted_or_done_ < receive_spin_window);
    if (now - last_activity < spin_window || bytes_flow) {
      std::this_thread::yield();
      continue;
    }
    wait_for_work(sleep);
    sleep = std::min(sleep * 2, pending ? poll_cap(now) : idle_sleep_cap);
  }
}

}  // namespace strata::cluster
