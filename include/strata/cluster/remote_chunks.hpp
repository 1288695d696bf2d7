#pragma once
// RemoteChunks: the memory layer's copies across ranks, pulled by the rank that needs them. A rank
// offers chunks of its memory manager under keys; another rank fetches a key from the rank that
// holds it and gets its own chunk — a replica it keeps until it drops it (the rocket paper's
// distributed cache asks the rank that has an item; the driver-planned transfers of Driver are
// the other way to move chunks). The holder's copy is read through its memory manager (from
// host, or brought back from disk) and stays pinned only while it is sent.

#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "strata/cluster/message_kinds.hpp"
#include "strata/cluster/network.hpp"
#include "strata/memory/memory_manager.hpp"

namespace strata::cluster {

// A key that the asked rank does not offer.
class NotOffered : public Error {
 public:
  using Error::Error;
};

// Called with the local replica (or the error) when a fetch ends, on the network thread.
using FetchDone = std::function<void(memory::ChunkId replica, std::exception_ptr error)>;

class RemoteChunks {
 public:
  // Every rank constructs it alike (its messages use kinds `kind_base` and `kind_base + 1`).
  RemoteChunks(Network& network, memory::MemoryManager& memory,
               MessageKind kind_base = kinds::remote_fetch);
  ~RemoteChunks();
  RemoteChunks(const RemoteChunks&) = delete;
  RemoteChunks& operator=(const RemoteChunks&) = delete;

  // Offers `chunk` of this rank's memory manager to the other ranks under `key`.
  void offer(std::uint64_t key, memory::ChunkId chunk);
  void withdraw(std::uint64_t key);
  // Withdraws `key`; `unused` runs once no transfer of its chunk is in flight any more (at once,
  // or on the network thread when the last one ends), so the caller may then destroy the chunk.
  void withdraw(std::uint64_t key, std::function<void()> unused);
  // Fetches what `rank` offers as `key` into a new chunk of this rank's memory manager.
  void fetch(int rank, std::uint64_t key, FetchDone done);
  // fetch(), waiting for it; throws NotOffered (naming rank and key) or the transfer's error.
  memory::ChunkId fetch(int rank, std::uint64_t key);

  // Fetches served and made by this rank.
  std::uint64_t served() const;
  std::uint64_t fetched() const;

 private:
  struct Request {
    std::uint64_t key = 0;
    std::uint64_t transfer = 0;
    template <class Archive>
    void serialize(Archive& archive) {
      archive(key, transfer);
    }
  };
  struct Reply {
    std::uint64_t transfer = 0;
    bool offered = false;
    std::uint64_t bytes = 0;
    std::string name;
    template <class Archive>
    void serialize(Archive& archive) {
      archive(transfer, offered, bytes, name);
    }
  };
  struct Pending {
    int rank = 0;
    std::uint64_t key = 0;
    FetchDone done;
  };
  void on_request(int requester, const Request& request);
  void on_reply(int holder, const Reply& reply);
  void served_one(memory::ChunkId chunk);

  Network& network_;
  memory::MemoryManager& memory_;
  const MessageKind kind_base_;
  mutable std::mutex lock_;
  std::map<std::uint64_t, memory::ChunkId> offered_;
  std::map<std::uint64_t, unsigned> serving_;  // chunk index -> transfers in flight
  std::map<std::uint64_t, std::vector<std::function<void()>>> when_unused_;  // chunk index -> ...
  std::map<std::uint64_t, Pending> pending_;  // transfer -> the fetch waiting for it
  std::uint64_t next_transfer_ = 0;
  std::uint64_t served_ = 0;
  std::uint64_t fetched_ = 0;
};

}  // namespace strata::cluster
