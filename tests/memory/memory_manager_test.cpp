#include "strata/memory/memory_manager.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <future>
#include <numeric>
#include <thread>

#include "strata/base/units.hpp"
#include "strata/device/backends.hpp"

namespace strata::memory {
namespace {

std::vector<std::byte> pattern(std::uint64_t bytes, unsigned seed) {
  std::vector<std::byte> data(bytes);
  for (std::uint64_t i = 0; i < bytes; ++i)
    data[i] = static_cast<std::byte>((i * 131 + seed * 7) & 0xff);
  return data;
}

class MemoryManagerTest : public ::testing::Test {
 protected:
  std::unique_ptr<device::Device> gpu = device::make_cpu_device(device::default_block_runner());
  device::Device* devices[1] = {gpu.get()};
  MemoryOptions options() const {
    MemoryOptions o;
    o.host_capacity = 64 * KiB;
    o.device_capacity = 16 * KiB;
    return o;
  }
  std::unique_ptr<MemoryManager> manager = std::make_unique<MemoryManager>(options(), devices);
  SpaceId dev = manager->space_of(*gpu);

  std::vector<std::byte> contents(ChunkId id) {
    std::vector<std::byte> out(manager->chunk_bytes(id));
    manager->read(id, out);
    return out;
  }
  // A new 4 KiB chunk written on the device (its only copy there).
  ChunkId written_on_device(const std::string& name) {
    const ChunkId id = manager->create_chunk(name, 4 * KiB);
    const ChunkRequest write{id, ChunkAccess::write};
    manager->acquire(std::span(&write, 1), dev);
    manager->release(std::span(&write, 1), dev);
    return id;
  }
  std::vector<std::byte> device_contents(const ChunkView& view) {
    std::vector<std::byte> out(view.bytes);
    gpu->queue(device::QueueKind::device_to_host)
        .copy_to_host(out.data(), *view.buffer, view.offset, view.bytes)
        .wait();
    return out;
  }
};

TEST_F(MemoryManagerTest, ItAnswersWhereValidCopiesLie) {
  using Spaces = std::vector<SpaceId>;
  const auto data = pattern(4 * KiB, 3);
  const ChunkId a = manager->create_chunk("a", data.size(), data);
  const ChunkId blank = manager->create_chunk("blank", 4 * KiB);
  EXPECT_EQ(manager->valid_copies(a), Spaces{manager->host()});
  EXPECT_EQ(manager->valid_copies(blank), Spaces{});

  const ChunkRequest read{a, ChunkAccess::read};
  manager->acquire(std::span(&read, 1), dev);
  manager->release(std::span(&read, 1), dev);
  EXPECT_EQ(manager->valid_copies(a), (Spaces{manager->host(), dev}));

  // A write on the device leaves the device's copy the only valid one.
  const ChunkRequest write{a, ChunkAccess::write};
  manager->acquire(std::span(&write, 1), dev);
  manager->release(std::span(&write, 1), dev);
  EXPECT_EQ(manager->valid_copies(a), Spaces{dev});

  // Filling the device (16 KiB) with chunks written there (their only copies) moves `a`, the
  // least recently used, one tier up, to the host.
  std::vector<ChunkId> others;
  for (int i = 0; i < 4; ++i) {
    others.push_back(manager->create_chunk("other", 4 * KiB));
    const ChunkRequest other{others.back(), ChunkAccess::write};
    manager->acquire(std::span(&other, 1), dev);
    manager->release(std::span(&other, 1), dev);
  }
  manager->drain();
  EXPECT_EQ(manager->valid_copies(a), Spaces{manager->host()});
}

TEST_F(MemoryManagerTest, ALateSizedChunkShowsItsWritersSizeAndRefusesEarlyReadsNamingIt) {
  const ChunkId kept = manager->create_chunk("kept", 4 * KiB);
  manager->make_late_sized(kept);
  EXPECT_EQ(manager->chunk_size(kept), std::nullopt);
  const ChunkRequest read{kept, ChunkAccess::read};
  try {
    manager->acquire(std::span(&read, 1), dev);
    FAIL() << "a late-sized chunk was read before its size was set";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("chunk 'kept' is read before its size is known"),
              std::string::npos)
        << error.what();
  }
  // The writer sees the capacity, on the device, and sets 1 KiB.
  const ChunkRequest write{kept, ChunkAccess::write};
  auto views = manager->acquire(std::span(&write, 1), dev);
  EXPECT_EQ(views[0].bytes, 4 * KiB);
  const auto data = pattern(1 * KiB, 5);
  gpu->queue(device::QueueKind::host_to_device)
      .copy_to_device(*views[0].buffer, views[0].offset, data.data(), data.size())
      .wait();
  try {
    manager->set_size(kept, 4 * KiB + 1);
    FAIL() << "a size above the capacity was set";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what())
                  .find("chunk 'kept' is set to 4097 B, more than its "
                        "capacity of 4096 B"),
              std::string::npos)
        << error.what();
  }
  manager->set_size(kept, 1 * KiB);
  manager->release(std::span(&write, 1), dev);
  EXPECT_EQ(manager->chunk_size(kept), 1 * KiB);
  // Readers on the host see 1 KiB (the device-to-host copy moved only those).
  views = manager->acquire(std::span(&read, 1), manager->host());
  ASSERT_EQ(views[0].bytes, 1 * KiB);
  EXPECT_EQ(std::vector<std::byte>(static_cast<std::byte*>(views[0].host),
                                   static_cast<std::byte*>(views[0].host) + 1 * KiB),
            data);
  manager->release(std::span(&read, 1), manager->host());
  // A new write forgets the size until its writer sets one.
  views = manager->acquire(std::span(&write, 1), manager->host());
  EXPECT_EQ(views[0].bytes, 4 * KiB);
  EXPECT_EQ(manager->chunk_size(kept), std::nullopt);
  manager->release(std::span(&write, 1), manager->host());
  EXPECT_THROW(manager->acquire(std::span(&read, 1), dev), Error);
  // A chunk of a fixed size has no size to set.
  const ChunkId fixed = manager->create_chunk("fixed", 1 * KiB);
  EXPECT_EQ(manager->chunk_size(fixed), 1 * KiB);
  EXPECT_THROW(manager->set_size(fixed, 16), Error);
}

