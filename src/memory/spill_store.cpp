#include "strata/memory/spill_store.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
// XXH3_state_t's definition, so hashing state lives on the stack.
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>
#if (defined(__x86_64__) || defined(__i386__)) && __has_include(<xxh_x86dispatch.h>)
// XXH3 with the widest vector unit the CPU has (AVX2: twice the default SSE2's speed here).
#include <xxh_x86dispatch.h>
#endif

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <utility>

#include "strata/base/log.hpp"
#include "strata/base/units.hpp"

namespace strata::memory {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPrefix = "strata-spill-";
// Payloads are written in pieces this large: each is hashed, then written while it is still in
// the CPU's L2 cache, so hashing costs no extra trip through memory.
constexpr std::size_t kWritePiece = std::size_t{1} << 20;

// The fixed header in front of every spill file's payload.
struct FileHeader {
  char magic[8] = {'S', 'T', 'R', 'S', 'P', 'I', 'L', '1'};
  std::uint64_t chunk = 0;
  std::uint64_t bytes = 0;
  std::uint64_t checksum = 0;
};
static_assert(sizeof(FileHeader) == 32);
constexpr FileHeader kMagicOnly{};

// Closes a file descriptor when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  // Closes now; returns close()'s errno, or 0.
  int close() {
    if (fd_ < 0) return 0;
    const int result = ::close(std::exchange(fd_, -1));
    return result == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

std::string error_text(int error) {
  return std::system_category().message(error);
}

// The PID in a spill directory's name "strata-spill-<pid>-<n>", or 0 if the name is not one.
pid_t owner_of(std::string_view name) {
  if (!name.starts_with(kPrefix)) return 0;
  name.remove_prefix(kPrefix.size());
  const auto dash = name.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == name.size()) return 0;
  const auto digits = [](std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!digits(name.substr(0, dash)) || !digits(name.substr(dash + 1))) return 0;
  pid_t pid = 0;
  const auto [end, ec] = std::from_chars(name.data(), name.data() + dash, pid);
  return ec == std::errc{} && end == name.data() + dash ? pid : 0;
}

// True unless a live store holds the directory's flock(): one in another PID namespace
// sharing the root (kill() cannot see its process), or one of this process. Where the file
// system does not support flock() (some NFS setups), kill() alone decides.
bool unlocked(const fs::path& dir) {
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
  if (fd.get() < 0) return false;
  return ::flock(fd.get(), LOCK_EX | LOCK_NB) == 0 || errno != EWOULDBLOCK;
}

// True when the process that created a spill directory no longer runs: its PID is gone, or is
// this process's although no store of this process owns the directory (an earlier process had
// the same PID, as is common in containers).
bool stale(pid_t pid, const fs::path& dir) {
  if (pid != ::getpid() && (::kill(pid, 0) == 0 || errno != ESRCH)) return false;
  return unlocked(dir);
}

// Removes the spill directories under `root` whose owning process no longer runs.
void remove_stale_directories(const fs::path& root) {
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const pid_t pid = owner_of(it->path().filename().native());
    if (pid <= 0) continue;
    std::error_code type_ec;
    if (!it->is_directory(type_ec) || it->is_symlink(type_ec)) continue;
    if (!stale(pid, it->path())) continue;
    std::error_code remove_ec;
    fs::remove_all(it->path(), remove_ec);
    if (remove_ec) {
      log().warn("cannot remove the stale spill directory '{}' of process {}: {}",
                 it->path().native(), pid, remove_ec.message());
    } else {
      log().info("removed the stale spill directory '{}' of process {}", it->path().native(), pid);
    }
  }
}

// Creates root/strata-spill-<pid>-<n> with the first free n; returns its path.
std::string create_directory(const fs::path& root) {
  static std::atomic<std::uint64_t> next{0};
  for (;;) {
    const fs::path dir = root / fmt::format("{}{}-{}", kPrefix, ::getpid(), next++);
    if (::mkdir(dir.c_str(), 0700) == 0) return dir.native();
    if (errno != EEXIST) {
      throw SpillError(fmt::format("cannot create the spill directory '{}': {}", dir.native(),
                                   error_text(errno)));
    }
  }
}

// What a failed write() means for the user.
std::string_view write_failure(int error) {
  switch (error) {
    case ENOSPC:
      return "disk full";
    case EDQUOT:
      return "disk quota exceeded";
    case EFBIG:
      return "file size limit reached";
    default:
      return "write failed";
  }
}

