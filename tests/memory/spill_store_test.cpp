// The disk tier: spilled chunks read back intact, capacity, corruption and a full disk detected
// with clear errors, stale directories of dead processes removed, concurrent use.
#include "strata/memory/spill_store.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "strata/base/units.hpp"

namespace strata::memory {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<std::byte>;

Bytes random_bytes(std::size_t size, std::mt19937_64& rng) {
  Bytes bytes(size);
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    const std::uint64_t word = rng();
    std::memcpy(bytes.data() + i, &word, 8);
  }
  for (; i < size; ++i)
    bytes[i] = static_cast<std::byte>(rng());
  return bytes;
}

Bytes read_back(const SpillStore& store, std::uint64_t chunk, std::size_t size) {
  Bytes out(size);
  store.read(chunk, out);
  return out;
}

// A fresh root directory for one test's spill directories, removed afterwards.
class SpillStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/strata-spill-test-XXXXXX";
    ASSERT_NE(::mkdtemp(name), nullptr);
    root_ = name;
  }
  void TearDown() override { fs::remove_all(root_); }

  // Names of the files in `dir`.
  static std::vector<std::string> files_in(const std::string& dir) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir))
      names.push_back(entry.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }

  std::string root_;
  std::mt19937_64 rng_{42};
};

TEST_F(SpillStoreTest, RandomChunksRoundTripAgainstAReferenceMap) {
  SpillStore store(root_, 0);
  std::map<std::uint64_t, Bytes> reference;
  const std::vector<std::size_t> sizes = {0,      1, 7, 4096, 1 << 20, (1 << 20) + 3, 3 * MiB + 17,
                                          5 * MiB};
  for (int step = 0; step < 120; ++step) {
    const std::uint64_t chunk = rng_() % 24;
    const int action = static_cast<int>(rng_() % 10);
    if (action < 5) {
      const std::size_t size = step % 3 == 0 ? sizes[rng_() % sizes.size()] : rng_() % 70000;
      Bytes data = random_bytes(size, rng_);
      store.write(chunk, data);  // a new chunk or an overwrite
      reference[chunk] = std::move(data);
    } else if (action < 8) {
      if (!reference.contains(chunk)) {
        EXPECT_THROW(read_back(store, chunk, 0), SpillError);
        continue;
      }
      EXPECT_EQ(read_back(store, chunk, reference[chunk].size()), reference[chunk]);
    } else {
      store.remove(chunk);
      reference.erase(chunk);
      EXPECT_FALSE(store.contains(chunk));
      EXPECT_FALSE(fs::exists(store.path_of(chunk)));
    }
  }
  std::uint64_t bytes = 0;
  for (const auto& [chunk, data] : reference) {
    EXPECT_TRUE(store.contains(chunk));
    EXPECT_EQ(read_back(store, chunk, data.size()), data) << "chunk " << chunk;
    bytes += data.size();
  }
  const SpillStats stats = store.stats();
  EXPECT_EQ(stats.files, reference.size());
  EXPECT_EQ(stats.bytes_on_disk, bytes);
  EXPECT_EQ(files_in(store.directory()).size(), reference.size());  // no temp files remain
}

TEST_F(SpillStoreTest, OverwriteReplacesAndRemoveForgets) {
  SpillStore store(root_, 0);
  const Bytes first = random_bytes(1000, rng_);
  const Bytes second = random_bytes(3000, rng_);
  store.write(5, first);
  store.write(5, second);
  EXPECT_EQ(read_back(store, 5, second.size()), second);
  EXPECT_EQ(store.stats().files, 1u);
  EXPECT_EQ(store.stats().bytes_on_disk, 3000u);
  EXPECT_EQ(store.stats().writes, 2u);
  EXPECT_EQ(store.stats().bytes_written, 4000u);

  store.remove(5);
  store.remove(5);  // no error
  EXPECT_FALSE(store.contains(5));
  EXPECT_EQ(store.stats().files, 0u);
  EXPECT_EQ(store.stats().bytes_on_disk, 0u);
  EXPECT_TRUE(files_in(store.directory()).empty());
  try {
    read_back(store, 5, 3000);
    FAIL() << "read of a removed chunk succeeded";
  } catch (const SpillError& e) {
    EXPECT_NE(std::string(e.what()).find("no spilled copy"), std::string::npos) << e.what();
  }
}

