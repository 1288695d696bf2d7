#pragma once
// The disk tier of the memory hierarchy: chunk contents spilled to files of this process's spill
// directory and read back, every read verified by a checksum.

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>

#include "strata/base/error.hpp"

namespace strata::memory {

// Spilling failed: the disk is full, the capacity is exhausted, a file cannot be written or
// read, or a file's contents changed on disk. Names the file and what happened.
class SpillError : public Error {
 public:
  using Error::Error;
};

// Counters of a SpillStore.
struct SpillStats {
  std::uint64_t files = 0;               // spill files present now
  std::uint64_t bytes_on_disk = 0;       // their payload bytes
  std::uint64_t peak_bytes_on_disk = 0;  // the most bytes_on_disk has been
  std::uint64_t bytes_written = 0;       // in total since start
  std::uint64_t bytes_read = 0;
  std::uint64_t writes = 0;
  std::uint64_t reads = 0;
};

// Spilled chunk copies, one file per chunk in a directory owned by this process.
// Thread-safe: calls for different chunks run their I/O concurrently; calls for the same chunk
// must not overlap (the memory manager's chunk states serialize them).
class SpillStore {
 public:
  // read() fetches a payload in pieces this large, hashing each as it arrives while the kernel's
  // readahead fetches the next. The call size matters when the disk is busy (as with spill
  // writes going on): read right after 3 GiB of writes, 1 MiB pieces reached about half the rate
  // of one read() per file, 8 MiB pieces 82-95 % of it; 16 and 64 MiB pieces did no better.
  static constexpr std::size_t read_piece_bytes = std::size_t{8} << 20;

  // Creates a fresh directory for this process under `root` (root/strata-spill-<pid>-<n>,
  // creating `root` if needed); first removes such directories left by processes that no
  // longer run. `capacity` bounds the payload bytes on disk (0: only the file system's free
  // space bounds it).
  SpillStore(const std::string& root, std::uint64_t capacity);
  // Removes every spill file and the directory.
  ~SpillStore();
  SpillStore(const SpillStore&) = delete;
  SpillStore& operator=(const SpillStore&) = delete;

  // Writes `data` as the spilled copy of chunk `chunk` (replacing an older one only once the
  // new file is complete). Throws SpillError, leaving any older copy intact, when it fails.
  void write(std::uint64_t chunk, std::span<const std::byte> data);
  // Reads the spilled copy of `chunk` into `out` (exactly its size); throws SpillError when it
  // is missing, has another size, or fails its checksum.
  void read(std::uint64_t chunk, std::span<std::byte> out) const;
  // Forgets the spilled copy of `chunk` and removes its file (no error if there is none).
  void remove(std::uint64_t chunk);
  bool contains(std::uint64_t chunk) const;
  // The file that holds `chunk` (for messages and tests).
  std::string path_of(std::uint64_t chunk) const;

  const std::string& directory() const { return directory_; }
  std::uint64_t capacity() const { return capacity_; }
  SpillStats stats() const;

 private:
  // What is known of a chunk's file: its payload size and XXH3-64 checksum.
  struct Entry {
    std::uint64_t bytes = 0;
    std::uint64_t checksum = 0;
  };

  // Reserves room for a `bytes` write of `chunk` (replacing `chunk`'s copy, if any) under the
  // capacity; throws SpillError naming the request, the capacity and the use.
  void reserve(std::uint64_t chunk, std::uint64_t bytes);

  std::string directory_;
  std::uint64_t capacity_;
  int lock_fd_ = -1;  // the directory, flock()ed while this store lives
  mutable std::mutex lock_;
  mutable SpillStats stats_;                // guarded by lock_
  std::uint64_t reserved_ = 0;              // bytes of writes in progress, guarded by lock_
  std::uint64_t next_temp_ = 0;             // temp file numbers, guarded by lock_
  std::map<std::uint64_t, Entry> entries_;  // chunk -> its file, guarded by lock_
};

}  // namespace strata::memory
