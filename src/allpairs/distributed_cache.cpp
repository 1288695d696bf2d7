#include "strata/allpairs/distributed_cache.hpp"

#include <algorithm>

#include "strata/cluster/serialization.hpp"

namespace strata::allpairs {

using cluster::decode;

DistributedCache::DistributedCache(cluster::Network& network, unsigned hops, Holds holds,
                                   cluster::MessageKind kind_base)
    : network_(network),
      hops_(std::max(hops, 1u)),
      holds_(std::move(holds)),
      kind_base_(kind_base) {
  stats_.hits_at_hop.assign(hops_ + 1, 0);
  network_.on(kind_base_, [this](int, std::span<const std::byte> payload) {
    on_contact(decode<Probe>(payload, "a distributed cache request"));
  });
  network_.on(kind_base_ + 1, [this](int, std::span<const std::byte> payload) {
    on_candidate(decode<Probe>(payload, "a distributed cache probe"));
  });
  network_.on(kind_base_ + 2, [this](int, std::span<const std::byte> payload) {
    on_reply(decode<Reply>(payload, "a distributed cache reply"));
  });
}

DistributedCache::~DistributedCache() {
  for (int k = 0; k < 3; ++k)
    network_.on(static_cast<cluster::MessageKind>(kind_base_ + k),
                [](int, std::span<const std::byte>) {});
}

void DistributedCache::lookup(ItemIndex item, Answer answer) {
  std::uint64_t request = 0;
  {
    std::lock_guard guard(lock_);
    request = next_request_++;
    pending_[request] = std::move(answer);
    ++stats_.requests;
  }
  const int contact = static_cast<int>(item % static_cast<ItemIndex>(network_.size()));
  network_.post_value(contact, kind_base_, Probe{item, network_.rank(), request, 0, {}});
}

void DistributedCache::on_contact(const Probe& probe) {
  Probe next = probe;
  {
    std::lock_guard guard(lock_);
    std::deque<int>& list = candidates_[probe.item];
    next.candidates.assign(list.begin(), list.end());
    // The asker will hold the item soon (it fetches or loads it): it is the newest candidate.
    list.erase(std::remove(list.begin(), list.end(), probe.requester), list.end());
    list.push_front(probe.requester);
    while (list.size() > hops_)
      list.pop_back();
    ++stats_.forwarded;
  }
  next.candidates.erase(
      std::remove(next.candidates.begin(), next.candidates.end(), probe.requester),
      next.candidates.end());
  forward(std::move(next));
}

void DistributedCache::forward(Probe probe) {
  if (probe.candidates.empty()) {
    network_.post_value(probe.requester, kind_base_ + 2, Reply{probe.request, -1, probe.hop});
    return;
  }
  const int next = probe.candidates.front();
  probe.candidates.erase(probe.candidates.begin());
  ++probe.hop;
  network_.post_value(next, kind_base_ + 1, probe);
}

void DistributedCache::on_candidate(Probe probe) {
  if (holds_(probe.item)) {
    network_.post_value(probe.requester, kind_base_ + 2,
                        Reply{probe.request, network_.rank(), probe.hop});
    return;
  }
  {
    std::lock_guard guard(lock_);
    ++stats_.forwarded;
  }
  forward(std::move(probe));
}

void DistributedCache::on_reply(const Reply& reply) {
  Answer answer;
  {
    std::lock_guard guard(lock_);
    auto found = pending_.find(reply.request);
    if (found == pending_.end()) return;
    answer = std::move(found->second);
    pending_.erase(found);
    if (reply.holder >= 0) {
      ++stats_.hits;
      ++stats_.hits_at_hop[std::min<std::size_t>(reply.hop, hops_)];
    } else {
      ++stats_.misses;
    }
  }
  answer(reply.holder >= 0 ? std::optional<int>(reply.holder) : std::nullopt);
}

DistributedCacheStats DistributedCache::stats() const {
  std::lock_guard guard(lock_);
  return stats_;
}

}  // namespace strata::allpairs