TEST_F(MemoryManagerTest, ReadingInADeviceSpaceFetchesTheHostCopy) {
  const auto data = pattern(4 * KiB, 1);
  ChunkId a = manager->create_chunk("a", data.size(), data);
  const ChunkRequest read{a, ChunkAccess::read};
  auto views = manager->acquire(std::span(&read, 1), dev);
  ASSERT_NE(views[0].buffer, nullptr);
  EXPECT_EQ(device_contents(views[0]), data);
  manager->release(std::span(&read, 1), dev);
  const auto stats = manager->stats();
  EXPECT_EQ(stats.spaces[dev.index].misses, 1u);
  EXPECT_EQ((stats.bytes_moved.at({manager->host().index, dev.index})), 4 * KiB);
  // A second read is a hit and moves nothing.
  manager->acquire(std::span(&read, 1), dev);
  manager->release(std::span(&read, 1), dev);
  EXPECT_EQ(manager->stats().spaces[dev.index].hits, 1u);
}

TEST_F(MemoryManagerTest, AWriteMakesTheWrittenCopyTheOnlyValidOne) {
  ChunkId a = manager->create_chunk("a", 4 * KiB, pattern(4 * KiB, 1));
  const ChunkRequest write{a, ChunkAccess::write};
  auto views = manager->acquire(std::span(&write, 1), dev);
  const auto fresh = pattern(4 * KiB, 2);
  gpu->queue(device::QueueKind::host_to_device)
      .copy_to_device(*views[0].buffer, views[0].offset, fresh.data(), fresh.size())
      .wait();
  manager->release(std::span(&write, 1), dev);
  EXPECT_EQ(contents(a), fresh);  // fetched back from the device, not the stale host copy
  EXPECT_EQ(manager->stats().spaces[manager->host().index].used, 4 * KiB);
}

