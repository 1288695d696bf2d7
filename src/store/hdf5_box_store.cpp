#include "strata/store/hdf5_box_store.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "box_index.hpp"
#include "piece_paths.hpp"
#include "strata/base/log.hpp"
#include "strata/store/hdf5_file.hpp"

namespace strata::store {

namespace fs = std::filesystem;

// One stored box: its file, and its values while the write is queued.
struct Hdf5BoxStore::Piece {
  DataKey key;
  Region box;
  device::ElementType type = device::ElementType::u8;
  std::uint64_t sequence = 0;
  std::string path;
  std::shared_ptr<std::vector<std::byte>> staged;  // until the file is complete
  std::uint64_t data_offset = 0;                   // 0: not looked up yet
  bool written = false;
  bool superseded = false;  // covered by a later write: the file goes with the last user
  std::string error;        // its staged write failed
  // The boxes it covers, kept (files and all) until its own file is complete: a process killed
  // before then still has them.
  std::vector<std::shared_ptr<Piece>> covers;

  std::vector<std::uint64_t> extents() const {
    const std::array<std::uint64_t, 3> extent = box.extent();
    return {extent.begin(), extent.begin() + box.dims};
  }
  ~Piece() {
    if (superseded && written) std::remove(path.c_str());
  }
};

namespace {

// fsync of a file or directory; false on an error (errno says which).
bool sync_path(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  return synced;
}

}  // namespace

memory::IoExecutor io_of(runtime::Runtime& runtime) {
  return [&runtime](const char* what, std::function<void()> job) {
    runtime.post(runtime.io(), what, std::move(job));
  };
}

Hdf5BoxStore::Hdf5BoxStore(std::string directory, Hdf5StoreOptions options)
    : directory_(std::move(directory)),
      options_(std::move(options)),
      index_(std::make_unique<detail::BoxIndex>()) {
  std::error_code error;
  fs::create_directories(directory_, error);
  if (error) {
    throw Error(
        fmt::format("box store {}: cannot make the directory: {}", directory_, error.message()));
  }
  load();
  if (options_.staged && !options_.io) own_ = std::make_unique<memory::IoThreads>(1);
}

Hdf5BoxStore::~Hdf5BoxStore() {
  std::unique_lock guard(lock_);
  changed_.wait(guard, [&] { return queued_ == 0; });
  if (!failure_.empty())
    log().warn("{} (the store closed without a flush() to report it)", failure_);
}

void Hdf5BoxStore::load() {
  std::vector<detail::PiecePath> found;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(directory_)) {
    if (!entry.is_regular_file()) continue;
    const std::string relative = fs::relative(entry.path(), directory_).generic_string();
    if (entry.path().extension() == ".tmp") {
      fs::remove(entry.path());  // a write that did not finish
      continue;
    }
    std::optional<detail::PiecePath> piece = detail::parse_relative_path(relative);
    if (!piece) {
      throw Error(fmt::format(
          "box store {}: the file {} is not one the store wrote (<name>/<type>/t<timestamp>."
          "v<version>/<sequence>.<element type>.<lo>-<hi>[_<lo>-<hi>...].h5)",
          directory_, relative));
    }
    found.push_back(std::move(*piece));
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.sequence < b.sequence; });
  for (const detail::PiecePath& path : found) {
    auto piece = std::make_shared<Piece>();
    piece->key = path.key;
    piece->box = path.box;
    piece->type = path.type;
    piece->sequence = path.sequence;
    piece->path = directory_ + "/" + detail::relative_path_of(path);
    piece->written = true;
    next_sequence_ = std::max(next_sequence_, path.sequence + 1);
    add(std::move(piece));
  }
}

std::string Hdf5BoxStore::path_of(const DataKey& key, const Region& box, device::ElementType type,
                                  std::uint64_t sequence) const {
  return directory_ + "/" + detail::relative_path_of(detail::PiecePath{key, box, type, sequence});
}

void Hdf5BoxStore::add(std::shared_ptr<Piece> piece) {
  for (const std::uint64_t covered :
       index_->add(piece->key, piece->box, piece->type, piece->sequence)) {
    const auto old = pieces_.find(covered);
    old->second->superseded = true;
    if (piece->staged) {  // the new file is not there yet: it keeps the old ones until it is
      piece->covers.push_back(old->second);
      auto& theirs = old->second->covers;
      piece->covers.insert(piece->covers.end(), theirs.begin(), theirs.end());
      theirs.clear();
    }
    pieces_.erase(old);
  }
  pieces_.emplace(piece->sequence, std::move(piece));
}