// Writes all of `data` at the file's current offset, retrying short writes and EINTR; returns
// 0 or the errno of the failure, with `done` the bytes written.
int write_all(int fd, const std::byte* data, std::size_t size, std::size_t& done) {
  done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

// Fills the buffers of `iov` (at most two) from `offset` on, retrying short reads and EINTR;
// returns 0, the errno of the failure, or -1 at an early end of file.
int read_all(int fd, std::array<iovec, 2> iov, std::uint64_t offset) {
  std::size_t first = 0;  // iov[first] is the next buffer to fill
  while (first < iov.size() && iov[first].iov_len == 0)
    ++first;
  while (first < iov.size()) {
    const ssize_t n = ::preadv(fd, iov.data() + first, static_cast<int>(iov.size() - first),
                               static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return -1;
    offset += static_cast<std::uint64_t>(n);
    for (auto left = static_cast<std::size_t>(n); left > 0;) {
      const std::size_t step = std::min(left, iov[first].iov_len);
      iov[first].iov_base = static_cast<std::byte*>(iov[first].iov_base) + step;
      iov[first].iov_len -= step;
      left -= step;
      while (first < iov.size() && iov[first].iov_len == 0)
        ++first;
    }
  }
  return 0;
}

// Writes a spill file at `temp`: header, then the payload hashed piece by piece, then the
// header again with the checksum. Returns the checksum; throws SpillError naming `path` (the
// file it stands in for) and removes `temp` on failure.
std::uint64_t write_file(const std::string& temp, const std::string& path, std::uint64_t chunk,
                         std::span<const std::byte> data) {
  Fd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (fd.get() < 0) {
    throw SpillError(
        fmt::format("spill to '{}': cannot create '{}': {}", path, temp, error_text(errno)));
  }
  std::size_t written = 0;
  const auto fail = [&](int error) {
    fd.close();
    ::unlink(temp.c_str());
    return SpillError(fmt::format("spill to '{}': {} ({}) after writing {} of {} bytes", path,
                                  write_failure(error), error_text(error), written, data.size()));
  };

  FileHeader header;
  header.chunk = chunk;
  header.bytes = data.size();
  std::size_t done = 0;
  if (int error =
          write_all(fd.get(), reinterpret_cast<const std::byte*>(&header), sizeof header, done)) {
    throw fail(error);
  }
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  while (written < data.size()) {
    const std::size_t piece = std::min(kWritePiece, data.size() - written);
    XXH3_64bits_update(&state, data.data() + written, piece);
    const int error = write_all(fd.get(), data.data() + written, piece, done);
    written += done;
    if (error) throw fail(error);
  }
  header.checksum = XXH3_64bits_digest(&state);
  for (;;) {
    const ssize_t n = ::pwrite(fd.get(), &header, sizeof header, 0);
    if (n == static_cast<ssize_t>(sizeof header)) break;
    if (n < 0 && errno == EINTR) continue;
    throw fail(n < 0 ? errno : EIO);
  }
  // close() can report a failed delayed write (e.g. on network file systems).
  if (int error = fd.close()) throw fail(error);
  return header.checksum;
}

}  // namespace

SpillStore::SpillStore(const std::string& root, std::uint64_t capacity) : capacity_(capacity) {
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) {
    throw SpillError(
        fmt::format("cannot create the spill root directory '{}': {}", root, ec.message()));
  }
  // One store of this process at a time between the scan and locking its new directory, so
  // the scan never takes another's directory, created but not yet locked, for a stale one.
  static std::mutex constructing;
  std::lock_guard guard(constructing);
  remove_stale_directories(root);
  directory_ = create_directory(root);
  lock_fd_ = ::open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock_fd_ < 0) {
    const int error = errno;
    fs::remove_all(directory_, ec);
    throw SpillError(
        fmt::format("cannot open the spill directory '{}': {}", directory_, error_text(error)));
  }
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    log().debug(
        "spill directory '{}' not locked ({}): stale-directory removal relies on its "
        "PID alone",
        directory_, error_text(errno));
  }
}

SpillStore::~SpillStore() {
  std::error_code ec;
  fs::remove_all(directory_, ec);
  if (ec) log().warn("cannot remove the spill directory '{}': {}", directory_, ec.message());
  ::close(lock_fd_);
}

std::string SpillStore::path_of(std::uint64_t chunk) const {
  return fmt::format("{}/chunk-{}.spill", directory_, chunk);
}

void SpillStore::reserve(std::uint64_t chunk, std::uint64_t bytes) {
  // The copy being replaced leaves once the new one is complete, so it does not count.
  const auto old = entries_.find(chunk);
  const std::uint64_t replaced = old == entries_.end() ? 0 : old->second.bytes;
  const std::uint64_t used = stats_.bytes_on_disk - replaced + reserved_;
  if (capacity_ != 0 && (bytes > capacity_ || used > capacity_ - bytes)) {
    throw SpillError(fmt::format(
        "cannot spill chunk {} ({}) to '{}': the spill capacity is {}, of which {} is in use "
        "({} files{}){}",
        chunk, format_bytes(bytes), directory_, format_bytes(capacity_),
        format_bytes(stats_.bytes_on_disk + reserved_), stats_.files,
        reserved_ != 0 ? fmt::format(", {} being written", format_bytes(reserved_)) : "",
        replaced != 0
            ? fmt::format(", {} of them by chunk {}'s older copy", format_bytes(replaced), chunk)
            : ""));
  }
  reserved_ += bytes;
}

