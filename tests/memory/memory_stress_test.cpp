// Randomized stress: threads run "tasks" that read and write random sets of chunks in the device
// and host spaces, with a total 16x the device capacity and 2x the host capacity, so chunks
// keep moving between device, host and disk. Every read is checked against what was last
// written: nothing lost, nothing stale. Each acquire() is an asynchronous acquisition waited
// for, so with several threads many are planned, waiting for room and in flight at once.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <shared_mutex>
#include <thread>

#include "strata/base/units.hpp"
#include "strata/device/backends.hpp"
#include "strata/memory/memory_manager.hpp"

namespace strata::memory {
namespace {

// The bytes chunk `chunk` holds after its `version`-th write.
std::vector<std::byte> expected(std::uint64_t chunk, std::uint64_t version, std::uint64_t bytes) {
  std::vector<std::byte> data(bytes);
  std::uint64_t state = chunk * 0x9E3779B97F4A7C15ull + version * 0xBF58476D1CE4E5B9ull + 1;
  for (auto& b : data) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    b = static_cast<std::byte>(state);
  }
  return data;
}

void run_stress(unsigned threads, unsigned tasks_per_thread, unsigned seed) {
  auto gpu = device::make_cpu_device(device::default_block_runner());
  device::Device* devices[1] = {gpu.get()};
  MemoryOptions options;
  options.device_capacity = 64 * KiB;
  options.host_capacity = 512 * KiB;
  MemoryManager manager(options, devices);
  const SpaceId dev = manager.space_of(*gpu);

  constexpr unsigned chunk_count = 128;  // 128 x 8 KiB = 1 MiB: 16x device, 2x host
  constexpr std::uint64_t chunk_bytes = 8 * KiB;
  std::vector<ChunkId> chunks;
  std::vector<std::uint64_t> versions(chunk_count, 0);
  for (unsigned c = 0; c < chunk_count; ++c)
    chunks.push_back(manager.create_chunk("chunk " + std::to_string(c), chunk_bytes,
                                          expected(c, 0, chunk_bytes)));
  // The runtime orders conflicting accesses; here per-chunk reader/writer locks stand in for it.
  std::vector<std::shared_mutex> order(chunk_count);
  std::atomic<unsigned> failures{0};

  auto worker = [&](unsigned id) {
    std::mt19937 engine(seed * 1000 + id);
    for (unsigned t = 0; t < tasks_per_thread; ++t) {
      const unsigned count = 1 + engine() % 4;
      std::vector<unsigned> picked;
      while (picked.size() < count) {
        const unsigned c = engine() % chunk_count;
        if (std::find(picked.begin(), picked.end(), c) == picked.end()) picked.push_back(c);
      }
      std::sort(picked.begin(), picked.end());  // fixed lock order
      std::vector<ChunkRequest> requests;
      for (unsigned c : picked) {
        const auto access = static_cast<ChunkAccess>(engine() % 3);
        requests.push_back({chunks[c], access});
        if (access == ChunkAccess::read)
          order[c].lock_shared();
        else
          order[c].lock();
      }
      const SpaceId space = engine() % 4 == 0 ? manager.host() : dev;
      auto views = manager.acquire(requests, space);
      for (std::size_t i = 0; i < requests.size(); ++i) {
        const unsigned c = picked[i];
        const ChunkView& view = views[i];
        std::vector<std::byte> seen(chunk_bytes);
        if (requests[i].access != ChunkAccess::write) {
          if (view.host != nullptr) {
            std::memcpy(seen.data(), view.host, chunk_bytes);
          } else {
            gpu->queue(device::QueueKind::device_to_host)
                .copy_to_host(seen.data(), *view.buffer, view.offset, chunk_bytes)
                .wait();
          }
          if (seen != expected(c, versions[c], chunk_bytes)) {
            failures.fetch_add(1);
            int matched = -1;
            for (std::uint64_t v = 0; v <= versions[c] + 1 && matched < 0; ++v)
              if (seen == expected(c, v, chunk_bytes)) matched = static_cast<int>(v);
            ADD_FAILURE() << "chunk " << c << " read in " << (view.host ? "host" : "device")
                          << " holds version " << matched << ", expected " << versions[c];
          }
        }
        if (requests[i].access != ChunkAccess::read) {
          const auto next = expected(c, versions[c] + 1, chunk_bytes);
          if (view.host != nullptr) {
            std::memcpy(view.host, next.data(), chunk_bytes);
          } else {
            gpu->queue(device::QueueKind::host_to_device)
                .copy_to_device(*view.buffer, view.offset, next.data(), chunk_bytes)
                .wait();
          }
          ++versions[c];
        }
      }
      manager.release(requests, space);
      for (std::size_t i = 0; i < requests.size(); ++i) {
        if (requests[i].access == ChunkAccess::read)
          order[picked[i]].unlock_shared();
        else
          order[picked[i]].unlock();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < threads; ++i)
    pool.emplace_back(worker, i);
  for (auto& thread : pool)
    thread.join();
  EXPECT_EQ(failures.load(), 0u) << "reads that saw stale or lost data";
  // Afterwards every chunk holds its last write.
  for (unsigned c = 0; c < chunk_count; ++c) {
    std::vector<std::byte> out(chunk_bytes);
    manager.read(chunks[c], out);
    ASSERT_EQ(out, expected(c, versions[c], chunk_bytes)) << "chunk " << c;
  }
  const MemoryStats stats = manager.stats();
  EXPECT_GT(stats.spaces[dev.index].evictions, 0u);
  EXPECT_GT(stats.spaces[manager.host().index].evictions, 0u);
  EXPECT_GT((stats.bytes_moved.count({manager.disk().index, manager.host().index})), 0u);
  std::printf("%s", stats.format().c_str());
}

TEST(MemoryStress, OneThreadOverDeviceHostAndDisk) {
  run_stress(1, 3000, 1);
}

TEST(MemoryStress, FourThreadsOverDeviceHostAndDisk) {
  run_stress(4, 1500, 2);
}

TEST(MemoryStress, EightConcurrentAcquirersOverDeviceHostAndDisk) {
  run_stress(8, 600, 3);
}

}  // namespace
}  // namespace strata::memory