std::uint64_t Hdf5BoxStore::write_file(const Piece& piece, std::span<const std::byte> values,
                                       bool durable) {
  const fs::path final_path(piece.path);
  std::error_code error;
  fs::create_directories(final_path.parent_path(), error);
  if (error) {
    throw Error(fmt::format("write of {} box {}: cannot make {}: {}", piece.key.describe(),
                            piece.box.describe(), final_path.parent_path().string(),
                            error.message()));
  }
  const std::string temporary = piece.path + ".tmp";
  const std::vector<std::uint64_t> extents = piece.extents();
  std::vector<std::int64_t> lo, hi;
  for (std::uint32_t d = 0; d < piece.box.dims; ++d) {
    lo.push_back(static_cast<std::int64_t>(piece.box.lo[d]));
    hi.push_back(static_cast<std::int64_t>(piece.box.hi[d]));
  }
  std::uint64_t offset = 0;
  try {
    offset = create_hdf5_dataset(temporary, "/data", piece.type, extents,
                                 {{"name", piece.key.name, {}},
                                  {"type", piece.key.type, {}},
                                  {"timestamp", {}, {piece.key.timestamp}},
                                  {"version", {}, {piece.key.version}},
                                  {"box_lo", {}, lo},
                                  {"box_hi", {}, hi}});
    Region whole;
    whole.dims = piece.box.dims;
    whole.hi = piece.box.extent();
    write_hdf5_box_at(temporary, "/data", offset, extents, whole, piece.type, values);
  } catch (...) {
    std::remove(temporary.c_str());  // nothing half-written stays behind
    throw;
  }
  const auto failed = [&](const std::string& what) {
    const std::string why = std::strerror(errno);
    std::remove(temporary.c_str());
    throw Error(fmt::format("write of {} box {}: {} {}: {}", piece.key.describe(),
                            piece.box.describe(), what, temporary, why));
  };
  if (durable && !sync_path(temporary)) failed("cannot sync");
  if (std::rename(temporary.c_str(), piece.path.c_str()) != 0) failed("cannot rename");
  if (durable && !sync_path(final_path.parent_path().string()))
    failed("cannot sync the directory of");
  return offset;
}

void Hdf5BoxStore::write(const DataKey& key, const Region& box, device::ElementType type,
                         std::span<const std::byte> values) {
  auto piece = std::make_shared<Piece>();
  piece->key = key;
  piece->box = box;
  piece->type = type;
  {
    const std::lock_guard guard(lock_);
    if (!failure_.empty()) throw Error(failure_);
    index_->check_write(key, box, type, values.size());
    piece->sequence = next_sequence_++;
  }
  piece->path = path_of(key, box, type, piece->sequence);
  if (!options_.staged) {
    piece->data_offset = write_file(*piece, values, options_.durable);
    piece->written = true;
    const std::lock_guard guard(lock_);
    add(std::move(piece));
    return;
  }
  std::vector<std::byte> buffer;
  {
    std::unique_lock guard(lock_);
    // Back-pressure: at most queue_bytes wait, except one box larger than that alone. The room
    // is taken before the copy, so that the copy goes into the buffer of a finished write.
    changed_.wait(guard, [&] {
      return queued_ == 0 || queued_bytes_ + values.size() <= options_.queue_bytes;
    });
    queued_bytes_ += values.size();
    ++queued_;
    buffer = spare_buffer(values.size());
  }
  buffer.assign(values.begin(), values.end());
  piece->staged = std::make_shared<std::vector<std::byte>>(std::move(buffer));
  {
    const std::lock_guard guard(lock_);
    try {
      add(piece);
    } catch (...) {  // another write of the key changed its type meanwhile
      queued_bytes_ -= values.size();
      --queued_;
      changed_.notify_all();
      throw;
    }
  }
  write_staged(piece);
}

std::vector<std::byte> Hdf5BoxStore::spare_buffer(std::uint64_t bytes) {
  const auto fits = std::find_if(spares_.begin(), spares_.end(),
                                 [&](const auto& spare) { return spare.capacity() >= bytes; });
  if (fits == spares_.end()) return {};
  std::vector<std::byte> buffer = std::move(*fits);
  spares_.erase(fits);
  spare_bytes_ -= buffer.capacity();
  return buffer;
}

