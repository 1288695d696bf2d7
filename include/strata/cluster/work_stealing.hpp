#pragma once
// WorkStealing: dynamic load balancing over workers and ranks (the rocket paper's hierarchical
// random work stealing, §4.2). Each local worker has a deque: it takes its newest piece
// (depth-first, good locality); an idle worker steals the oldest — largest — piece of the local
// worker that has the most, and only when the rank has none left asks a random remote rank,
// whose network thread gives away its largest piece. The round ends when every rank's finished
// units add up to the total, which rank 0 counts: no piece is lost, none is done twice.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "strata/cluster/message_kinds.hpp"
#include "strata/cluster/network.hpp"

namespace strata::cluster {

// A piece of work: how many units it covers, and what it is (the application's encoding).
struct StealableWork {
  std::uint64_t units = 0;
  std::string payload;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(units, payload);
  }
};

// Cache-aware stealing (the rocket paper's future work): what a thief holds, and how much of a
// piece that covers. With it, a thief takes — among the pieces at least a quarter the size of the
// largest — the one it covers most (the largest of equals); without it, the largest.
struct StealAffinity {
  // This rank's holdings when it steals (the application's encoding; sent with remote requests).
  std::function<std::string()> holdings;
  // The share of `work` that `holdings` covers, 0 to 1 (on the thief's or the victim's rank).
  std::function<double(const std::string& holdings, const StealableWork& work)> share;
};

// What stealing did on this rank.
struct StealStats {
  std::uint64_t local_steals = 0;
  std::uint64_t remote_requests = 0;  // steal requests this rank sent
  std::uint64_t remote_steals = 0;    // ... that brought work back
  std::uint64_t given_away = 0;       // pieces this rank handed to thieves
};

class WorkStealing {
 public:
  // Every rank constructs it alike, with the total units of the round. Its messages use kinds
  // `kind_base` .. `kind_base + 3` (give each pool that exists at once its own base).
  WorkStealing(Network& network, unsigned local_workers, std::uint64_t total_units,
               MessageKind kind_base = kinds::steal_request);
  ~WorkStealing();
  WorkStealing(const WorkStealing&) = delete;
  WorkStealing& operator=(const WorkStealing&) = delete;

  // Makes stealing cache-aware; before any take(), on every rank alike.
  void set_affinity(StealAffinity affinity);

  // Adds a piece to `worker`'s deque.
  void push(unsigned worker, StealableWork work);
  // The next piece for `worker`: its own newest, else stolen (local first, then remote); waits
  // while others may still hand out work; nullopt once every unit of the round is finished.
  std::optional<StealableWork> take(unsigned worker);
  // Reports `units` finished by this rank.
  void finished(std::uint64_t units);

  StealStats stats() const;

 private:
  struct Request {
    unsigned worker = 0;
    std::string holdings;  // the thief's, when stealing is cache-aware
    template <class Archive>
    void serialize(Archive& archive) {
      archive(worker, holdings);
    }
  };
  struct Reply {
    unsigned worker = 0;
    std::optional<StealableWork> work;
    template <class Archive>
    void serialize(Archive& archive) {
      archive(worker, work);
    }
  };
  MessageKind request_kind() const { return kind_base_; }
  MessageKind reply_kind() const { return kind_base_ + 1; }
  MessageKind units_kind() const { return kind_base_ + 2; }
  MessageKind finished_kind() const { return kind_base_ + 3; }

  std::optional<StealableWork> take_local(unsigned worker);  // caller holds lock_
  // The largest piece, or with an affinity the one `holdings` covers most; caller holds lock_.
  std::optional<StealableWork> take_for(const std::string* holdings);
  void flush_units();                     // caller holds lock_
  void ask_next_victim(unsigned worker);  // caller holds lock_
  void on_request(int thief, const Request& request);
  void on_reply(const Reply& reply);
  void on_units(std::uint64_t units);

  Network& network_;
  const std::uint64_t total_units_;
  const MessageKind kind_base_;

  mutable std::mutex lock_;
  std::condition_variable changed_;
  StealAffinity affinity_;
  std::vector<std::deque<StealableWork>> deques_;
  std::uint64_t unreported_units_ = 0;
  bool done_ = false;
  bool request_in_flight_ = false;
  std::vector<int> victims_;  // the other ranks, in a random order
  std::size_t next_victim_ = 0;
  std::size_t refusals_ = 0;  // victims in a row that had nothing
  std::mt19937 random_;
  StealStats stats_;
  std::uint64_t counted_units_ = 0;  // rank 0: units finished everywhere
  bool announced_ = false;           // rank 0: the end of the round was broadcast
};

}  // namespace strata::cluster