TEST_F(SpillStoreTest, ReadIntoABufferOfAnotherSizeFails) {
  SpillStore store(root_, 0);
  store.write(1, random_bytes(100, rng_));
  EXPECT_THROW(read_back(store, 1, 99), SpillError);
  EXPECT_THROW(read_back(store, 1, 101), SpillError);
}

TEST_F(SpillStoreTest, CapacityExceededNamesRequestCapacityAndUse) {
  SpillStore store(root_, 4 * MiB);
  store.write(1, Bytes(3 * MiB));
  try {
    store.write(2, Bytes(2 * MiB));
    FAIL() << "write over the capacity succeeded";
  } catch (const SpillError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("chunk 2 (2.00 MiB)"), std::string::npos) << message;
    EXPECT_NE(message.find("capacity is 4.00 MiB"), std::string::npos) << message;
    EXPECT_NE(message.find("3.00 MiB is in use (1 files)"), std::string::npos) << message;
  }
  EXPECT_FALSE(store.contains(2));
  store.write(1, Bytes(4 * MiB));  // an overwrite may use the room of the copy it replaces
  store.remove(1);
  store.write(2, Bytes(2 * MiB));
  EXPECT_EQ(store.stats().bytes_on_disk, 2 * MiB);
}

TEST_F(SpillStoreTest, ByteFlippedInTheFileIsDetected) {
  SpillStore store(root_, 0);
  const Bytes data = random_bytes(MiB, rng_);
  store.write(3, data);
  {
    std::fstream file(store.path_of(3), std::ios::in | std::ios::out | std::ios::binary);
    file.seekg(-1000, std::ios::end);
    char c = 0;
    file.read(&c, 1);
    file.seekp(-1000, std::ios::end);
    c = static_cast<char>(c ^ 0x10);
    file.write(&c, 1);
  }
  try {
    read_back(store, 3, data.size());
    FAIL() << "a changed file was read back without error";
  } catch (const SpillError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(store.path_of(3)), std::string::npos) << message;
    EXPECT_NE(message.find("checksum mismatch: the file changed on disk"), std::string::npos)
        << message;
  }
}

TEST_F(SpillStoreTest, TruncatedFileIsDetected) {
  SpillStore store(root_, 0);
  const Bytes data = random_bytes(100000, rng_);
  store.write(4, data);
  fs::resize_file(store.path_of(4), fs::file_size(store.path_of(4)) - 1);
  try {
    read_back(store, 4, data.size());
    FAIL() << "a truncated file was read back without error";
  } catch (const SpillError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(store.path_of(4)), std::string::npos) << message;
    EXPECT_NE(message.find("truncated"), std::string::npos) << message;
  }
}

TEST_F(SpillStoreTest, ReplacedFileIsDetected) {
  SpillStore store(root_, 0);
  store.write(1, random_bytes(5000, rng_));
  store.write(2, random_bytes(5000, rng_));
  fs::copy_file(store.path_of(2), store.path_of(1), fs::copy_options::overwrite_existing);
  EXPECT_THROW(read_back(store, 1, 5000), SpillError);
}

// read() moves a payload in pieces of read_piece_bytes: sizes around a piece's end come back
// intact, and a byte changed in any piece (the first, read with the header; a middle one; the
// last byte) fails the checksum.
TEST_F(SpillStoreTest, PayloadsOfSeveralReadPiecesRoundTripAndEveryPieceIsVerified) {
  SpillStore store(root_, 0);
  constexpr std::size_t piece = SpillStore::read_piece_bytes;
  const Bytes data = random_bytes(2 * piece + 5, rng_);
  for (const std::size_t size : {piece - 1, piece, piece + 1, data.size()}) {
    const Bytes prefix(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(size));
    store.write(7, prefix);
    EXPECT_EQ(read_back(store, 7, size), prefix) << size << " bytes";
  }
  for (const std::size_t offset : {std::size_t{0}, piece, piece + 12345, data.size() - 1}) {
    store.write(8, data);
    const auto file_offset =
        static_cast<std::streamoff>(fs::file_size(store.path_of(8)) - data.size() + offset);
    {
      std::fstream file(store.path_of(8), std::ios::in | std::ios::out | std::ios::binary);
      char c = 0;
      file.seekg(file_offset);
      file.read(&c, 1);
      c = static_cast<char>(c ^ 0x01);
      file.seekp(file_offset);
      file.write(&c, 1);
    }
    try {
      read_back(store, 8, data.size());
      ADD_FAILURE() << "a byte changed at payload offset " << offset << " was not detected";
    } catch (const SpillError& e) {
      EXPECT_NE(std::string(e.what()).find("checksum mismatch"), std::string::npos)
          << "offset " << offset << ": " << e.what();
    }
  }
}

