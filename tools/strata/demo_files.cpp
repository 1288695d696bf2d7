#include "demo_files.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>
#include <utility>

#include "strata/base/error.hpp"

namespace strata::cli {
namespace {

std::string system_reason(int error) {
  return std::generic_category().message(error);
}

[[noreturn]] void fail(std::string_view what, const std::filesystem::path& path, int error) {
  throw Error(fmt::format("cannot {} '{}': {}", what, path.string(), system_reason(error)));
}

// Closes a file descriptor when it goes out of scope (errors of close() are checked explicitly).
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }
  // Closes now; returns 0 or the errno of a failed close (delayed write errors surface here).
  int close() {
    const int result = ::close(std::exchange(fd_, -1));
    return result == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

}  // namespace

std::vector<std::uint8_t> read_whole_file(const std::filesystem::path& path) {
  FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (file.get() < 0) fail("open", path, errno);
  struct stat status {};
  if (::fstat(file.get(), &status) != 0) fail("read", path, errno);
  if (!S_ISREG(status.st_mode)) fail("read", path, EINVAL);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(status.st_size));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got = ::read(file.get(), bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail("read", path, errno);
    if (got == 0) {
      throw Error(fmt::format("cannot read '{}': it shrank from {} to {} bytes while being read",
                              path.string(), bytes.size(), done));
    }
    done += static_cast<std::size_t>(got);
  }
  return bytes;
}

void write_file_atomically(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
  std::filesystem::path temporary = path;
  temporary += fmt::format(".tmp.{}", ::getpid());
  int error = 0;
  {
    FileDescriptor file(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (file.get() < 0) fail("create", temporary, errno);
    std::size_t done = 0;
    while (done < bytes.size() && error == 0) {
      const ssize_t put = ::write(file.get(), bytes.data() + done, bytes.size() - done);
      if (put < 0 && errno == EINTR) continue;
      if (put < 0) error = errno;
      if (put > 0) done += static_cast<std::size_t>(put);
    }
    const int close_error = file.close();
    if (error == 0) error = close_error;
  }
  if (error == 0 && ::rename(temporary.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(temporary.c_str());
    fail("write", path, error);
  }
}

void ensure_writable_directory(const std::filesystem::path& directory) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) {
    throw Error(
        fmt::format("cannot create directory '{}': {}", directory.string(), error.message()));
  }
  if (::access(directory.c_str(), W_OK | X_OK) != 0) fail("write into directory", directory, errno);
}

std::int64_t regular_file_size(const std::filesystem::path& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0 || !S_ISREG(status.st_mode)) return -1;
  return status.st_size;
}

}  // namespace strata::cli