void SpillStore::write(std::uint64_t chunk, std::span<const std::byte> data) {
  const std::string path = path_of(chunk);
  std::string temp;
  {
    std::lock_guard guard(lock_);
    reserve(chunk, data.size());
    temp = fmt::format("{}/chunk-{}.tmp{}", directory_, chunk, next_temp_++);
  }
  std::uint64_t checksum = 0;
  try {
    checksum = write_file(temp, path, chunk, data);
    if (::rename(temp.c_str(), path.c_str()) != 0) {
      const int error = errno;
      ::unlink(temp.c_str());
      throw SpillError(fmt::format("spill to '{}': cannot rename '{}' to it: {}", path, temp,
                                   error_text(error)));
    }
  } catch (...) {
    std::lock_guard guard(lock_);
    reserved_ -= data.size();
    throw;
  }
  std::lock_guard guard(lock_);
  reserved_ -= data.size();
  auto [it, added] = entries_.try_emplace(chunk);
  if (added) {
    ++stats_.files;
  } else {
    stats_.bytes_on_disk -= it->second.bytes;
  }
  it->second = Entry{data.size(), checksum};
  stats_.bytes_on_disk += data.size();
  stats_.peak_bytes_on_disk = std::max(stats_.peak_bytes_on_disk, stats_.bytes_on_disk);
  stats_.bytes_written += data.size();
  ++stats_.writes;
}

void SpillStore::read(std::uint64_t chunk, std::span<std::byte> out) const {
  const std::string path = path_of(chunk);
  Entry entry;
  {
    std::lock_guard guard(lock_);
    const auto it = entries_.find(chunk);
    if (it == entries_.end()) {
      throw SpillError(fmt::format("read of chunk {} from '{}': no spilled copy", chunk, path));
    }
    entry = it->second;
  }
  if (out.size() != entry.bytes) {
    throw SpillError(fmt::format("read of '{}': the spilled copy has {} bytes, the buffer {}", path,
                                 entry.bytes, out.size()));
  }
  const auto fail = [&](std::string_view what) {
    return SpillError(fmt::format("read of '{}': {}", path, what));
  };
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) throw fail(fmt::format("cannot open it: {}", error_text(errno)));
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) throw fail(fmt::format("fstat: {}", error_text(errno)));
  const std::uint64_t expected = sizeof(FileHeader) + entry.bytes;
  if (static_cast<std::uint64_t>(info.st_size) != expected) {
    throw fail(fmt::format("the file has {} bytes instead of {}: truncated or changed on disk",
                           info.st_size, expected));
  }
  // Sequential access doubles the kernel's readahead window; large pieces: see read_piece_bytes.
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  // The header comes with the first piece: a small first read would start the kernel's
  // readahead with a small window, which halved the throughput in trials.
  FileHeader header;
  std::size_t piece = std::min(read_piece_bytes, out.size());
  if (int error =
          read_all(fd.get(), {iovec{&header, sizeof header}, iovec{out.data(), piece}}, 0)) {
    throw fail(error < 0 ? "the file ends early: it was truncated" : error_text(error));
  }
  if (std::memcmp(header.magic, kMagicOnly.magic, sizeof header.magic) != 0 ||
      header.chunk != chunk || header.bytes != entry.bytes || header.checksum != entry.checksum) {
    throw fail("its header does not match the copy written: the file changed on disk");
  }
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  for (std::size_t done = 0;;) {
    XXH3_64bits_update(&state, out.data() + done, piece);
    done += piece;
    if (done == out.size()) break;
    piece = std::min(read_piece_bytes, out.size() - done);
    if (int error =
            read_all(fd.get(), {iovec{out.data() + done, piece}, iovec{}}, sizeof header + done)) {
      throw fail(error < 0 ? "the file ends early: it was truncated" : error_text(error));
    }
  }
  if (XXH3_64bits_digest(&state) != entry.checksum) {
    throw fail("checksum mismatch: the file changed on disk");
  }
  std::lock_guard guard(lock_);
  stats_.bytes_read += out.size();
  ++stats_.reads;
}

void SpillStore::remove(std::uint64_t chunk) {
  {
    std::lock_guard guard(lock_);
    const auto it = entries_.find(chunk);
    if (it == entries_.end()) return;
    stats_.bytes_on_disk -= it->second.bytes;
    --stats_.files;
    entries_.erase(it);
  }
  const std::string path = path_of(chunk);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    log().warn("cannot remove the spill file '{}': {}", path, error_text(errno));
  }
}

bool SpillStore::contains(std::uint64_t chunk) const {
  std::lock_guard guard(lock_);
  return entries_.contains(chunk);
}

SpillStats SpillStore::stats() const {
  std::lock_guard guard(lock_);
  return stats_;
}

}  // namespace strata::memory