TEST_F(SpillStoreTest, StaleDirectoriesOfDeadProcessesAreRemovedAtStart) {
  // A PID that no longer runs: a child that has exited and been reaped.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);

  const fs::path dead = fs::path(root_) / ("strata-spill-" + std::to_string(child) + "-0");
  const fs::path live = fs::path(root_) / ("strata-spill-" + std::to_string(::getppid()) + "-3");
  const fs::path other = fs::path(root_) / "strata-spill-notapid";
  // This process's PID, but no store of it owns the directory: an earlier process had the PID.
  const fs::path reused = fs::path(root_) / ("strata-spill-" + std::to_string(::getpid()) + "-77");
  for (const fs::path& dir : {dead, live, other, reused}) {
    fs::create_directories(dir);
    std::ofstream(dir / "chunk-1.spill") << "old data";
  }
  // A dead PID's directory whose lock is held: its owner lives in another PID namespace.
  const fs::path locked = fs::path(root_) / ("strata-spill-" + std::to_string(child) + "-1");
  fs::create_directories(locked);
  const int lock_fd = ::open(locked.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(lock_fd, 0);
  ASSERT_EQ(::flock(lock_fd, LOCK_EX), 0);

  {
    SpillStore store(root_, 0);
    EXPECT_FALSE(fs::exists(dead));
    EXPECT_FALSE(fs::exists(reused));
    EXPECT_TRUE(fs::exists(live / "chunk-1.spill"));
    EXPECT_TRUE(fs::exists(other / "chunk-1.spill"));
    EXPECT_TRUE(fs::exists(locked));
    const std::string own = fs::path(store.directory()).filename();
    EXPECT_EQ(own.rfind("strata-spill-" + std::to_string(::getpid()) + "-", 0), 0u) << own;
  }
  ::close(lock_fd);
}

TEST_F(SpillStoreTest, DirectoryIsRemovedOnDestruction) {
  std::string dir;
  {
    SpillStore store(root_, 0);
    SpillStore second(root_, 0);  // two stores of one process get two directories
    dir = store.directory();
    EXPECT_NE(dir, second.directory());
    EXPECT_TRUE(fs::is_directory(dir));  // the second store's scan keeps the first's directory
    EXPECT_EQ(fs::path(dir).parent_path(), fs::path(root_));
    store.write(1, random_bytes(1000, rng_));
    store.write(2, random_bytes(0, rng_));
    EXPECT_TRUE(fs::is_directory(dir));
  }
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_TRUE(fs::is_empty(root_));
}

TEST_F(SpillStoreTest, ConcurrentWritersAndReaders) {
  SpillStore store(root_, 0);
  constexpr int kThreads = 4;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(static_cast<std::uint64_t>(t));
      std::map<std::uint64_t, Bytes> mine;  // this thread's chunks: t, t + kThreads, ...
      for (int step = 0; step < 60; ++step) {
        const std::uint64_t chunk = static_cast<std::uint64_t>(t + kThreads * (step % 5));
        try {
          if (!mine.contains(chunk) || rng() % 3 == 0) {
            Bytes data = random_bytes(rng() % (300 * 1024), rng);
            store.write(chunk, data);
            mine[chunk] = std::move(data);
          } else if (rng() % 7 == 0) {
            store.remove(chunk);
            mine.erase(chunk);
          } else if (read_back(store, chunk, mine[chunk].size()) != mine[chunk]) {
            ++failures;
          }
          (void)store.stats();
        } catch (const SpillError& e) {
          ADD_FAILURE() << e.what();
          ++failures;
        }
      }
    });
  }
  for (auto& thread : threads)
    thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(store.stats().files, files_in(store.directory()).size());
}

