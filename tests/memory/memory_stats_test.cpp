// Statistics tell the truth: evictions are counted once per copy that actually leaves a space,
// checked against what a test counts from the outside under random pressure, and the disk space
// reports the peak of its spill files; free bytes are the capacity less what is in use.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <random>
#include <shared_mutex>
#include <thread>

#include "strata/base/units.hpp"
#include "strata/device/backends.hpp"
#include "strata/memory/memory_manager.hpp"

namespace strata::memory {
namespace {

constexpr std::uint64_t chunk_bytes = 4 * KiB;  // a multiple of the pools' 256 B alignment

// Copies the manager reports, counted per direction relative to one space.
struct CopyCounts {
  std::atomic<std::uint64_t> into{0};    // made a copy valid in the space
  std::atomic<std::uint64_t> out_of{0};  // moved a copy out of it
};

void count_copies(MemoryManager& manager, SpaceId space, CopyCounts& counts) {
  manager.set_copy_observer([space, &counts](const CopyRecord& copy) {
    if (copy.to == space) counts.into.fetch_add(1);
    if (copy.from == space) counts.out_of.fetch_add(1);
  });
}

// `threads` threads each acquire random sets of 1 to 4 chunks in `space` `tasks` times, reading
// or updating them (never a plain write: every copy made valid in `space` is a copy into it).
// Per-chunk locks order conflicting accesses, as the runtime would; acquisitions of different
// threads wait for room and are planned again and again meanwhile.
void random_pressure(MemoryManager& manager, const std::vector<ChunkId>& chunks, SpaceId space,
                     unsigned threads, unsigned tasks, unsigned seed) {
  std::vector<std::shared_mutex> order(chunks.size());
  auto worker = [&](unsigned id) {
    std::mt19937 engine(seed * 100 + id);
    for (unsigned t = 0; t < tasks; ++t) {
      std::vector<std::size_t> picked;
      const unsigned count = 1 + engine() % 4;
      while (picked.size() < count) {
        const std::size_t c = engine() % chunks.size();
        if (std::find(picked.begin(), picked.end(), c) == picked.end()) picked.push_back(c);
      }
      std::sort(picked.begin(), picked.end());  // a fixed lock order
      std::vector<ChunkRequest> requests;
      for (std::size_t c : picked) {
        const bool update = engine() % 3 == 0;
        requests.push_back({chunks[c], update ? ChunkAccess::read_write : ChunkAccess::read});
        if (update) {
          order[c].lock();
        } else {
          order[c].lock_shared();
        }
      }
      manager.acquire(requests, space);
      if (engine() % 4 == 0) std::this_thread::yield();  // hold the memory a little longer
      manager.release(requests, space);
      for (std::size_t i = 0; i < picked.size(); ++i) {
        if (requests[i].access == ChunkAccess::read) {
          order[picked[i]].unlock_shared();
        } else {
          order[picked[i]].unlock();
        }
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < threads; ++i)
    pool.emplace_back(worker, i);
  for (auto& thread : pool)
    thread.join();
  manager.drain();
}

std::vector<ChunkId> make_chunks(MemoryManager& manager, unsigned count) {
  std::vector<ChunkId> chunks;
  for (unsigned c = 0; c < count; ++c) {
    chunks.push_back(manager.create_chunk("chunk " + std::to_string(c), chunk_bytes,
                                          std::vector<std::byte>(chunk_bytes, std::byte(c))));
  }
  return chunks;
}

TEST(MemoryStats, DeviceEvictionsEqualTheCopiesThatLeftTheDevice) {
  // Only device acquisitions: a device copy becomes valid only by a copy into the device, and
  // stops being valid only by an eviction. So evictions = copies in - copies still there.
  auto gpu = device::make_cpu_device(device::default_block_runner());
  device::Device* devices[1] = {gpu.get()};
  MemoryOptions options;
  options.device_capacity = 8 * chunk_bytes;
  options.host_capacity = 1024 * KiB;
  MemoryManager manager(options, devices);
  const SpaceId dev = manager.space_of(*gpu);
  const std::vector<ChunkId> chunks = make_chunks(manager, 40);  // 5x the device
  CopyCounts counts;
  count_copies(manager, dev, counts);

  random_pressure(manager, chunks, dev, 6, 400, 1);

  const SpaceStats stats = manager.stats().spaces[dev.index];
  const std::uint64_t resident = stats.used / chunk_bytes;
  EXPECT_EQ(stats.evictions, counts.into.load() - resident);
  EXPECT_LE(stats.evictions, counts.into.load());
  EXPECT_GT(counts.out_of.load(), 0u);  // updated copies had to move to the host
  EXPECT_GT(stats.evictions, counts.out_of.load() / 2);
  std::printf("%s", manager.stats().format().c_str());
}

TEST(MemoryStats, FreeBytesAreTheCapacityLessWhatIsInUse) {
  auto gpu = device::make_cpu_device(device::default_block_runner());
  device::Device* devices[1] = {gpu.get()};
  MemoryOptions options;
  options.device_capacity = 8 * chunk_bytes;
  options.host_capacity = 1024 * KiB;
  MemoryManager manager(options, devices);
  const SpaceId dev = manager.space_of(*gpu);
  EXPECT_EQ(manager.free_bytes(dev), 8 * chunk_bytes);
  const std::vector<ChunkId> chunks = make_chunks(manager, 3);
  const std::vector<ChunkRequest> requests{{chunks[0], ChunkAccess::read},
                                           {chunks[1], ChunkAccess::read_write}};
  manager.acquire(requests, dev);
  EXPECT_EQ(manager.free_bytes(dev), 6 * chunk_bytes);
  manager.release(requests, dev);
  // Released copies stay cached: still in use until evicted or freed.
  EXPECT_EQ(manager.free_bytes(dev), 6 * chunk_bytes);
  manager.destroy_chunk(chunks[1]);
  EXPECT_EQ(manager.free_bytes(dev), 7 * chunk_bytes);
  EXPECT_EQ(manager.free_bytes(manager.host()),
            manager.stats().spaces[manager.host().index].capacity -
                manager.stats().spaces[manager.host().index].used);
  EXPECT_EQ(manager.free_bytes(manager.disk()), std::numeric_limits<std::uint64_t>::max());
}

TEST(MemoryStats, HostEvictionsEqualTheCopiesThatLeftTheHost) {
  // Only host acquisitions: a host copy becomes valid by the chunk's creation or by a read back
  // from disk, and stops being valid only by an eviction.
  auto gpu = device::make_cpu_device(device::default_block_runner());
  device::Device* devices[1] = {gpu.get()};
  MemoryOptions options;
  options.host_capacity = 8 * chunk_bytes;
  options.device_capacity = 4 * chunk_bytes;
  MemoryManager manager(options, devices);
  const SpaceId host = manager.host();
  CopyCounts counts;
  count_copies(manager, host, counts);
  constexpr unsigned chunk_count = 32;
  const std::vector<ChunkId> chunks = make_chunks(manager, chunk_count);

  random_pressure(manager, chunks, host, 6, 300, 2);

  const MemoryStats all = manager.stats();
  const SpaceStats& stats = all.spaces[host.index];
  const std::uint64_t resident = stats.used / chunk_bytes;
  EXPECT_EQ(stats.evictions, chunk_count + counts.into.load() - resident);
  EXPECT_GT(counts.out_of.load(), 0u);
  // The disk held at most what was written to it, and at some point at least what it holds now.
  const SpaceStats& disk = all.spaces[manager.disk().index];
  EXPECT_GT(disk.peak, 0u);
  EXPECT_GE(disk.peak, disk.used);
  EXPECT_LE(disk.peak, all.bytes_moved.at({host.index, manager.disk().index}));
  std::printf("%s", all.format().c_str());
}

TEST(MemoryStats, TheDiskSpaceKeepsItsPeakWhenFilesGo) {
  auto gpu = device::make_cpu_device(device::default_block_runner());
  device::Device* devices[1] = {gpu.get()};
  MemoryOptions options;
  options.host_capacity = 8 * chunk_bytes;
  options.device_capacity = 4 * chunk_bytes;
  MemoryManager manager(options, devices);
  const std::vector<ChunkId> chunks = make_chunks(manager, 12);  // 4 chunks spill
  manager.drain();
  const SpaceId disk = manager.disk();
  const MemoryStats spilled = manager.stats();
  EXPECT_EQ(spilled.spaces[disk.index].used, 4 * chunk_bytes);
  EXPECT_EQ(spilled.spaces[disk.index].peak, 4 * chunk_bytes);

  // The spilled chunks go, and their files with them: the peak stays.
  for (std::size_t c = 0; c < 4; ++c)
    manager.destroy_chunk(chunks[c]);
  manager.drain();
  const MemoryStats after = manager.stats();
  EXPECT_EQ(after.spaces[disk.index].used, 0u);
  EXPECT_EQ(after.spaces[disk.index].peak, 4 * chunk_bytes);
}

}  // namespace
}  // namespace strata::memory