TEST_F(MemoryManagerTest, DeviceOnlyChunksHoldNoHostMemory) {
  // Four chunks written on the device fill it; the host stays empty (capacity = device + host).
  for (int i = 0; i < 4; ++i)
    written_on_device("c" + std::to_string(i));
  const auto stats = manager->stats();
  EXPECT_EQ(stats.spaces[dev.index].used, 16 * KiB);
  EXPECT_EQ(stats.spaces[manager->host().index].used, 0u);
}

TEST_F(MemoryManagerTest, LeastRecentlyUsedChunksMoveUpOneTier) {
  std::vector<ChunkId> chunks;
  std::vector<std::vector<std::byte>> data;
  for (int i = 0; i < 6; ++i) {  // 24 KiB through a 16 KiB device
    data.push_back(pattern(4 * KiB, 10 + i));
    chunks.push_back(manager->create_chunk("c" + std::to_string(i), 4 * KiB, data.back()));
    const ChunkRequest update{chunks.back(), ChunkAccess::read_write};
    manager->acquire(std::span(&update, 1), dev);
    manager->release(std::span(&update, 1), dev);
  }
  const auto stats = manager->stats();
  EXPECT_EQ(stats.spaces[dev.index].evictions, 2u);
  EXPECT_EQ((stats.bytes_moved.at({dev.index, manager->host().index})), 8 * KiB);
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(contents(chunks[i]), data[i]) << "chunk " << i;
}

TEST_F(MemoryManagerTest, DeclaredUsesKeepWhatIsNeededSoonestAndUndeclaredChunksGoFirst) {
  // Four 4 KiB chunks fill the 16 KiB device, used in the order 0..3 (3 most recently).
  std::vector<ChunkId> chunks;
  for (int i = 0; i < 4; ++i)
    chunks.push_back(written_on_device("c" + std::to_string(i)));
  const auto on_device = [&](ChunkId id) {
    const auto spaces = manager->valid_copies(id);
    return std::find(spaces.begin(), spaces.end(), dev) != spaces.end();
  };
  const auto bring_in_new_chunk = [&] {
    const ChunkId fresh = written_on_device("fresh");
    manager->drain();
    return fresh;
  };
  // Tasks 10, 20 and 30 will use chunks 3, 0 and 1; chunk 2 nobody declared: it goes first,
  // although chunks 0 and 1 were used before it.
  manager->expect_use(std::span(&chunks[3], 1), 10);
  manager->expect_use(std::span(&chunks[0], 1), 20);
  manager->expect_use(std::span(&chunks[1], 1), 30);
  const ChunkId fresh = bring_in_new_chunk();
  EXPECT_FALSE(on_device(chunks[2]));
  EXPECT_TRUE(on_device(chunks[0]) && on_device(chunks[1]) && on_device(chunks[3]));
  // Then the one whose next use comes last (1, at 30), not the least recently used (0).
  manager->expect_use(std::span(&fresh, 1), 15);
  bring_in_new_chunk();
  EXPECT_FALSE(on_device(chunks[1]));
  EXPECT_TRUE(on_device(chunks[0]) && on_device(chunks[3]) && on_device(fresh));
  // Once task 10 is over, chunk 3 is used by no declared task any more: it goes next.
  manager->end_use(std::span(&chunks[3], 1), 10);
  manager->end_use(std::span(&chunks[3], 1), 99);  // never declared: ignored
  bring_in_new_chunk();
  EXPECT_FALSE(on_device(chunks[3]));
  EXPECT_TRUE(on_device(chunks[0]) && on_device(fresh));
  for (const ChunkId id : chunks)
    EXPECT_EQ(contents(id).size(), 4 * KiB);  // moved up, not lost
}

