#include "strata/cluster/work_stealing.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "strata/base/error.hpp"
#include "strata/base/log.hpp"

namespace strata::cluster {

namespace {
constexpr int counting_rank = 0;
// After every remote rank refused, wait this long before asking again (work may be split later).
constexpr auto refused_backoff = std::chrono::microseconds(500);
}  // namespace

WorkStealing::WorkStealing(Network& network, unsigned local_workers, std::uint64_t total_units,
                           MessageKind kind_base)
    : network_(network),
      total_units_(total_units),
      kind_base_(kind_base),
      deques_(std::max(1u, local_workers)),
      random_(static_cast<unsigned>(network.rank()) * 7919u + 17u) {
  for (int rank = 0; rank < network_.size(); ++rank) {
    if (rank != network_.rank()) victims_.push_back(rank);
  }
  std::shuffle(victims_.begin(), victims_.end(), random_);
  done_ = total_units_ == 0;
  network_.on(request_kind(), [this](int source, std::span<const std::byte> payload) {
    on_request(source, decode<Request>(payload, "a steal request"));
  });
  network_.on(reply_kind(), [this](int, std::span<const std::byte> payload) {
    on_reply(decode<Reply>(payload, "a steal reply"));
  });
  network_.on(units_kind(), [this](int, std::span<const std::byte> payload) {
    on_units(decode<std::uint64_t>(payload, "finished units"));
  });
  network_.on(finished_kind(), [this](int, std::span<const std::byte>) {
    std::lock_guard guard(lock_);
    done_ = true;
    changed_.notify_all();
  });
}

WorkStealing::~WorkStealing() {
  // Replaced handlers never run again: nothing touches this pool after it is gone.
  for (MessageKind kind : {request_kind(), reply_kind(), units_kind(), finished_kind()}) {
    network_.on(kind, [](int, std::span<const std::byte>) {});
  }
}

void WorkStealing::set_affinity(StealAffinity affinity) {
  std::lock_guard guard(lock_);
  affinity_ = std::move(affinity);
}

void WorkStealing::push(unsigned worker, StealableWork work) {
  std::lock_guard guard(lock_);
  deques_.at(worker).push_back(std::move(work));
  changed_.notify_all();
}

void WorkStealing::finished(std::uint64_t units) {
  std::lock_guard guard(lock_);
  unreported_units_ += units;
}

StealStats WorkStealing::stats() const {
  std::lock_guard guard(lock_);
  return stats_;
}

std::optional<StealableWork> WorkStealing::take_local(unsigned worker) {
  auto& own = deques_.at(worker);
  if (!own.empty()) {
    StealableWork work = std::move(own.back());
    own.pop_back();
    return work;
  }
  const bool any =
      std::any_of(deques_.begin(), deques_.end(), [](const auto& deque) { return !deque.empty(); });
  if (!any) return std::nullopt;
  std::string holdings;
  if (affinity_.holdings) holdings = affinity_.holdings();
  std::optional<StealableWork> stolen = take_for(affinity_.holdings ? &holdings : nullptr);
  if (stolen) ++stats_.local_steals;
  return stolen;
}

std::optional<StealableWork> WorkStealing::take_for(const std::string* holdings) {
  // The largest piece: the oldest of some deque (each deque's pieces shrink front to back).
  std::deque<StealableWork>* victim = nullptr;
  for (auto& deque : deques_) {
    if (!deque.empty() && (victim == nullptr || deque.front().units > victim->front().units)) {
      victim = &deque;
    }
  }
  if (victim == nullptr) return std::nullopt;
  auto chosen = victim->begin();
  if (holdings != nullptr && affinity_.share) {
    // Among the pieces not much smaller, the one the thief covers most (ties: the larger).
    const std::uint64_t largest = chosen->units;
    double best = affinity_.share(*holdings, *chosen);
    for (auto& deque : deques_) {
      for (auto piece = deque.begin(); piece != deque.end(); ++piece) {
        if (piece->units * 4 < largest || piece == chosen) continue;
        const double share = affinity_.share(*holdings, *piece);
        if (share > best || (share == best && piece->units > chosen->units)) {
          best = share;
          victim = &deque;
          chosen = piece;
        }
      }
    }
  }
  StealableWork work = std::move(*chosen);
  victim->erase(chosen);
  return work;
}

void WorkStealing::flush_units() {
  if (unreported_units_ == 0) return;
  network_.post_value(counting_rank, units_kind(), unreported_units_);
  unreported_units_ = 0;
}

void WorkStealing::ask_next_victim(unsigned worker) {
  request_in_flight_ = true;
  ++stats_.remote_requests;
  const int victim = victims_[next_victim_];
  next_victim_ = (next_victim_ + 1) % victims_.size();
  Request request{worker, {}};
  if (affinity_.holdings) request.holdings = affinity_.holdings();
  network_.post_value(victim, request_kind(), request);
}

std::optional<StealableWork> WorkStealing::take(unsigned worker) {
  std::unique_lock guard(lock_);
  auto retry_at = std::chrono::steady_clock::now();
  for (;;) {
    if (auto work = take_local(worker)) return work;
    // Nothing here: report what this rank finished (the round may be over), then steal.
    flush_units();
    if (done_) return std::nullopt;
    const auto now = std::chrono::steady_clock::now();
    if (!victims_.empty() && !request_in_flight_ && now >= retry_at) {
      ask_next_victim(worker);
    }
    changed_.wait_for(guard, refused_backoff);
    if (refusals_ >= victims_.size() && !victims_.empty()) {
      refusals_ = 0;
      retry_at = std::chrono::steady_clock::now() + refused_backoff;
    }
  }
}

void WorkStealing::on_request(int thief, const Request& request) {
  Reply reply{request.worker, std::nullopt};
  {
    std::lock_guard guard(lock_);
    reply.work = take_for(affinity_.share ? &request.holdings : nullptr);
    if (reply.work) ++stats_.given_away;
  }
  network_.post_value(thief, reply_kind(), reply);
}

void WorkStealing::on_reply(const Reply& reply) {
  std::lock_guard guard(lock_);
  request_in_flight_ = false;
  if (reply.work) {
    ++stats_.remote_steals;
    refusals_ = 0;
    deques_.at(reply.worker % deques_.size()).push_back(std::move(*reply.work));
  } else {
    ++refusals_;
  }
  changed_.notify_all();
}

void WorkStealing::on_units(std::uint64_t units) {
  bool over = false;
  {
    std::lock_guard guard(lock_);
    counted_units_ += units;
    if (counted_units_ > total_units_) {
      log().error("work stealing: {} units reported finished, but the round has {}", counted_units_,
                  total_units_);
    }
    over = !announced_ && counted_units_ >= total_units_;
    announced_ = announced_ || over;
  }
  if (!over) return;
  for (int rank = 0; rank < network_.size(); ++rank)
    network_.post(rank, finished_kind(), {});
}

}  // namespace strata::cluster