void Hdf5BoxStore::keep_spare(std::shared_ptr<std::vector<std::byte>> staged) {
  // Only when no read still copies from it (reads take it under the lock, as this runs).
  if (staged.use_count() != 1 || spare_bytes_ + staged->capacity() > options_.queue_bytes) return;
  spare_bytes_ += staged->capacity();
  spares_.push_back(std::move(*staged));
}

void Hdf5BoxStore::write_staged(const std::shared_ptr<Piece>& piece) {
  auto job = [this, piece] {
    std::string error;
    std::uint64_t offset = 0;
    bool wanted = true;
    {
      const std::lock_guard guard(lock_);
      wanted = !piece->superseded;
    }
    if (wanted) {
      try {
        offset = write_file(*piece, *piece->staged, options_.durable);
      } catch (const std::exception& failed) {
        error = failed.what();
      }
    }
    std::vector<std::shared_ptr<Piece>> covered;  // their files go after the lock, if last
    const std::lock_guard guard(lock_);
    queued_bytes_ -= piece->staged->size();
    --queued_;
    if (error.empty()) {
      piece->written = wanted;
      piece->data_offset = offset;
      keep_spare(std::move(piece->staged));
      covered.swap(piece->covers);
    } else {
      piece->error = error;  // reads of it throw; its copy stays for them to name
      if (failure_.empty()) failure_ = error;
    }
    changed_.notify_all();
  };
  if (own_) {
    own_->run(std::move(job));
  } else {
    options_.io("box store write", std::move(job));
  }
}

void Hdf5BoxStore::read(const DataKey& key, const Region& box, device::ElementType type,
                        std::span<std::byte> out) {
  std::vector<std::pair<std::shared_ptr<Piece>, Region>> parts;
  {
    const std::lock_guard guard(lock_);
    for (const detail::BoxIndex::Piece& part : index_->pieces_for(key, box, type, out.size()))
      parts.emplace_back(pieces_.at(part.id), part.box);
  }
  std::vector<std::byte> scratch;
  for (const auto& [piece, part] : parts) {
    std::shared_ptr<const std::vector<std::byte>> staged;
    std::uint64_t offset = 0;
    {
      const std::lock_guard guard(lock_);
      if (!piece->error.empty()) {
        throw Error(fmt::format("read of {} box {}: its staged write failed: {}", key.describe(),
                                piece->box.describe(), piece->error));
      }
      staged = piece->staged;
      offset = piece->data_offset;
    }
    if (staged) {
      detail::copy_part(piece->box, *staged, box, out, part, type);
      continue;
    }
    if (offset == 0) {
      offset = hdf5_dataset_offset(piece->path, "/data");
      const std::lock_guard guard(lock_);
      piece->data_offset = offset;
    }
    // The part relative to the stored box; read straight into `out` when it is all of it.
    Region within;
    within.dims = part.dims;
    for (std::uint32_t d = 0; d < part.dims; ++d) {
      within.lo[d] = part.lo[d] - piece->box.lo[d];
      within.hi[d] = part.hi[d] - piece->box.lo[d];
    }
    const std::uint64_t bytes = part.elements() * device::size_of(type);
    if (part == box) {
      read_hdf5_box_at(piece->path, "/data", offset, piece->extents(), within, type, out);
      continue;
    }
    scratch.resize(bytes);
    read_hdf5_box_at(piece->path, "/data", offset, piece->extents(), within, type, scratch);
    detail::copy_part(part, scratch, box, out, part, type);
  }
}

std::vector<StoredBox> Hdf5BoxStore::boxes() const {
  const std::lock_guard guard(lock_);
  return index_->boxes();
}

void Hdf5BoxStore::flush() {
  std::unique_lock guard(lock_);
  changed_.wait(guard, [&] { return queued_ == 0; });
  if (!failure_.empty()) throw Error(failure_);
}

std::string Hdf5BoxStore::file_of(const DataKey& key, const Region& box) const {
  const std::lock_guard guard(lock_);
  for (const auto& [sequence, piece] : pieces_)
    if (piece->key == key && piece->box == box) return piece->path;
  throw BoxNotStored(
      fmt::format("{}: no box {} of {} is stored", directory_, box.describe(), key.describe()));
}

}  // namespace strata::store