TEST_F(MemoryManagerTest, HostPressureSpillsToDiskAndReadsBackVerified) {
  std::vector<ChunkId> chunks;
  std::vector<std::vector<std::byte>> data;
  for (int i = 0; i < 40; ++i) {  // 160 KiB through 16 KiB device + 64 KiB host
    data.push_back(pattern(4 * KiB, 100 + i));
    chunks.push_back(manager->create_chunk("c" + std::to_string(i), 4 * KiB));
    const ChunkRequest write{chunks.back(), ChunkAccess::write};
    auto views = manager->acquire(std::span(&write, 1), dev);
    gpu->queue(device::QueueKind::host_to_device)
        .copy_to_device(*views[0].buffer, views[0].offset, data.back().data(), 4 * KiB)
        .wait();
    manager->release(std::span(&write, 1), dev);
  }
  const auto stats = manager->stats();
  EXPECT_GT(stats.spaces[manager->host().index].evictions, 0u);
  EXPECT_GT(stats.spaces[manager->disk().index].used, 0u);
  for (int i = 0; i < 40; ++i)
    EXPECT_EQ(contents(chunks[i]), data[i]) << "chunk " << i;
}

TEST_F(MemoryManagerTest, RequestLargerThanTheSpaceIsAClearErrorNotAHang) {
  ChunkId big = manager->create_chunk("big tile", 20 * KiB);
  const ChunkRequest write{big, ChunkAccess::write};
  try {
    manager->acquire(std::span(&write, 1), dev);
    FAIL() << "expected OutOfMemory";
  } catch (const OutOfMemory& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("out of memory in cpu (device space)"), std::string::npos) << message;
    EXPECT_NE(message.find("'big tile'"), std::string::npos) << message;
    EXPECT_NE(message.find("20.00 KiB"), std::string::npos) << message;
    EXPECT_NE(message.find("capacity of 16.00 KiB"), std::string::npos) << message;
  }
}

// A request whose own small chunk splits the free space into pieces its large chunk does not
// fit: the small chunk makes way (moved up, or dropped where the host still holds it) and comes
// back elsewhere, instead of an out-of-memory error on 14 of 16 KiB.
TEST_F(MemoryManagerTest, ARequestsOwnChunkMakesWayWhenItSplitsTheFreeSpace) {
  for (const bool valid_on_host : {false, true}) {
    SCOPED_TRACE(valid_on_host ? "small chunk also valid on the host" : "only on the device");
    const std::vector<std::byte> data = pattern(2 * KiB, valid_on_host ? 5 : 6);
    ChunkId left = manager->create_chunk("left", 4 * KiB);
    ChunkId small = manager->create_chunk("small", 2 * KiB, data);
    ChunkId right = manager->create_chunk("right", 10 * KiB);
    const ChunkRequest fill[] = {
        {left, ChunkAccess::write},
        {small, valid_on_host ? ChunkAccess::read : ChunkAccess::read_write},
        {right, ChunkAccess::write}};
    manager->acquire(fill, dev);  // the device full: left, small, right in that order
    manager->release(fill, dev);
    manager->destroy_chunk(left);
    manager->destroy_chunk(right);  // free: 4 KiB before small, 10 KiB after it

    ChunkId big = manager->create_chunk("big", 12 * KiB);
    const ChunkRequest assemble[] = {{small, ChunkAccess::read}, {big, ChunkAccess::write}};
    auto views = manager->acquire(assemble, dev);
    EXPECT_EQ(device_contents(views[0]), data);
    EXPECT_GE(views[1].offset >= views[0].offset ? views[1].offset - views[0].offset
                                                 : views[0].offset - views[1].offset,
              2 * KiB);
    manager->release(assemble, dev);
    EXPECT_EQ(contents(small), data);
    manager->destroy_chunk(small);
    manager->destroy_chunk(big);
  }
}