// Sets a soft file-size limit with SIGXFSZ ignored (so write() fails with EFBIG instead of the
// signal killing the process) and restores both afterwards. Process-wide: CTest runs each test
// in its own process, and this one starts no threads.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &old_);
    old_handler_ = ::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = old_;
    limit.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_);
    ::signal(SIGXFSZ, old_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit old_{};
  sighandler_t old_handler_;
};

TEST_F(SpillStoreTest, FullDiskGivesAClearErrorAndKeepsTheOlderCopy) {
  SpillStore store(root_, 0);
  const Bytes old_copy = random_bytes(MiB, rng_);
  store.write(7, old_copy);
  const SpillStats before = store.stats();

  const Bytes bigger = random_bytes(6 * MiB + 5, rng_);
  {
    FileSizeLimit limit(2 * MiB + 100);  // the header and about 2 MiB fit
    try {
      store.write(7, bigger);
      FAIL() << "a write past the file-size limit succeeded";
    } catch (const SpillError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("spill to '" + store.path_of(7) +
                             "': file size limit reached (File "
                             "too large) after writing "),
                std::string::npos)
          << message;
      EXPECT_NE(message.find(" of " + std::to_string(bigger.size()) + " bytes"), std::string::npos)
          << message;
    }
    // A new chunk too: nothing half-written remains.
    EXPECT_THROW(store.write(8, bigger), SpillError);
  }
  EXPECT_EQ(files_in(store.directory()), std::vector<std::string>{"chunk-7.spill"});
  EXPECT_FALSE(store.contains(8));
  EXPECT_EQ(read_back(store, 7, old_copy.size()), old_copy);
  EXPECT_EQ(store.stats().bytes_on_disk, before.bytes_on_disk);
  EXPECT_EQ(store.stats().writes, before.writes);

  store.write(8, bigger);  // works again once there is room
  EXPECT_EQ(read_back(store, 8, bigger.size()), bigger);
}

// The same on a really full file system: a 4 MiB tmpfs mounted in a child's own mount
// namespace (skipped where mounting is not allowed).
TEST_F(SpillStoreTest, FullTmpfsGivesDiskFullAndKeepsTheOlderCopy) {
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(pipe_fds[0]);
    // Exit codes: 0 passed, 2 cannot mount (skip), 1 failed with the reason on the pipe.
    const auto report = [&](int code, const std::string& text) {
      [[maybe_unused]] auto n = ::write(pipe_fds[1], text.data(), text.size());
      ::_exit(code);
    };
    if (::unshare(CLONE_NEWNS) != 0 ||
        ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount("tmpfs", root_.c_str(), "tmpfs", 0, "size=4m") != 0) {
      report(2, std::string("cannot mount a tmpfs: ") + std::strerror(errno));
    }
    std::string result;
    try {
      SpillStore store(root_, 0);
      std::mt19937_64 rng(1);
      const Bytes old_copy = random_bytes(MiB, rng);
      store.write(1, old_copy);
      try {
        store.write(1, random_bytes(5 * MiB, rng));
        report(1, "a write larger than the tmpfs succeeded");
      } catch (const SpillError& e) {
        result = e.what();
      }
      if (result.find("disk full (No space left on device) after writing ") == std::string::npos ||
          result.find(store.path_of(1)) == std::string::npos) {
        report(1, "unclear error: " + result);
      }
      if (read_back(store, 1, old_copy.size()) != old_copy) report(1, "older copy changed");
      const auto files =
          std::distance(fs::directory_iterator(store.directory()), fs::directory_iterator());
      if (files != 1) report(1, "a partial file remains");
    } catch (const std::exception& e) {
      report(1, e.what());
    }
    report(0, result);
  }
  ::close(pipe_fds[1]);
  std::string text;
  char buffer[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
    text.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 2) GTEST_SKIP() << text;
  EXPECT_EQ(WEXITSTATUS(status), 0) << text;
}

}  // namespace
}  // namespace strata::memory
