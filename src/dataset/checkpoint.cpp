// do_while's checkpoint files: a magic line, the iteration, the record size and count, then the
// records.

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "strata/base/error.hpp"
#include "strata/dataset/loop.hpp"

namespace strata::dataset {
namespace {

constexpr char magic[] = "STRATA-DATASET-CHECKPOINT 2\n";

struct Header {
  std::uint32_t iteration = 0;
  std::uint32_t record_bytes = 0;
  std::uint64_t records = 0;
  std::uint32_t finished = 0;
  std::uint32_t unused = 0;
};

}  // namespace

void write_checkpoint(const std::string& path, const Checkpoint& checkpoint) {
  const std::string part = path + ".part";
  {
    std::ofstream out(part, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("do_while: cannot write checkpoint '" + part + "'");
    const Header header{checkpoint.iteration, checkpoint.record_bytes,
                        checkpoint.records.size() / checkpoint.record_bytes,
                        checkpoint.finished ? 1u : 0u, 0};
    out.write(magic, sizeof(magic) - 1);
    out.write(reinterpret_cast<const char*>(&header), sizeof(header));
    out.write(reinterpret_cast<const char*>(checkpoint.records.data()),
              static_cast<std::streamsize>(checkpoint.records.size()));
    out.flush();
    if (!out) throw Error("do_while: writing checkpoint '" + part + "' failed");
  }
  const int fd = ::open(part.c_str(), O_RDONLY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  std::error_code error;
  std::filesystem::rename(part, path, error);
  if (error)
    throw Error("do_while: cannot rename '" + part + "' to '" + path + "': " + error.message());
}

std::optional<Checkpoint> read_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  char head[sizeof(magic) - 1];
  Header header;
  in.read(head, sizeof(head));
  in.read(reinterpret_cast<char*>(&header), sizeof(header));
  if (!in || std::memcmp(head, magic, sizeof(head)) != 0 || header.record_bytes == 0)
    throw Error("do_while: '" + path + "' is not a data-set checkpoint");
  Checkpoint checkpoint{header.iteration, header.record_bytes, {}, header.finished != 0};
  checkpoint.records.resize(header.records * header.record_bytes);
  in.read(reinterpret_cast<char*>(checkpoint.records.data()),
          static_cast<std::streamsize>(checkpoint.records.size()));
  if (!in || in.peek() != std::char_traits<char>::eof()) {
    throw Error("do_while: checkpoint '" + path + "' should hold " +
                std::to_string(header.records) + " records of " +
                std::to_string(header.record_bytes) + " bytes and does not");
  }
  return checkpoint;
}

}  // namespace strata::dataset
