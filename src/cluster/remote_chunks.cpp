#include "strata/cluster/remote_chunks.hpp"

#include <future>
#include <string>
#include <vector>

namespace strata::cluster {

namespace {
// Transfer ids of pulled copies: the requesting rank in the high bits keeps them apart from every
// other rank's (and, with bit 62 set, from the driver's planned transfers).
constexpr std::uint64_t pulled_bit = 1ull << 62;
constexpr int rank_shift = 40;
}  // namespace

RemoteChunks::RemoteChunks(Network& network, memory::MemoryManager& memory, MessageKind kind_base)
    : network_(network), memory_(memory), kind_base_(kind_base) {
  network_.on(kind_base_, [this](int source, std::span<const std::byte> payload) {
    on_request(source, decode<Request>(payload, "a chunk fetch request"));
  });
  network_.on(kind_base_ + 1, [this](int source, std::span<const std::byte> payload) {
    on_reply(source, decode<Reply>(payload, "a chunk fetch reply"));
  });
}

RemoteChunks::~RemoteChunks() {
  for (MessageKind kind : {kind_base_, static_cast<MessageKind>(kind_base_ + 1)}) {
    network_.on(kind, [](int, std::span<const std::byte>) {});
  }
}

void RemoteChunks::offer(std::uint64_t key, memory::ChunkId chunk) {
  std::lock_guard guard(lock_);
  offered_[key] = chunk;
}

void RemoteChunks::withdraw(std::uint64_t key) {
  std::lock_guard guard(lock_);
  offered_.erase(key);
}

void RemoteChunks::withdraw(std::uint64_t key, std::function<void()> unused) {
  {
    std::lock_guard guard(lock_);
    auto found = offered_.find(key);
    if (found != offered_.end()) {
      const std::uint64_t chunk = found->second.index;
      offered_.erase(found);
      if (serving_.contains(chunk)) {
        when_unused_[chunk].push_back(std::move(unused));
        return;
      }
    }
  }
  unused();
}

void RemoteChunks::served_one(memory::ChunkId chunk) {
  std::vector<std::function<void()>> callbacks;
  {
    std::lock_guard guard(lock_);
    auto found = serving_.find(chunk.index);
    if (--found->second > 0) return;
    serving_.erase(found);
    auto waiting = when_unused_.find(chunk.index);
    if (waiting == when_unused_.end()) return;
    callbacks = std::move(waiting->second);
    when_unused_.erase(waiting);
  }
  for (auto& callback : callbacks)
    callback();
}

std::uint64_t RemoteChunks::served() const {
  std::lock_guard guard(lock_);
  return served_;
}

std::uint64_t RemoteChunks::fetched() const {
  std::lock_guard guard(lock_);
  return fetched_;
}

void RemoteChunks::fetch(int rank, std::uint64_t key, FetchDone done) {
  if (rank == network_.rank()) {
    throw Error("rank " + std::to_string(rank) + " fetches chunk key " + std::to_string(key) +
                " from itself: use its own chunk");
  }
  std::uint64_t transfer = 0;
  {
    std::lock_guard guard(lock_);
    transfer =
        pulled_bit | (static_cast<std::uint64_t>(network_.rank()) << rank_shift) | next_transfer_++;
    pending_[transfer] = Pending{rank, key, std::move(done)};
  }
  network_.post_value(rank, kind_base_, Request{key, transfer});
}

memory::ChunkId RemoteChunks::fetch(int rank, std::uint64_t key) {
  std::promise<memory::ChunkId> result;
  fetch(rank, key, [&result](memory::ChunkId replica, std::exception_ptr error) {
    if (error) {
      result.set_exception(error);
    } else {
      result.set_value(replica);
    }
  });
  return result.get_future().get();
}

void RemoteChunks::on_request(int requester, const Request& request) {
  memory::ChunkId chunk;
  {
    std::lock_guard guard(lock_);
    auto it = offered_.find(request.key);
    if (it == offered_.end()) {
      network_.post_value(requester, kind_base_ + 1, Reply{request.transfer, false, 0, {}});
      return;
    }
    chunk = it->second;
    ++served_;
    ++serving_[chunk.index];
  }
  // Read the holder's copy where it is (host, or back from disk), pinned while it is sent.
  auto pinned = std::make_shared<std::vector<memory::ChunkRequest>>(
      1, memory::ChunkRequest{chunk, memory::ChunkAccess::read});
  memory_.acquire_async(
      *pinned, memory_.host(),
      [this, requester, request, pinned, chunk, name = memory_.chunk_name(chunk)](
          std::vector<memory::ChunkView> views, std::exception_ptr error) {
        if (error) {
          // The requester learns that the copy could not be read (it is not offered usefully).
          network_.post_value(requester, kind_base_ + 1, Reply{request.transfer, false, 0, {}});
          served_one(chunk);
          return;
        }
        const memory::ChunkView view = views.front();
        network_.post_value(requester, kind_base_ + 1,
                            Reply{request.transfer, true, view.bytes, name});
        network_.send(requester, request.transfer,
                      {static_cast<const std::byte*>(view.host), view.bytes},
                      [this, pinned, chunk](std::exception_ptr) {
                        memory_.release(*pinned, memory_.host());
                        served_one(chunk);
                      });
      });
}

void RemoteChunks::on_reply(int holder, const Reply& reply) {
  Pending pending;
  {
    std::lock_guard guard(lock_);
    auto it = pending_.find(reply.transfer);
    if (it == pending_.end()) return;
    pending = std::move(it->second);
    pending_.erase(it);
  }
  if (!reply.offered) {
    pending.done({}, std::make_exception_ptr(NotOffered(
                         "rank " + std::to_string(holder) + " does not offer chunk key " +
                         std::to_string(pending.key) + " (or could not read it)")));
    return;
  }
  const memory::ChunkId replica =
      memory_.create_chunk(reply.name + " (from rank " + std::to_string(holder) + ")", reply.bytes);
  auto pinned = std::make_shared<std::vector<memory::ChunkRequest>>(
      1, memory::ChunkRequest{replica, memory::ChunkAccess::write});
  auto done = std::make_shared<FetchDone>(std::move(pending.done));
  memory_.acquire_async(*pinned, memory_.host(),
                        [this, holder, transfer = reply.transfer, replica, pinned, done](
                            std::vector<memory::ChunkView> views, std::exception_ptr error) {
                          if (error) {
                            memory_.destroy_chunk(replica);
                            (*done)({}, error);
                            return;
                          }
                          const memory::ChunkView view = views.front();
                          network_.receive(
                              holder, transfer, {static_cast<std::byte*>(view.host), view.bytes},
                              [this, replica, pinned, done](std::exception_ptr failed) {
                                memory_.release(*pinned, memory_.host());
                                if (failed) {
                                  memory_.destroy_chunk(replica);
                                  (*done)({}, failed);
                                  return;
                                }
                                {
                                  std::lock_guard guard(lock_);
                                  ++fetched_;
                                }
                                (*done)(replica, nullptr);
                              });
                        });
}

}  // namespace strata::cluster