TEST_F(MemoryManagerTest, AcquisitionWaitsWhileOthersHoldTheMemoryThenProceeds) {
  ChunkId a = manager->create_chunk("a", 12 * KiB, pattern(12 * KiB, 1));
  ChunkId b = manager->create_chunk("b", 12 * KiB, pattern(12 * KiB, 2));
  const ChunkRequest read_a{a, ChunkAccess::read}, read_b{b, ChunkAccess::read};
  manager->acquire(std::span(&read_a, 1), dev);  // a running task holds 12 of 16 KiB
  std::atomic<bool> acquired{false};
  std::thread other([&] {
    manager->acquire(std::span(&read_b, 1), dev);  // must wait, not fail
    acquired = true;
    manager->release(std::span(&read_b, 1), dev);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(acquired.load());
  manager->release(std::span(&read_a, 1), dev);
  other.join();
  EXPECT_TRUE(acquired.load());
}

TEST_F(MemoryManagerTest, ReadingANeverWrittenChunkNamesIt) {
  ChunkId a = manager->create_chunk("histogram", 1 * KiB);
  const ChunkRequest read{a, ChunkAccess::read};
  try {
    manager->acquire(std::span(&read, 1), dev);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'histogram' is read before anything wrote it"),
              std::string::npos);
  }
  // Nothing stays pinned: the chunk can be written and read afterwards.
  const ChunkRequest write{a, ChunkAccess::write};
  manager->acquire(std::span(&write, 1), dev);
  manager->release(std::span(&write, 1), dev);
}

// An acquisition's result, delivered by acquire_async().
struct Outcome {
  std::promise<std::vector<ChunkView>> promise;
  std::future<std::vector<ChunkView>> future = promise.get_future();
  AcquireCallback callback() {
    return [this](std::vector<ChunkView> views, std::exception_ptr error) {
      if (error) {
        promise.set_exception(error);
      } else {
        promise.set_value(std::move(views));
      }
    };
  }
  bool ready() const {
    return future.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }
};

// Holds a device copy queue back: everything enqueued on it after this waits for open().
struct QueueGate {
  device::Event gate = device::Event::manual();
  device::Event held;
  std::vector<std::byte> scratch = std::vector<std::byte>(256);
  QueueGate(device::Device& gpu, device::QueueKind kind, const device::DeviceBuffer& buffer) {
    device::Queue& queue = gpu.queue(kind);
    held = kind == device::QueueKind::host_to_device
               ? queue.copy_to_device(buffer, 0, scratch.data(), scratch.size(), {&gate, 1})
               : queue.copy_to_host(scratch.data(), buffer, 0, scratch.size(), {&gate, 1});
  }
  void open() { gate.state()->complete(); }
};

TEST_F(MemoryManagerTest, AReaderOfAChunkBeingFilledWaitsForThatCopyInsteadOfCopyingAgain) {
  const auto data = pattern(4 * KiB, 3);
  ChunkId a = manager->create_chunk("a", 4 * KiB, data);
  device::DeviceBuffer spare = gpu->allocate(256);
  QueueGate uploads(*gpu, device::QueueKind::host_to_device, spare);
  const ChunkRequest read{a, ChunkAccess::read};
  Outcome first, second;
  manager->acquire_async(std::span(&read, 1), dev, first.callback());
  manager->acquire_async(std::span(&read, 1), dev, second.callback());  // another task, same chunk
  // The upload is held back: neither acquisition is complete, and only one copy was issued.
  EXPECT_FALSE(first.ready());
  EXPECT_FALSE(second.ready());
  EXPECT_EQ(manager->stats().spaces[dev.index].misses, 1u);
  EXPECT_EQ(manager->stats().spaces[dev.index].hits, 1u);  // the second found it being filled
  uploads.open();
  const auto views1 = first.future.get();
  const auto views2 = second.future.get();
  EXPECT_EQ(views1.front().offset, views2.front().offset);
  EXPECT_EQ(device_contents(views1.front()), data);
  manager->release(std::span(&read, 1), dev);
  manager->release(std::span(&read, 1), dev);
  manager->drain();
  EXPECT_EQ((manager->stats().bytes_moved.at({manager->host().index, dev.index})), 4 * KiB);
}

TEST_F(MemoryManagerTest, AnEvictionWaitsForTheCopyReadingItsVictimAndTheDataSurvives) {
  // x and y live only on the device (16 KiB, full); x is being read out to the host.
  const auto x_data = pattern(8 * KiB, 4), y_data = pattern(8 * KiB, 5);
  ChunkId x = manager->create_chunk("x", 8 * KiB);
  ChunkId y = manager->create_chunk("y", 8 * KiB);
  for (auto [id, data] : {std::pair{x, &x_data}, std::pair{y, &y_data}}) {
    const ChunkRequest write{id, ChunkAccess::write};
    auto views = manager->acquire(std::span(&write, 1), dev);
    gpu->queue(device::QueueKind::host_to_device)
        .copy_to_device(*views.front().buffer, views.front().offset, data->data(), 8 * KiB)
        .wait();
    manager->release(std::span(&write, 1), dev);
  }
  device::DeviceBuffer spare = gpu->allocate(256);
  QueueGate downloads(*gpu, device::QueueKind::device_to_host, spare);
  const ChunkRequest read_x{x, ChunkAccess::read};
  Outcome host_reader;
  manager->acquire_async(std::span(&read_x, 1), manager->host(), host_reader.callback());
  // A task needs 8 KiB of the device: x is being read (not a victim), so y moves to the host,
  // and the task waits for that move, held behind x's download.
  ChunkId z = manager->create_chunk("z", 8 * KiB);
  const ChunkRequest write_z{z, ChunkAccess::write};
  Outcome writer;
  manager->acquire_async(std::span(&write_z, 1), dev, writer.callback());
  EXPECT_FALSE(host_reader.ready());
  EXPECT_FALSE(writer.ready());
  EXPECT_EQ(manager->stats().spaces[dev.index].evictions, 0u);  // counted once y has left
  downloads.open();
  const auto x_view = host_reader.future.get().front();
  const auto* x_bytes = static_cast<const std::byte*>(x_view.host);
  EXPECT_EQ(std::vector<std::byte>(x_bytes, x_bytes + 8 * KiB), x_data);
  manager->release(std::span(&read_x, 1), manager->host());
  writer.future.get();
  manager->release(std::span(&write_z, 1), dev);
  // y left the device, and x too unless z got y's room before x's: each once.
  manager->drain();
  const SpaceStats device = manager->stats().spaces[dev.index];
  const std::uint64_t x_stayed = (device.used - 8 * KiB) / (8 * KiB);
  EXPECT_EQ(device.evictions, 2 - x_stayed);
  EXPECT_EQ(contents(x), x_data);
  EXPECT_EQ(contents(y), y_data);
}

TEST_F(MemoryManagerTest, AFullSpillAreaFailsTheAcquisitionThatNeededRoomAndLosesNothing) {
  MemoryOptions o = options();
  o.host_capacity = 16 * KiB;
  o.spill_capacity = 8 * KiB;
  manager = std::make_unique<MemoryManager>(o, devices);
  const auto a_data = pattern(8 * KiB, 6), b_data = pattern(8 * KiB, 7),
             c_data = pattern(8 * KiB, 8);
  ChunkId a = manager->create_chunk("a", 8 * KiB, a_data);
  ChunkId b = manager->create_chunk("b", 8 * KiB, b_data);
  ChunkId c = manager->create_chunk("c", 8 * KiB, c_data);  // a moves to disk: now full
  try {
    manager->create_chunk("d", 8 * KiB, pattern(8 * KiB, 9));  // b cannot move: no room
    FAIL() << "expected SpillError";
  } catch (const SpillError& e) {
    EXPECT_NE(std::string(e.what()).find("spill capacity"), std::string::npos) << e.what();
  }
  EXPECT_EQ(contents(b), b_data);
  EXPECT_EQ(contents(c), c_data);
  manager->destroy_chunk(c);  // room on the host to read a back from disk
  EXPECT_EQ(contents(a), a_data);
}

TEST_F(MemoryManagerTest, AcquisitionsOfUnknownChunksOrOnDiskAreClearErrors) {
  const ChunkRequest unknown{ChunkId{999}, ChunkAccess::read};
  EXPECT_THROW(manager->acquire(std::span(&unknown, 1), dev), Error);
  ChunkId a = manager->create_chunk("a", 1 * KiB, pattern(1 * KiB, 1));
  const ChunkRequest read{a, ChunkAccess::read};
  try {
    manager->acquire(std::span(&read, 1), manager->disk());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not on disk"), std::string::npos) << e.what();
  }
  const ChunkRequest twice[] = {read, read};
  EXPECT_THROW(manager->acquire(twice, dev), Error);
}

TEST_F(MemoryManagerTest, SpillFilesAreRemovedWithTheManager) {
  std::string directory = manager->stats().spaces[manager->disk().index].name;
  directory = directory.substr(directory.find('(') + 1);
  directory.pop_back();
  EXPECT_TRUE(std::filesystem::exists(directory)) << directory;
  manager.reset();
  EXPECT_FALSE(std::filesystem::exists(directory)) << directory;
}

}  // namespace
}  // namespace strata::memory

