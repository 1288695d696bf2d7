#pragma once
// Network: the one thread per process that makes every MPI call. It carries control messages
// between ranks (dispatched to handlers by kind), moves bulk data in pieces with non-blocking
// sends and receives, and runs the tasks of the runtime's network executor. When nothing is in
// flight it sleeps (growing waits up to 1 ms, woken at once by local work), never spinning a core.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "strata/base/config.hpp"
#include "strata/cluster/serialization.hpp"
#include "strata/cluster/settings.hpp"
#include "strata/runtime/executor.hpp"

namespace strata::cluster {

namespace detail {
class Link;
class RankCensus;
}  // namespace detail

// Identifies a kind of control message; each subsystem registers handlers for its kinds.
using MessageKind = std::uint16_t;
// Runs on the network thread for each message of its kind: keep it short, never block.
using MessageHandler = std::function<void(int source, std::span<const std::byte> payload)>;
// Called on the network thread when a bulk transfer finished (nullptr) or failed.
using TransferDone = std::function<void(std::exception_ptr)>;

// What the network moved so far.
struct NetworkStats {
  std::uint64_t messages_sent = 0;
  std::uint64_t messages_received = 0;
  std::uint64_t bytes_sent = 0;  // bulk
  std::uint64_t bytes_received = 0;
  std::uint64_t transfers = 0;  // bulk sends and receives started
};

struct NetworkOptions {
  // The cluster section of `config` (ClusterSettings).
  static NetworkOptions from(const Config& config) {
    return {config.section<ClusterSettings>().network_piece_bytes};
  }

  std::uint64_t piece_bytes = 8ull << 20;  // bulk transfers move in pieces of at most this
};

class Network {
 public:
  // Joins the MPI job when launched by one (else a cluster of one) and starts the thread. With
  // several ranks, rank 0 learns every rank's process and, when the launcher ends the job
  // because one died, names it (rank_census.hpp).
  Network(int* argc, char*** argv, NetworkOptions options = {});
  // Finishes what is in flight, stops the thread, leaves the MPI job.
  ~Network();
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  // Finishes what is in flight and stops the thread: no handler runs after it returns.
  void stop();

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Registers (or replaces) the handler of `kind`; messages that arrived before it are delivered
  // to it then, before any that arrives meanwhile (each sender's messages keep their order).
  // Once on() returns, a replaced handler is not running and never runs again.
  void on(MessageKind kind, MessageHandler handler);
  // Sends a control message (to this rank too); from any thread, never blocks.
  void post(int destination, MessageKind kind, std::vector<std::byte> payload);
  template <class T>
  void post_value(int destination, MessageKind kind, const T& value) {
    post(destination, kind, encode(value));
  }

  // Moves `data` to rank `destination`, where a receive() names the same transfer id; the
  // memory must stay valid until `done`. From any thread, never blocks.
  void send(int destination, std::uint64_t transfer, std::span<const std::byte> data,
            TransferDone done);
  void receive(int source, std::uint64_t transfer, std::span<std::byte> data, TransferDone done);

  // The runtime's network executor: its tasks (sends, receives) run on the network thread.
  std::unique_ptr<runtime::Executor> make_executor();

  // Ends every rank of the job with `code`.
  [[noreturn]] void abort(int code);
  NetworkStats stats() const;

 private:
  class Executor;
  struct Command;
  struct Transfer;

  void loop();
  bool execute(Command& command);
  void start_transfer(Command& command);
  void deliver(int source, MessageKind kind, std::span<const std::byte> payload);
  bool receive_messages();
  // Completes finished requests; `pending`: requests remain, `bulk`: bulk pieces among them.
  bool finish_requests(bool& pending, bool& bulk);
  // How long the thread sleeps at most between polls while requests are in flight.
  std::chrono::microseconds poll_cap(std::chrono::steady_clock::time_point now) const;
  bool run_tasks();
  void wait_for_work(std::chrono::microseconds timeout);

  std::unique_ptr<detail::Link> link_;
  NetworkOptions options_;
  int rank_ = 0;
  int size_ = 1;

  mutable std::mutex lock_;
  std::condition_variable wake_;
  std::deque<Command> inbox_;
  std::deque<runtime::ReadyTask*> tasks_;
  bool stopping_ = false;
  runtime::TaskRunner* runner_ = nullptr;
  Executor* executor_ = nullptr;

  std::recursive_mutex handlers_lock_;  // held while a handler runs (it may call on())
  std::map<MessageKind, MessageHandler> handlers_;
  std::map<MessageKind, std::vector<std::pair<int, std::vector<std::byte>>>> held_;

  // Owned by the network thread.
  std::map<std::uint64_t, std::shared_ptr<Transfer>> requests_;  // link request -> transfer
  std::size_t bulk_requests_ = 0;  // of requests_, pieces of bulk transfers
  // The last bulk piece posted or completed, and the last one sent or completed: bytes flow.
  std::chrono::steady_clock::time_point bulk_posted_or_done_{};
  std::chrono::steady_clock::time_point bulk_moved_{};
  std::vector<std::uint64_t> completed_;
  std::vector<std::byte> arrival_;

  std::atomic<std::uint64_t> messages_sent_{0};
  std::atomic<std::uint64_t> messages_received_{0};
  std::atomic<std::uint64_t> bytes_sent_{0};
  std::atomic<std::uint64_t> bytes_received_{0};
  std::atomic<std::uint64_t> transfers_{0};

  std::thread thread_;
  std::unique_ptr<detail::RankCensus> census_;  // with several ranks
};

}  // namespace strata::cluster
