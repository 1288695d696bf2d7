#pragma once
// A box store in HDF5 files, one per stored box, in a directory: dataset "/data" with the key and
// the box as attributes, readable by any HDF5 tool (h5py, h5dump). A file appears under its final
// name only once complete (written beside it, then renamed), so a process killed during a write
// leaves every box complete or absent. Writes are staged by default: write() copies the box and
// returns, the file is written on an I/O thread, at most `queue_bytes` wait (write() then blocks:
// back-pressure), and reads of a box still queued come from its copy.

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "strata/memory/io_threads.hpp"
#include "strata/memory/memory_manager.hpp"
#include "strata/runtime/runtime.hpp"
#include "strata/store/box_store.hpp"

namespace strata::store::detail {
class BoxIndex;
}

namespace strata::store {

struct Hdf5StoreOptions {
  bool staged = true;  // false: write() returns once the file is complete
  std::uint64_t queue_bytes = std::uint64_t{256} << 20;
  // Each file and its directory synced to the disk before the write counts as done: boxes
  // survive a power loss too, not only a killed process.
  bool durable = false;
  // Where staged writes run; empty: one I/O thread of the store's own.
  memory::IoExecutor io;
};

// Staged writes on the runtime's I/O executor.
memory::IoExecutor io_of(runtime::Runtime& runtime);

class Hdf5BoxStore : public BoxStore {
 public:
  // Opens the store in `directory` (made if missing) with the boxes stored there before: complete
  // files only (what a killed write left half-done is removed). Throws naming a file whose name
  // the store did not make.
  explicit Hdf5BoxStore(std::string directory, Hdf5StoreOptions options = {});
  // Waits for the staged writes (a failure then is logged: call flush() to see it).
  ~Hdf5BoxStore() override;
  Hdf5BoxStore(const Hdf5BoxStore&) = delete;
  Hdf5BoxStore& operator=(const Hdf5BoxStore&) = delete;

  // Throws the error of an earlier staged write that failed, if there is one.
  void write(const DataKey& key, const Region& box, device::ElementType type,
             std::span<const std::byte> values) override;
  void read(const DataKey& key, const Region& box, device::ElementType type,
            std::span<std::byte> out) override;
  std::vector<StoredBox> boxes() const override;
  void flush() override;

  // The file that holds (or will hold, once its staged write is done) a stored box.
  std::string file_of(const DataKey& key, const Region& box) const;
  const std::string& directory() const { return directory_; }

 private:
  struct Piece;
  // Writes a piece's file (beside its final name, then renamed); the dataset's offset.
  static std::uint64_t write_file(const Piece& piece, std::span<const std::byte> values,
                                  bool durable);
  // Adds a piece to the index and the pieces, and lets go of the pieces it covers; with lock_.
  void add(std::shared_ptr<Piece> piece);
  void write_staged(const std::shared_ptr<Piece>& piece);
  // A staging buffer kept from an earlier write, with room for `bytes` (empty if none): fresh
  // pages cost a page fault each. With lock_.
  std::vector<std::byte> spare_buffer(std::uint64_t bytes);
  // Keeps a written box's staging buffer for later writes, up to queue_bytes; with lock_.
  void keep_spare(std::shared_ptr<std::vector<std::byte>> staged);
  void load();  // the files already in the directory
  std::string path_of(const DataKey& key, const Region& box, device::ElementType type,
                      std::uint64_t sequence) const;

  const std::string directory_;
  const Hdf5StoreOptions options_;
  mutable std::mutex lock_;
  std::condition_variable changed_;  // a staged write ended
  std::unique_ptr<detail::BoxIndex> index_;
  std::map<std::uint64_t, std::shared_ptr<Piece>> pieces_;  // by sequence number (index id)
  std::uint64_t next_sequence_ = 1;
  std::uint64_t queued_bytes_ = 0;
  std::uint64_t queued_ = 0;
  std::vector<std::vector<std::byte>> spares_;  // staging buffers of finished writes
  std::uint64_t spare_bytes_ = 0;
  std::string failure_;                     // the first staged write that failed
  std::unique_ptr<memory::IoThreads> own_;  // when no executor was given
};

}  // namespace strata::store