namespace strata::memory {
namespace {

// The same chunk traffic on every device this machine has (OpenCL on PoCL in CI; CUDA on a GPU):
// pools, offsets and copies go through each backend's own queues.
TEST(MemoryOnEveryDevice, ChunksSurviveEvictionThroughEachBackend) {
  Config config;
  config.section<device::DeviceSettings>().kernel_cache_dir = "off";
  device::DeviceSet set = device::discover_devices(config);
  for (auto& dev : set.devices) {
    SCOPED_TRACE(dev->info().id);
    device::Device* devices[1] = {dev.get()};
    MemoryOptions options;
    options.device_capacity = 16 * KiB;
    options.host_capacity = 32 * KiB;
    MemoryManager manager(options, devices);
    const SpaceId space = manager.space_of(*dev);
    std::vector<ChunkId> chunks;
    std::vector<std::vector<std::byte>> data;
    for (int i = 0; i < 24; ++i) {  // 96 KiB through 16 KiB of device and 32 KiB of host
      data.push_back(pattern(4 * KiB, 50 + i));
      chunks.push_back(manager.create_chunk("c" + std::to_string(i), 4 * KiB));
      const ChunkRequest write{chunks.back(), ChunkAccess::write};
      auto views = manager.acquire(std::span(&write, 1), space);
      dev->queue(device::QueueKind::host_to_device)
          .copy_to_device(*views[0].buffer, views[0].offset, data.back().data(), 4 * KiB)
          .wait();
      manager.release(std::span(&write, 1), space);
    }
    for (int i = 23; i >= 0; --i) {  // read back on the device, newest first
      const ChunkRequest read{chunks[i], ChunkAccess::read};
      auto views = manager.acquire(std::span(&read, 1), space);
      std::vector<std::byte> seen(4 * KiB);
      dev->queue(device::QueueKind::device_to_host)
          .copy_to_host(seen.data(), *views[0].buffer, views[0].offset, 4 * KiB)
          .wait();
      manager.release(std::span(&read, 1), space);
      EXPECT_EQ(seen, data[i]) << "chunk " << i;
    }
    EXPECT_GT(manager.stats().spaces[manager.disk().index].used, 0u);
  }
}

// The CPU device working in host memory: its space is the host's, its kernels change chunks
// where they lie, nothing is copied for it, and its chunks still spill and come back.
TEST(CpuDeviceInHostMemory, ItsKernelsUseHostChunksInPlaceAndTheyStillSpill) {
  std::unique_ptr<device::Device> cpu = device::make_cpu_device(device::default_block_runner());
  device::Device* devices[1] = {cpu.get()};
  MemoryOptions options;
  options.host_capacity = 32 * KiB;
  options.cpu_device_in_host_memory = true;
  MemoryManager manager(options, devices);
  EXPECT_EQ(manager.space_of(*cpu), manager.host());
  EXPECT_EQ(manager.space_count(), 2u);  // host and disk

  const auto doubling = device::KernelDefinition("double")
                            .array<std::uint32_t>("values", device::ParamAccess::read_write)
                            .cpu([](const device::CpuBlock& block) {
                              auto* values = block.array<std::uint32_t>(0);
                              for (auto i = block.begin.x; i < block.end.x; ++i)
                                values[i] *= 2;
                            });
  const auto compiled = cpu->compile(doubling);
  constexpr std::uint32_t count = 1024;  // 4 KiB
  std::vector<ChunkId> chunks;
  for (std::uint32_t c = 0; c < 24; ++c) {  // 96 KiB through 32 KiB of host
    std::vector<std::uint32_t> values(count);
    std::iota(values.begin(), values.end(), c * count);
    chunks.push_back(
        manager.create_chunk("c" + std::to_string(c), count * 4, std::as_bytes(std::span(values))));
    const ChunkRequest update{chunks.back(), ChunkAccess::read_write};
    const auto views = manager.acquire(std::span(&update, 1), manager.space_of(*cpu));
    ASSERT_NE(views[0].buffer, nullptr);
    EXPECT_EQ(views[0].buffer->device(), cpu.get());
    EXPECT_EQ(static_cast<std::byte*>(views[0].buffer->handle()) + views[0].offset, views[0].host);
    cpu->queue(device::QueueKind::compute)
        .launch(*compiled, device::LaunchGeometry{device::Dim3{count}, device::Dim3{256}, 1},
                {views[0].argument(device::ElementType::u32)})
        .wait();
    manager.release(std::span(&update, 1), manager.space_of(*cpu));
  }
  for (std::uint32_t c = 0; c < 24; ++c) {
    std::vector<std::uint32_t> seen(count);
    manager.read(chunks[c], std::as_writable_bytes(std::span(seen)));
    for (std::uint32_t i = 0; i < count; ++i)
      ASSERT_EQ(seen[i], 2 * (c * count + i)) << "chunk " << c << ", element " << i;
  }
  const MemoryStats stats = manager.stats();
  EXPECT_GT(stats.spaces[manager.disk().index].used, 0u);
  for (const auto& [spaces, bytes] : stats.bytes_moved) {
    EXPECT_TRUE(spaces.first == manager.disk().index || spaces.second == manager.disk().index)
        << bytes << " B moved from space " << spaces.first << " to " << spaces.second;
  }
}

}  // namespace
}  // namespace strata::memory

namespace strata::memory {
namespace {

TEST(MemoryOptions, SpillDirectoryFollowsTmpdirUnlessConfigured) {
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("strata-tmpdir-" + std::to_string(::getpid()));
  std::filesystem::create_directories(root);
  ::setenv("TMPDIR", root.c_str(), 1);
  MemoryOptions options;
  options.host_capacity = 4096;
  {
    MemoryManager manager(options, {});
    EXPECT_NE(manager.stats().spaces[manager.disk().index].name.find(root.string()),
              std::string::npos);
  }
  ::unsetenv("TMPDIR");
  options.spill_root = root.string();
  {
    MemoryManager manager(options, {});
    EXPECT_NE(manager.stats().spaces[manager.disk().index].name.find(root.string()),
              std::string::npos);
  }
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace strata::memory
