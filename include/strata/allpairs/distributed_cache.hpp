#pragma once
// DistributedCache: the rocket paper's third cache level (§4.1.3). Rank i mod p is the point of
// contact for item i: it holds no data, only candidates[i], the ranks that asked for the item
// most recently. A rank that misses locally asks the point of contact, which prepends the asker
// to the candidates and forwards the request to the first of the previous h candidates; each
// candidate that holds the item answers the asker, else forwards to the next, and the last one
// answers a miss. h + 2 messages at most per request, no central registry. The item's bytes are
// then pulled from the holder with RemoteChunks. Unlike the original (which always used 3),
// `hops` is honoured.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "strata/allpairs/application.hpp"
#include "strata/cluster/network.hpp"

namespace strata::allpairs {

// Counters of one rank's distributed lookups.
struct DistributedCacheStats {
  std::uint64_t requests = 0;  // lookups this rank started
  std::uint64_t hits = 0;      // ... answered by a holder
  std::uint64_t misses = 0;
  std::uint64_t forwarded = 0;             // requests this rank passed on (as contact or candidate)
  std::vector<std::uint64_t> hits_at_hop;  // hits by the candidate that answered (1 .. h)
};

class DistributedCache {
 public:
  // Whether this rank holds `item` in its host cache now.
  using Holds = std::function<bool(ItemIndex item)>;
  // The answer of a lookup: the rank that holds the item, or nullopt. On the network thread.
  using Answer = std::function<void(std::optional<int> holder)>;

  // Every rank constructs it alike; its messages use kinds `kind_base` .. `kind_base + 2`.
  DistributedCache(cluster::Network& network, unsigned hops, Holds holds,
                   cluster::MessageKind kind_base);
  ~DistributedCache();
  DistributedCache(const DistributedCache&) = delete;
  DistributedCache& operator=(const DistributedCache&) = delete;

  void lookup(ItemIndex item, Answer answer);
  DistributedCacheStats stats() const;

 private:
  struct Probe {
    ItemIndex item = 0;
    int requester = 0;
    std::uint64_t request = 0;
    std::uint32_t hop = 0;        // 0 at the point of contact
    std::vector<int> candidates;  // still to ask, in order
    template <class Archive>
    void serialize(Archive& archive) {
      archive(item, requester, request, hop, candidates);
    }
  };
  struct Reply {
    std::uint64_t request = 0;
    int holder = -1;  // -1: miss
    std::uint32_t hop = 0;
    template <class Archive>
    void serialize(Archive& archive) {
      archive(request, holder, hop);
    }
  };
  void on_contact(const Probe& probe);
  void on_candidate(Probe probe);
  void on_reply(const Reply& reply);
  void forward(Probe probe);

  cluster::Network& network_;
  const unsigned hops_;
  const Holds holds_;
  const cluster::MessageKind kind_base_;
  mutable std::mutex lock_;
  std::map<ItemIndex, std::deque<int>> candidates_;  // items this rank is the contact of
  std::map<std::uint64_t, Answer> pending_;
  std::uint64_t next_request_ = 0;
  DistributedCacheStats stats_;
};

}  // namespace strata::allpairs
